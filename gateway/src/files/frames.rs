//! The answers to `file.begin`, `file.chunk` and `file.get` (§13), each
//! to the device that asked.

use std::sync::Arc;
use std::time::Instant;

use aria_protocol::{ErrorCode, FileBegin, FileChunk, FileGet, FileRef, MAX_CHUNK_BYTES};
use base64::Engine;

use super::reply::{accept, io_error};
use super::upload::{Part, Upload};
use super::uploads::Key;
use super::{begin, finish, read};
use crate::app::App;
use crate::hub::ConnId;
use crate::ids;
use crate::request_error::RequestError;

pub async fn begin(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: FileBegin,
) -> Result<(), RequestError> {
    let upload_id = req.upload_id.clone();
    on_begin(app, conn, device_id, req)
        .await
        .map_err(|e| e.for_upload(&upload_id))
}

async fn on_begin(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: FileBegin,
) -> Result<(), RequestError> {
    let files = &app.files;
    let announced = begin::check(&req, files.limits())?;
    let key: Key = (device_id.to_string(), req.upload_id.clone());
    let (sha256, size) = (announced.sha256.clone(), announced.size);
    let known = app
        .outbox
        .run(move |store, _| store.blob(&sha256, size))
        .await
        .map_err(|e| RequestError::from_store(e, None))?;
    if let Some(blob) = known.filter(|_| files.disk.has(&announced.sha256)) {
        // The bytes are stored already: a new file for them, no bytes sent.
        files.uploads.discard(&key, &files.quota);
        let file = FileRef {
            file_id: ids::file_id(),
            name: announced.name,
            mime: blob.mime,
            size: announced.size,
            sha256: announced.sha256,
            width: blob.width,
            height: blob.height,
        };
        return finish::record(app, conn, device_id, &req.upload_id, file).await;
    }
    let now = Instant::now();
    if let Some(slot) = files.uploads.get(&key, now) {
        let upload = slot.lock().await;
        let same =
            upload.announced.size == announced.size && upload.announced.sha256 == announced.sha256;
        if !upload.closed && same {
            accept(app, conn, &req.upload_id, upload.received);
            return Ok(());
        }
    }
    let (temp, file) = files.disk.create_temp().map_err(|e| io_error(&e))?;
    let slot = files.uploads.insert(
        key.clone(),
        Upload::new(announced, temp, file),
        now,
        &files.quota,
    );
    accept(app, conn, &req.upload_id, 0);
    let upload = slot.lock().await;
    if upload.announced.size == 0 {
        return finish::complete(app, conn, &key, &slot, upload).await;
    }
    Ok(())
}

pub async fn chunk(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: FileChunk,
) -> Result<(), RequestError> {
    let upload_id = req.upload_id.clone();
    on_chunk(app, conn, device_id, req)
        .await
        .map_err(|e| e.for_upload(&upload_id))
}

async fn on_chunk(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    req: FileChunk,
) -> Result<(), RequestError> {
    let files = &app.files;
    let key: Key = (device_id.to_string(), req.upload_id.clone());
    let not_found = || {
        RequestError::new(
            ErrorCode::NotFound,
            "There is no such upload (it may have expired): begin it again.",
        )
    };
    let slot = files
        .uploads
        .get(&key, Instant::now())
        .ok_or_else(not_found)?;
    let mut upload = slot.lock().await;
    if upload.closed {
        return Err(not_found());
    }
    if req.offset != upload.received {
        // Out of order or repeated: ignored, the offset wanted is the answer.
        accept(app, conn, &req.upload_id, upload.received);
        return Ok(());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(req.data.as_bytes())
        .map_err(|_| RequestError::new(ErrorCode::BadRequest, "data is not standard base64."))?;
    if bytes.len() > MAX_CHUNK_BYTES {
        return Err(RequestError::new(
            ErrorCode::BadRequest,
            format!("A chunk holds at most {MAX_CHUNK_BYTES} bytes."),
        ));
    }
    let len = bytes.len() as u64;
    if upload.received + len > upload.announced.size {
        return Err(RequestError::new(
            ErrorCode::BadRequest,
            format!(
                "The chunk goes past the file's size of {} bytes.",
                upload.announced.size
            ),
        ));
    }
    if !files.quota.reserve(len) {
        files.uploads.remove(&key, &slot);
        files.quota.release(upload.close());
        return Err(RequestError::new(
            ErrorCode::TooLarge,
            format!(
                "The gateway's file storage is full ({} bytes); the upload was dropped.",
                files.quota.limit()
            ),
        ));
    }
    let Some(part) = upload.part.take() else {
        return Err(not_found());
    };
    match tokio::task::spawn_blocking(move || write(part, &bytes)).await {
        Ok(Ok(part)) => upload.part = Some(part),
        failed => {
            files.uploads.remove(&key, &slot);
            files.quota.release(upload.close() + len);
            return Err(match failed {
                Ok(Err(e)) => io_error(&e),
                _ => RequestError::new(ErrorCode::Internal, "The upload failed."),
            });
        }
    }
    upload.received += len;
    accept(app, conn, &req.upload_id, upload.received);
    if upload.received == upload.announced.size {
        return finish::complete(app, conn, &key, &slot, upload).await;
    }
    Ok(())
}

fn write(mut part: Part, bytes: &[u8]) -> std::io::Result<Part> {
    use sha2::Digest;
    super::disk::append(&mut part.file, bytes)?;
    part.hasher.update(bytes);
    Ok(part)
}

pub async fn get(app: &Arc<App>, conn: ConnId, req: FileGet) -> Result<(), RequestError> {
    let request_id = req.request_id.clone();
    read::send(app, conn, req)
        .await
        .map_err(|e| e.for_request(&request_id))
}
