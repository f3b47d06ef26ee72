//! The type of a file from its bytes (magic numbers), never from its name
//! or the type the uploader declared, and an image's size from its header
//! only: nothing is decoded, so a decompression bomb costs nothing here.
//!
//! Every text is `text/plain`: HTML, SVG, XML and scripts are text, and a
//! type that a browser would render or run is never handed out.

/// What the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    pub mime: &'static str,
    /// Pixels, for images whose header could be read.
    pub size: Option<(u32, u32)>,
}

pub const PNG: &str = "image/png";
pub const JPEG: &str = "image/jpeg";
pub const GIF: &str = "image/gif";
pub const WEBP: &str = "image/webp";
pub const PDF: &str = "application/pdf";
pub const TEXT: &str = "text/plain";

/// Every type the gateway stores, as `ready.limits.file_types` lists them.
pub const STORED_TYPES: [&str; 6] = [PNG, JPEG, GIF, WEBP, TEXT, PDF];

/// The type of `bytes` (a whole file), or `None` for bytes of no accepted
/// type (archives, executables, binary of any other kind).
pub fn sniff(bytes: &[u8]) -> Option<Sniffed> {
    let image = |mime, size| Some(Sniffed { mime, size });
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return image(PNG, png_size(bytes));
    }
    if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        return image(JPEG, jpeg_size(bytes));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return image(GIF, gif_size(bytes));
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return image(WEBP, webp_size(bytes));
    }
    if bytes.starts_with(b"%PDF-") {
        return Some(Sniffed {
            mime: PDF,
            size: None,
        });
    }
    is_text(bytes).then_some(Sniffed {
        mime: TEXT,
        size: None,
    })
}

/// UTF-8 without NUL or other control characters than whitespace: what a
/// person would call a text file, whatever language it is written in.
fn is_text(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    !text
        .bytes()
        .any(|b| (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)) || b == 0x7f)
}

/// Whether a declared type is one the gateway would store as text (so it is
/// accepted at `file.begin` and sniffed after the last chunk).
pub fn declared_as_text(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence.ends_with("+json")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/x-sh"
                | "application/x-httpd-php"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/sql"
        )
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

/// The IHDR chunk comes first: width and height at bytes 16 and 20.
fn png_size(b: &[u8]) -> Option<(u32, u32)> {
    (b.get(12..16)? == b"IHDR").then_some(())?;
    Some((be32(b, 16)?, be32(b, 20)?))
}

fn gif_size(b: &[u8]) -> Option<(u32, u32)> {
    Some((u32::from(le16(b, 6)?), u32::from(le16(b, 8)?)))
}

/// Walks the segments up to the first start-of-frame marker. The size is
/// the one the picture is shown at: an Exif orientation that turns it a
/// quarter (a phone held upright) swaps width and height, as browsers
/// apply it (`image-orientation: from-image`), so a thumbnail's box has the
/// shape of what it shows.
fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    let mut turned = false;
    loop {
        // Markers may be padded with any number of 0xff bytes.
        while *b.get(at)? == 0xff && *b.get(at + 1)? == 0xff {
            at += 1;
        }
        if *b.get(at)? != 0xff {
            return None;
        }
        let marker = *b.get(at + 1)?;
        match marker {
            // Standalone markers carry no length.
            0x01 | 0xd0..=0xd7 => at += 2,
            // Start of frame, except DHT (c4), JPG (c8) and DAC (cc).
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                let height = u32::from(be16(b, at + 5)?);
                let width = u32::from(be16(b, at + 7)?);
                return Some(if turned {
                    (height, width)
                } else {
                    (width, height)
                });
            }
            0xd9 | 0xda => return None,
            _ => {
                let len = usize::from(be16(b, at + 2)?);
                // APP1: the Exif block, if that is what it holds.
                if marker == 0xe1 {
                    let body = b.get(at + 4..at.checked_add(2 + len)?);
                    turned |= body
                        .and_then(exif_orientation)
                        .is_some_and(|o| (5..=8).contains(&o));
                }
                at = at.checked_add(2 + len)?;
            }
        }
    }
}

/// The orientation tag (0x0112) of the first image directory of an Exif
/// block (`Exif\0\0` and a TIFF header, either byte order), if present.
fn exif_orientation(app1: &[u8]) -> Option<u16> {
    let tiff = app1.strip_prefix(b"Exif\0\0")?;
    let big = match tiff.get(..4)? {
        b"MM\0*" => true,
        b"II*\0" => false,
        _ => return None,
    };
    let u16_at = |at: usize| -> Option<u16> {
        let v: [u8; 2] = tiff.get(at..at.checked_add(2)?)?.try_into().ok()?;
        Some(if big {
            u16::from_be_bytes(v)
        } else {
            u16::from_le_bytes(v)
        })
    };
    // Two halves in the block's byte order.
    let u32_at = |at: usize| -> Option<u32> {
        let first = u32::from(u16_at(at)?);
        let second = u32::from(u16_at(at.checked_add(2)?)?);
        Some(if big {
            first << 16 | second
        } else {
            second << 16 | first
        })
    };
    let ifd = usize::try_from(u32_at(4)?).ok()?;
    let entries = u16_at(ifd)?;
    // Entries of 12 bytes: tag, type, count, value (a SHORT sits first).
    (0..usize::from(entries))
        .map(|i| ifd + 2 + i * 12)
        .find(|&entry| u16_at(entry) == Some(0x0112))
        .and_then(|entry| u16_at(entry + 8))
}

fn webp_size(b: &[u8]) -> Option<(u32, u32)> {
    match b.get(12..16)? {
        // Lossy: a key frame's start code, then 14-bit width and height.
        b"VP8 " => {
            (b.get(23..26)? == [0x9d, 0x01, 0x2a]).then_some(())?;
            Some((
                u32::from(le16(b, 26)? & 0x3fff),
                u32::from(le16(b, 28)? & 0x3fff),
            ))
        }
        // Lossless: a signature byte, then width-1 and height-1 in 14 bits each.
        b"VP8L" => {
            (*b.get(20)? == 0x2f).then_some(())?;
            let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        // Extended: the canvas, width-1 and height-1 in 24 bits each.
        b"VP8X" => Some((le24(b, 24)? + 1, le24(b, 27)? + 1)),
        _ => None,
    }
}

#[cfg(test)]
#[path = "sniff_tests.rs"]
mod tests;
