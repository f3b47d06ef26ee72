//! A file checked against the gateway's `ready.limits` before any byte is
//! sent, with a sentence that names the file and the limit.

use super::display::{safe_name, size_label};
use crate::protocol::Limits;

/// Types the gateway stores as `text/plain` (§13): accepted as text.
const AS_TEXT: [&str; 6] = [
    "application/json",
    "application/xml",
    "application/javascript",
    "image/svg+xml",
    "application/x-sh",
    "application/xhtml+xml",
];

/// Whether a file may be attached: `attached` files are already on the
/// message. `None` limits: the gateway takes no files (or has not said).
pub fn check(
    limits: Option<&Limits>,
    attached: usize,
    name: &str,
    mime: &str,
    size: u64,
) -> Result<(), String> {
    let name = safe_name(name);
    let Some(limits) = limits else {
        return Err(format!("{name}: this gateway does not take files."));
    };
    if attached >= limits.files_per_message as usize {
        return Err(format!(
            "{name}: a message takes at most {} files.",
            limits.files_per_message
        ));
    }
    if size > limits.file_max_bytes {
        return Err(format!(
            "{name} is {}; the gateway takes files up to {}.",
            size_label(size),
            size_label(limits.file_max_bytes)
        ));
    }
    if !type_accepted(limits, mime) {
        return Err(format!(
            "{name}: the gateway does not take {} files.",
            if mime.is_empty() { "these" } else { mime }
        ));
    }
    Ok(())
}

/// The declared type is a hint: unknown (`""`, octet-stream) is left to
/// the gateway, which types the bytes.
fn type_accepted(limits: &Limits, mime: &str) -> bool {
    let mime = mime.split(';').next().unwrap_or_default().trim();
    if mime.is_empty() || mime == "application/octet-stream" || limits.file_types.is_empty() {
        return true;
    }
    let as_stored = if mime.starts_with("text/") || AS_TEXT.contains(&mime) {
        "text/plain"
    } else {
        mime
    };
    limits.file_types.iter().any(|t| t == as_stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            file_max_bytes: 20 * 1024 * 1024,
            files_per_message: 10,
            file_types: ["image/png", "image/jpeg", "text/plain", "application/pdf"]
                .map(String::from)
                .to_vec(),
        }
    }

    #[test]
    fn within_limits() {
        let l = limits();
        assert_eq!(check(Some(&l), 0, "a.png", "image/png", 10), Ok(()));
        assert_eq!(check(Some(&l), 9, "a.md", "text/markdown", 10), Ok(()));
        assert_eq!(check(Some(&l), 0, "x.svg", "image/svg+xml", 10), Ok(()));
        assert_eq!(check(Some(&l), 0, "x", "", 10), Ok(()));
        assert_eq!(
            check(Some(&l), 0, "big", "image/png", 20 * 1024 * 1024),
            Ok(())
        );
    }

    #[test]
    fn each_limit_names_the_file_and_the_limit() {
        let l = limits();
        assert_eq!(
            check(Some(&l), 0, "huge.pdf", "application/pdf", 25 * 1024 * 1024),
            Err("huge.pdf is 25 MB; the gateway takes files up to 20 MB.".into())
        );
        assert_eq!(
            check(Some(&l), 10, "eleven.png", "image/png", 1),
            Err("eleven.png: a message takes at most 10 files.".into())
        );
        assert_eq!(
            check(Some(&l), 0, "a.zip", "application/zip", 1),
            Err("a.zip: the gateway does not take application/zip files.".into())
        );
        assert_eq!(
            check(None, 0, "a\u{202E}gnp.exe", "image/png", 1),
            Err("agnp.exe: this gateway does not take files.".into())
        );
    }
}
