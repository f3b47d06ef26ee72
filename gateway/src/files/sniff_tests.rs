use super::*;

/// A PNG signature and IHDR claiming `w` × `h`, without any pixel data.
pub fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// A JPEG start, a comment segment holding `comment`, and a baseline frame header.
fn jpeg_with_comment(comment: &[u8], w: u16, h: u16) -> Vec<u8> {
    jpeg_with_segment(0xfe, comment, w, h)
}

/// A JPEG start, one segment `marker` holding `body`, and a baseline frame header.
fn jpeg_with_segment(marker: u8, body: &[u8], w: u16, h: u16) -> Vec<u8> {
    let mut b = vec![0xff, 0xd8, 0xff, marker];
    let len = u16::try_from(body.len() + 2).expect("short segment");
    b.extend(len.to_be_bytes());
    b.extend(body);
    b.extend([0xff, 0xc0, 0x00, 0x11, 0x08]);
    b.extend(h.to_be_bytes());
    b.extend(w.to_be_bytes());
    b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);
    b
}

/// An Exif block whose first directory holds a width tag, then the
/// orientation tag `orientation`, in big- or little-endian order.
fn exif(orientation: u16, big: bool) -> Vec<u8> {
    let u16b = |v: u16| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = b"Exif\0\0".to_vec();
    b.extend(if big { *b"MM\0*" } else { *b"II*\0" });
    b.extend(u32b(8));
    b.extend(u16b(2));
    for (tag, value) in [(0x0100, 4000), (0x0112, orientation)] {
        b.extend(u16b(tag));
        b.extend(u16b(3)); // SHORT
        b.extend(u32b(1));
        b.extend(u16b(value));
        b.extend([0, 0]);
    }
    b.extend(u32b(0));
    b
}

#[test]
fn images_are_known_by_their_magic_and_sized_by_their_header() {
    assert_eq!(
        sniff(&png_header(640, 480)),
        Some(Sniffed {
            mime: PNG,
            size: Some((640, 480))
        })
    );
    let gif = b"GIF89a\x20\x03\x58\x02\0\0\0;".to_vec();
    assert_eq!(
        sniff(&gif).map(|s| (s.mime, s.size)),
        Some((GIF, Some((800, 600))))
    );
    let jpeg = jpeg_with_comment(b"made by hand", 1024, 768);
    assert_eq!(
        sniff(&jpeg).map(|s| (s.mime, s.size)),
        Some((JPEG, Some((1024, 768))))
    );
    let mut lossy = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a".to_vec();
    lossy.extend([0x80, 0x02, 0xe0, 0x01]);
    assert_eq!(sniff(&lossy).map(|s| s.size), Some(Some((640, 480))));
    let mut lossless = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
    // 100 × 50: width-1 = 99 in bits 0..14, height-1 = 49 in bits 14..28.
    lossless.extend((99u32 | 49 << 14).to_le_bytes());
    assert_eq!(sniff(&lossless).map(|s| s.size), Some(Some((100, 50))));
    let mut extended = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
    extended.extend([0x3f, 0x01, 0x00, 0xef, 0x00, 0x00]);
    assert_eq!(sniff(&extended).map(|s| s.size), Some(Some((320, 240))));
}

#[test]
fn a_huge_claimed_size_is_read_not_decoded() {
    let bomb = png_header(50_000, 50_000);
    assert_eq!(sniff(&bomb).and_then(|s| s.size), Some((50_000, 50_000)));
}

#[test]
fn truncated_headers_give_a_type_without_a_size_and_never_panic() {
    let png = png_header(1, 1);
    for end in 8..png.len() {
        let _ = sniff(&png[..end]);
    }
    assert_eq!(
        sniff(&png[..12]).map(|s| (s.mime, s.size)),
        Some((PNG, None))
    );
    let jpeg = jpeg_with_comment(b"x", 2, 2);
    for end in 3..jpeg.len() {
        let _ = sniff(&jpeg[..end]);
    }
    // A segment length pointing far past the end.
    assert_eq!(
        sniff(&[0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff]).map(|s| s.size),
        Some(None)
    );
    for end in 12..30 {
        let _ = sniff(&b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0\0\0\0\0\0\0"[..end]);
    }
}

#[test]
fn markup_and_scripts_are_plain_text_whatever_they_claim() {
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    let html = b"<!doctype html><html><body onload=alert(1)></body></html>";
    let xml = b"<?xml version=\"1.0\"?><a/>";
    let script = b"#!/bin/sh\nrm -rf /\n";
    for bytes in [&svg[..], html, xml, script, "ünïcødé ✓\r\n\tok".as_bytes()] {
        assert_eq!(sniff(bytes).map(|s| s.mime), Some(TEXT));
    }
}

#[test]
fn an_html_jpeg_polyglot_is_a_jpeg_or_nothing() {
    // JPEG first, HTML in a comment: an image, never a document.
    let polyglot = jpeg_with_comment(b"<html><script>alert(1)</script></html>", 16, 16);
    assert_eq!(
        sniff(&polyglot).map(|s| (s.mime, s.size)),
        Some((JPEG, Some((16, 16))))
    );
    // HTML first, JPEG bytes after: not text (not UTF-8), not an image.
    let mut html_first = b"<html><img src=x onerror=alert(1)>".to_vec();
    html_first.extend(jpeg_with_comment(b"", 16, 16));
    assert_eq!(sniff(&html_first), None);
}

#[test]
fn binary_of_other_kinds_has_no_type() {
    assert_eq!(sniff(b"PK\x03\x04zip"), None);
    assert_eq!(sniff(b"\x7fELF\x02\x01"), None);
    assert_eq!(sniff(b"text with a NUL\0 inside"), None);
    assert_eq!(sniff(&[0xc3, 0x28]), None, "invalid UTF-8");
    assert_eq!(sniff(b"%PDF-1.7\n%\xe2\xe3").map(|s| s.mime), Some(PDF));
}

#[test]
fn declared_types_that_are_text_are_known() {
    for mime in [
        "text/html",
        "image/svg+xml",
        "application/xml",
        "application/json; charset=utf-8",
        "text/markdown",
        "application/javascript",
    ] {
        assert!(declared_as_text(mime), "{mime}");
    }
    for mime in ["video/mp4", "application/zip", "image/png", ""] {
        assert!(!declared_as_text(mime), "{mime}");
    }
}

#[test]
fn a_jpeg_turned_by_its_exif_orientation_has_its_shown_size() {
    let size = |body: &[u8]| sniff(&jpeg_with_segment(0xe1, body, 400, 300)).and_then(|s| s.size);
    for big in [true, false] {
        // 6 and 8 turn a quarter, 5 and 7 also mirror: width and height swap.
        for turned in [5, 6, 7, 8] {
            assert_eq!(size(&exif(turned, big)), Some((300, 400)), "{turned} {big}");
        }
        // Upright, upside down or mirrored: as stored.
        for kept in [1, 2, 3, 4] {
            assert_eq!(size(&exif(kept, big)), Some((400, 300)), "{kept} {big}");
        }
    }
    // An APP1 that is not Exif (XMP), or one cut short, changes nothing.
    assert_eq!(
        size(b"http://ns.adobe.com/xap/1.0/\0<x/>"),
        Some((400, 300))
    );
    let whole = exif(6, true);
    for end in 0..whole.len() {
        let cut = size(&whole[..end]);
        assert!(
            matches!(cut, Some((400, 300)) | Some((300, 400))),
            "{end}: {cut:?}"
        );
    }
    // A directory offset or entry count past the block is no orientation.
    let mut far = exif(6, true);
    far[10..14].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(size(&far), Some((400, 300)));
    // An entry count past the block reads only the entries there.
    let mut many = exif(6, false);
    many[14..16].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(size(&many), Some((300, 400)));
}
