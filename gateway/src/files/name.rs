//! File names as shown to people: the uploader's name made harmless. It is
//! only ever displayed and offered as a download name; the bytes on disk
//! are named by their digest.

/// Longest name kept, in characters (common file systems allow 255 bytes;
/// the extension is kept when a longer one is cut).
pub const MAX_NAME_CHARS: usize = 200;
/// The name of a file whose own name has nothing left.
pub const FALLBACK_NAME: &str = "file";

/// The last path segment of `raw`, without control characters, bidi
/// controls (a right-to-left override makes `gpj.exe` look like `exe.jpg`)
/// or leading dots, cut to [`MAX_NAME_CHARS`].
pub fn clean_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let kept: String = last
        .chars()
        .filter(|c| !c.is_control() && !is_format_control(*c))
        .collect();
    let trimmed = kept.trim().trim_start_matches('.').trim();
    if trimmed.is_empty() {
        return FALLBACK_NAME.to_string();
    }
    cut(trimmed)
}

/// Bidi embeddings, overrides and isolates, directional marks, zero-width
/// characters and the byte-order mark: invisible characters that change how
/// the rest of a name reads.
fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Keeps the start and the extension (up to 16 characters) of a long name.
fn cut(name: &str) -> String {
    let count = name.chars().count();
    if count <= MAX_NAME_CHARS {
        return name.to_string();
    }
    let ext = name
        .rfind('.')
        .map(|dot| &name[dot..])
        .filter(|ext| ext.chars().count() <= 16)
        .unwrap_or("");
    let head: String = name
        .chars()
        .take(MAX_NAME_CHARS - ext.chars().count() - 1)
        .collect();
    format!("{head}…{ext}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_dropped() {
        assert_eq!(clean_name("../../etc/passwd"), "passwd");
        assert_eq!(clean_name("..\\..\\windows\\win.ini"), "win.ini");
        assert_eq!(clean_name("/abs/path/x.png"), "x.png");
        assert_eq!(clean_name(".."), FALLBACK_NAME);
        assert_eq!(clean_name("../"), FALLBACK_NAME);
        assert_eq!(clean_name(".bashrc"), "bashrc");
    }

    #[test]
    fn controls_and_bidi_overrides_are_removed() {
        assert_eq!(clean_name("evil\0.png"), "evil.png");
        assert_eq!(clean_name("a\nb\tc\u{7f}.txt"), "abc.txt");
        assert_eq!(clean_name("photo\u{202e}gpj.exe"), "photogpj.exe");
        assert_eq!(clean_name("\u{2067}x\u{2069}\u{200f}.pdf"), "x.pdf");
        assert_eq!(clean_name("\u{feff}"), FALLBACK_NAME);
        assert_eq!(clean_name(""), FALLBACK_NAME);
    }

    #[test]
    fn long_names_are_cut_keeping_the_extension() {
        let long = format!("{}.png", "a".repeat(500));
        let cleaned = clean_name(&long);
        assert_eq!(cleaned.chars().count(), MAX_NAME_CHARS);
        assert!(
            cleaned.starts_with("aaa") && cleaned.ends_with("….png"),
            "{cleaned}"
        );
        let wide = "é".repeat(500);
        assert_eq!(clean_name(&wide).chars().count(), MAX_NAME_CHARS);
        assert_eq!(clean_name("kept.txt"), "kept.txt");
    }
}
