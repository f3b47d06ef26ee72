//! `file.get`: a stored file's bytes to the device that asked, as
//! `file.data` chunks.

use std::sync::Arc;

use aria_protocol::{ErrorCode, FileData, FileGet, ServerFrame, MAX_CHUNK_BYTES};
use base64::Engine;

use crate::app::App;
use crate::hub::ConnId;
use crate::request_error::RequestError;

/// Frames a device may have waiting before a `file.get` is refused: the
/// bytes of files it asked for are queued whole, so this bounds them.
const MAX_QUEUED_FRAMES: usize = 64;

pub async fn send(app: &Arc<App>, conn: ConnId, req: FileGet) -> Result<(), RequestError> {
    let hub = app.outbox.hub();
    if hub.queued(conn) > MAX_QUEUED_FRAMES {
        return Err(RequestError::new(
            ErrorCode::RateLimited,
            "Still sending earlier files; ask again in a moment.",
        ));
    }
    let file_id = req.file_id.clone();
    let file = app
        .outbox
        .run(move |store, _| store.file(&file_id))
        .await
        .map_err(|e| RequestError::from_store(e, None))?
        .ok_or_else(|| RequestError::new(ErrorCode::NotFound, "There is no such file."))?;
    let mut offset = req.offset.unwrap_or(0).min(file.size);
    loop {
        let files = Arc::clone(&app.files);
        let sha256 = file.sha256.clone();
        let bytes =
            tokio::task::spawn_blocking(move || files.read_at(&sha256, offset, MAX_CHUNK_BYTES))
                .await
                .map_err(|_| RequestError::new(ErrorCode::Internal, "Reading the file failed."))?
                .map_err(|e| {
                    tracing::error!(file = %file.file_id, "cannot read a stored file: {e}");
                    RequestError::new(ErrorCode::NotFound, "The file's bytes are gone.")
                })?;
        let end = offset + bytes.len() as u64;
        // A file that shrank on disk ends here rather than loop.
        let last = end >= file.size || bytes.is_empty();
        hub.reply(
            conn,
            &ServerFrame::FileData(FileData {
                request_id: req.request_id.clone(),
                file_id: file.file_id.clone(),
                offset,
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                size: file.size,
                mime: file.mime.clone(),
                last,
            }),
        );
        if last {
            return Ok(());
        }
        offset = end;
    }
}
