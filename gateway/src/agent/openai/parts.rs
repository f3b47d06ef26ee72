//! The answered message's files (§13) in a Chat Completions user message:
//! images as `image_url` parts (data URLs of the stored bytes), text files
//! as their text under their name, PDFs as a note. Only this message's
//! files are sent in full; earlier ones are named (`context.rs`).

use aria_protocol::FileRef;
use base64::Engine;
use serde_json::{json, Value};

use crate::agent::Turn;
use crate::files::sniff::{PDF, TEXT};

/// A file of the answered message and its bytes (`None`: unreadable).
pub struct Attached {
    pub file: FileRef,
    pub bytes: Option<Vec<u8>>,
}

/// Reads the answered message's files.
pub async fn read(turn: &Turn) -> Vec<Attached> {
    let mut attached = Vec::with_capacity(turn.files().len());
    for file in turn.files() {
        attached.push(Attached {
            bytes: turn.file_bytes(file).await,
            file: file.clone(),
        });
    }
    attached
}

fn is_image(file: &FileRef) -> bool {
    file.mime.starts_with("image/")
}

/// Whether any file would go as an image part.
pub fn has_images(attached: &[Attached]) -> bool {
    attached
        .iter()
        .any(|a| is_image(&a.file) && a.bytes.is_some())
}

/// The content of the answered user message: `text` with the files. A
/// plain string when no image goes along (what every server takes), else
/// a text part then one part per image. With `images` false, images are
/// named in the text instead (the model does not take them). Each text
/// file is cut to `max_chars` characters.
pub fn content(text: &str, attached: &[Attached], images: bool, max_chars: usize) -> Value {
    let mut words = text.to_string();
    let mut image_parts = Vec::new();
    for Attached { file, bytes } in attached {
        let Some(bytes) = bytes else {
            note(
                &mut words,
                &format!("[File {}: its bytes could not be read]", file.name),
            );
            continue;
        };
        match file.mime.as_str() {
            _ if is_image(file) && images => image_parts.push(json!({
                "type": "image_url",
                "image_url": {"url": format!(
                    "data:{};base64,{}",
                    file.mime,
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                )},
            })),
            _ if is_image(file) => note(
                &mut words,
                &format!(
                    "[Image {}: not sent, the model does not take images]",
                    file.name
                ),
            ),
            TEXT => note(&mut words, &text_file(&file.name, bytes, max_chars)),
            PDF => note(
                &mut words,
                &format!(
                    "[PDF {} ({} bytes): the gateway cannot read text out of PDFs]",
                    file.name, file.size
                ),
            ),
            other => note(&mut words, &format!("[File {} ({other})]", file.name)),
        }
    }
    if image_parts.is_empty() {
        return json!(words);
    }
    let mut parts = vec![json!({"type": "text", "text": words})];
    parts.extend(image_parts);
    Value::Array(parts)
}

fn note(words: &mut String, line: &str) {
    if !words.trim().is_empty() {
        words.push_str("\n\n");
    }
    words.push_str(line);
}

/// A text file under its name, cut to `max_chars` characters.
fn text_file(name: &str, bytes: &[u8], max_chars: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let total = text.chars().count();
    let kept: String = text.chars().take(max_chars).collect();
    let cut = if total > max_chars {
        format!("\n[cut: the first {max_chars} of {total} characters]")
    } else {
        String::new()
    };
    format!("File {name}:\n```\n{kept}\n```{cut}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attached(name: &str, mime: &str, bytes: &[u8]) -> Attached {
        Attached {
            file: FileRef {
                file_id: format!("f_{name}"),
                name: name.into(),
                mime: mime.into(),
                size: bytes.len() as u64,
                sha256: "0".repeat(64),
                width: None,
                height: None,
            },
            bytes: Some(bytes.to_vec()),
        }
    }

    #[test]
    fn images_are_parts_and_text_files_are_text() {
        let files = [
            attached("a.png", "image/png", b"\x89PNG"),
            attached("notes.txt", "text/plain", b"line one"),
        ];
        let content = content("look", &files, true, 100);
        assert_eq!(
            content,
            json!([
                {"type": "text", "text": "look\n\nFile notes.txt:\n```\nline one\n```"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            ])
        );
        assert!(has_images(&files));
    }

    #[test]
    fn without_images_they_are_named_and_the_content_stays_a_string() {
        let files = [
            attached("a.png", "image/png", b"\x89PNG"),
            attached("paper.pdf", "application/pdf", b"%PDF-1.7"),
        ];
        let content = content("", &files, false, 100);
        assert_eq!(
            content,
            json!(
                "[Image a.png: not sent, the model does not take images]\n\n\
                   [PDF paper.pdf (8 bytes): the gateway cannot read text out of PDFs]"
            )
        );
    }

    #[test]
    fn long_text_files_are_cut_and_unreadable_files_named() {
        let mut gone = attached("gone.png", "image/png", b"");
        gone.bytes = None;
        let files = [
            attached("big.txt", "text/plain", "é".repeat(50).as_bytes()),
            gone,
        ];
        let content = content("q", &files, true, 10);
        let text = content.as_str().expect("no image part");
        assert!(
            text.contains(&format!("```\n{}\n```", "é".repeat(10))),
            "{text}"
        );
        assert!(text.contains("[cut: the first 10 of 50 characters]"));
        assert!(text.ends_with("[File gone.png: its bytes could not be read]"));
        assert!(!has_images(&files[1..]));
    }
}
