//! The files of a turn (§13): those of the message being answered, read
//! whole for the model, and files the agent sends back, stored as uploads
//! are and carried on its answer.

use std::sync::Arc;

use aria_protocol::FileRef;

use super::{Turn, TurnError};

impl Turn {
    /// The answered message's files, in the order the user gave them.
    pub fn files(&self) -> &[FileRef] {
        &self.files
    }

    /// The most bytes one file may have (what the store takes).
    pub fn file_limit(&self) -> u64 {
        self.store.limits().max_bytes
    }

    /// All bytes of a stored file; `None` (logged) when they cannot be read.
    pub async fn file_bytes(&self, file: &FileRef) -> Option<Vec<u8>> {
        let store = Arc::clone(&self.store);
        let (sha256, size) = (file.sha256.clone(), file.size);
        let len = usize::try_from(size).ok()?;
        let read = tokio::task::spawn_blocking(move || store.read_at(&sha256, 0, len)).await;
        match read {
            Ok(Ok(bytes)) => Some(bytes),
            Ok(Err(e)) => {
                tracing::error!(file = %file.file_id, "cannot read a stored file: {e}");
                None
            }
            Err(_) => None,
        }
    }

    /// Stores a file the agent made and records it, for `files` on its
    /// answer. `Ok(Err(why))` when the bytes are refused (type, size, quota).
    pub async fn keep_file(
        &self,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<Result<FileRef, String>, TurnError> {
        let store = Arc::clone(&self.store);
        let name = name.to_string();
        let kept = tokio::task::spawn_blocking(move || store.keep_bytes(&name, &bytes))
            .await
            .unwrap_or_else(|_| Err("the store failed".into()));
        let file = match kept {
            Ok(file) => file,
            Err(why) => return Ok(Err(why)),
        };
        let row = file.clone();
        self.outbox
            .run(move |store, _| store.insert_file(&row, "agent"))
            .await?;
        Ok(Ok(file))
    }
}
