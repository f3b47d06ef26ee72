//! The cap on a tool's logged `output` (§5 allows one).

/// Largest `output` kept on a tool item; more is cut.
pub(super) const MAX_TOOL_OUTPUT_BYTES: usize = 256 * 1024;

/// Cuts `output` to at most [`MAX_TOOL_OUTPUT_BYTES`] on a char boundary.
pub(super) fn cap_output(output: &mut String) {
    if output.len() > MAX_TOOL_OUTPUT_BYTES {
        let mut end = MAX_TOOL_OUTPUT_BYTES;
        while !output.is_char_boundary(end) {
            end -= 1;
        }
        output.truncate(end);
        output.push_str("\n[output cut at 256 KiB]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_output_is_capped_on_a_char_boundary() {
        let mut output = "é".repeat(MAX_TOOL_OUTPUT_BYTES);
        cap_output(&mut output);
        assert!(output.len() <= MAX_TOOL_OUTPUT_BYTES + 32);
        assert!(output.ends_with("[output cut at 256 KiB]"));
        let mut small = "ok".to_string();
        cap_output(&mut small);
        assert_eq!(small, "ok");
    }
}
