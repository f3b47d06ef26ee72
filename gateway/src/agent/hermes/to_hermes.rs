//! The files of the user's message on their way to Hermes: their bytes go
//! over the link in pieces ahead of the turn, and the plugin hands them to
//! Hermes the way its own platforms hand it photos and documents
//! (docs/hermes-link.md, "Files"). Only the answered message's files go:
//! Hermes keeps earlier ones in its own session.

use base64::Engine;

use super::link::Link;
use super::wire::{Command, TurnFile};
use crate::agent::Turn;

/// Bytes of a file per `file` line: their base64 stays well under the
/// plugin's longest line (1 MiB).
pub const CHUNK_BYTES: usize = 512 * 1024;

/// Sends the bytes of the turn's files and returns what the `turn` says
/// of them. A file whose bytes cannot be read goes without them: the
/// plugin tells Hermes it did not arrive.
pub async fn send(
    link: &Link,
    turn: &Turn,
    chat_id: &str,
    turn_id: &str,
) -> Result<Vec<TurnFile>, String> {
    let mut files = Vec::with_capacity(turn.files().len());
    for file in turn.files() {
        if let Some(bytes) = turn.file_bytes(file).await {
            for (i, piece) in bytes.chunks(CHUNK_BYTES).enumerate() {
                link.send(&Command::File {
                    chat_id: chat_id.to_string(),
                    turn_id: turn_id.to_string(),
                    file_id: file.file_id.clone(),
                    offset: (i * CHUNK_BYTES) as u64,
                    data: base64::engine::general_purpose::STANDARD.encode(piece),
                })?;
            }
        }
        files.push(TurnFile {
            file_id: file.file_id.clone(),
            name: file.name.clone(),
            mime: file.mime.clone(),
            size: file.size,
        });
    }
    Ok(files)
}
