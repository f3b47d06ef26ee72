//! How a file is named and described on screen. A name is the uploader's
//! (or the agent's) text: shown as text only, without the characters that
//! would reorder or hide what is around it, and not too long.

/// Most characters of a shown name (the extension is kept at the end).
const MAX_NAME_CHARS: usize = 60;

/// The raster types shown as images (§13); everything else is a chip.
const RASTER: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Whether a stored file of this (sniffed) type is shown as an image.
pub fn is_raster_image(mime: &str) -> bool {
    RASTER.contains(&mime)
}

/// A name fit to show: its last path part, without control, bidirectional
/// or zero-width characters, at most [`MAX_NAME_CHARS`] characters with
/// the extension kept; `file` when nothing is left.
pub fn safe_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let clean: String = base.chars().filter(|c| !hidden(*c)).collect();
    let clean = clean.trim();
    if clean.is_empty() {
        return "file".into();
    }
    let count = clean.chars().count();
    if count <= MAX_NAME_CHARS {
        return clean.to_string();
    }
    let ext: String = match clean.rsplit_once('.') {
        Some((_, ext)) if (1..=8).contains(&ext.chars().count()) => format!(".{ext}"),
        _ => String::new(),
    };
    let keep = MAX_NAME_CHARS - 1 - ext.chars().count();
    let head: String = clean.chars().take(keep).collect();
    format!("{}…{ext}", head.trim_end())
}

/// Characters that are not shown: controls (NUL included), the
/// bidirectional overrides, embeddings, isolates and marks, and zero-width
/// ones.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{061C}'
            | '\u{FEFF}')
}

/// A size for humans: `512 B`, `12 KB`, `1.5 MB`, `20 MB` (units of 1024;
/// integer arithmetic, no float formatting).
pub fn size_label(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut unit = 0;
    let mut scale: u64 = 1024;
    while unit + 1 < UNITS.len() && bytes >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    let tenths = (u128::from(bytes) * 10 + u128::from(scale) / 2) / u128::from(scale);
    if tenths >= 100 || tenths % 10 == 0 {
        format!("{} {}", (tenths + 5) / 10, UNITS[unit])
    } else {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    }
}

/// A short word for a file's type: `PNG image`, `PDF document`, `Text`,
/// else the extension of its name in capitals, else `File`.
pub fn type_label(mime: &str, name: &str) -> String {
    let known = match mime {
        "image/png" => "PNG image",
        "image/jpeg" => "JPEG image",
        "image/gif" => "GIF image",
        "image/webp" => "WebP image",
        "application/pdf" => "PDF document",
        m if m.starts_with("text/") => "Text",
        _ => "",
    };
    if !known.is_empty() {
        return known.into();
    }
    let safe = safe_name(name);
    match safe.rsplit_once('.') {
        Some((_, ext))
            if (1..=5).contains(&ext.len()) && ext.chars().all(char::is_alphanumeric) =>
        {
            format!("{} file", ext.to_uppercase())
        }
        _ => "File".into(),
    }
}

/// Whole percent of `done` out of `total` (100 for an empty file).
pub fn percent(done: u64, total: u64) -> u8 {
    if total == 0 {
        return 100;
    }
    (u128::from(done.min(total)) * 100 / u128::from(total)) as u8
}

/// A thumbnail's size in CSS pixels: the image's own aspect within
/// `max` × `max`, never larger than the image; a square without
/// dimensions. Never zero.
pub fn thumb_size(width: Option<u32>, height: Option<u32>, max: u32) -> (u32, u32) {
    let (w, h) = match (width, height) {
        (Some(w), Some(h)) if w > 0 && h > 0 => (u64::from(w), u64::from(h)),
        _ => return (max, max),
    };
    let max = u64::from(max);
    let (w2, h2) = if w >= h {
        let side = w.min(max);
        (side, (h * side / w).max(1))
    } else {
        let side = h.min(max);
        ((w * side / h).max(1), side)
    };
    (w2 as u32, h2 as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_label(0), "0 B");
        assert_eq!(size_label(1023), "1023 B");
        assert_eq!(size_label(1024), "1 KB");
        assert_eq!(size_label(1536), "1.5 KB");
        assert_eq!(size_label(12 * 1024 + 100), "12 KB");
        assert_eq!(size_label(20 * 1024 * 1024), "20 MB");
        assert_eq!(size_label(1024 * 1024 - 1), "1024 KB");
        assert_eq!(size_label(u64::MAX), "16777216 TB");
    }

    #[test]
    fn hostile_names_are_shown_inert() {
        // Shown raw, "photo<RLO>gnp.exe" reads as "photoexe.png".
        assert_eq!(safe_name("photo\u{202E}gnp.exe"), "photognp.exe");
        assert_eq!(safe_name("a\0b.png"), "ab.png");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("..\\win\\x.txt"), "x.txt");
        assert_eq!(safe_name("\u{2066}\u{200B}\n"), "file");
        let long = format!("{}.png", "a".repeat(500));
        let shown = safe_name(&long);
        assert_eq!(shown.chars().count(), MAX_NAME_CHARS);
        assert!(shown.ends_with("….png"), "{shown}");
        let no_ext = "é".repeat(500);
        assert_eq!(safe_name(&no_ext).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn types() {
        assert_eq!(type_label("image/png", "x"), "PNG image");
        assert_eq!(type_label("text/plain", "evil.svg"), "Text");
        assert_eq!(type_label("application/zip", "a.zip"), "ZIP file");
        assert_eq!(type_label("", "noext"), "File");
        assert_eq!(type_label("", "a.<script>"), "File");
        assert!(is_raster_image("image/webp"));
        assert!(!is_raster_image("image/svg+xml"));
        assert!(!is_raster_image("text/html"));
    }

    #[test]
    fn thumbnails_keep_the_aspect_within_the_box() {
        assert_eq!(thumb_size(Some(240), Some(120), 240), (240, 120));
        assert_eq!(thumb_size(Some(1000), Some(500), 240), (240, 120));
        assert_eq!(thumb_size(Some(500), Some(1000), 240), (120, 240));
        assert_eq!(thumb_size(Some(50), Some(20), 240), (50, 20));
        // A header claiming 50,000 × 1 pixels still gives a box.
        assert_eq!(thumb_size(Some(50_000), Some(1), 240), (240, 1));
        assert_eq!(thumb_size(Some(u32::MAX), Some(u32::MAX), 240), (240, 240));
        assert_eq!(thumb_size(None, Some(3), 240), (240, 240));
        assert_eq!(thumb_size(Some(0), Some(3), 240), (240, 240));
    }

    #[test]
    fn percents() {
        assert_eq!(percent(0, 0), 100);
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(5, 3), 100);
        assert_eq!(percent(u64::MAX / 2, u64::MAX), 49);
    }
}
