//! The end of an upload: all bytes are in. The digest is checked, the type
//! sniffed from the bytes, and only then is the file moved into the store
//! and recorded, so a partial or wrong file is never served.

use std::sync::Arc;

use aria_protocol::{ErrorCode, FileRef};
use sha2::{Digest, Sha256};
use tokio::sync::MutexGuard;

use super::disk::{self, Disk};
use super::reply::{io_error, stored};
use super::sniff::{sniff, Sniffed};
use super::upload::{hex, Part, Upload};
use super::uploads::{Key, Slot};
use crate::app::App;
use crate::hub::ConnId;
use crate::ids;
use crate::request_error::RequestError;

enum Checked {
    /// The bytes do not have the announced digest.
    Mismatch,
    /// The bytes are of no accepted type.
    Unsupported,
    /// In the store; `new` unless the same bytes were there already.
    Kept { sniffed: Sniffed, new: bool },
}

/// Checks and stores a complete upload, answering `file.stored` or the
/// error; the upload ends either way except on a digest mismatch, after
/// which it starts over from offset 0.
pub async fn complete(
    app: &Arc<App>,
    conn: ConnId,
    key: &Key,
    slot: &Slot,
    mut upload: MutexGuard<'_, Upload>,
) -> Result<(), RequestError> {
    let files = Arc::clone(&app.files);
    let Some(part) = upload.part.take() else {
        return Err(RequestError::new(
            ErrorCode::NotFound,
            "The upload has ended.",
        ));
    };
    let temp = upload.temp.clone();
    let sha256 = upload.announced.sha256.clone();
    let checked = tokio::task::spawn_blocking(move || check(&files.disk, part, &temp, &sha256))
        .await
        .map_err(|_| RequestError::new(ErrorCode::Internal, "The upload failed."))?;
    let files = &app.files;
    let (part, checked) = match checked {
        Ok(done) => done,
        Err(e) => {
            files.uploads.remove(key, slot);
            files.quota.release(upload.close());
            return Err(io_error(&e));
        }
    };
    match checked {
        Checked::Mismatch => {
            upload.part = part;
            files.quota.release(std::mem::take(&mut upload.received));
            Err(RequestError::new(
                ErrorCode::BadRequest,
                "The bytes do not match the sha256 given; the upload starts over from 0.",
            ))
        }
        Checked::Unsupported => {
            files.uploads.remove(key, slot);
            files.quota.release(upload.close());
            Err(RequestError::new(
                ErrorCode::Unsupported,
                "The file is not an image (PNG, JPEG, GIF, WebP), a text or a PDF.",
            ))
        }
        Checked::Kept { sniffed, new } => {
            files.uploads.remove(key, slot);
            let size = upload.close();
            if !new {
                files.quota.release(size);
            }
            let file = FileRef {
                file_id: ids::file_id(),
                name: upload.announced.name.clone(),
                mime: sniffed.mime.to_string(),
                size: upload.announced.size,
                sha256: upload.announced.sha256.clone(),
                width: sniffed.size.map(|(w, _)| w),
                height: sniffed.size.map(|(_, h)| h),
            };
            let upload_id = &key.1;
            record(app, conn, &key.0, upload_id, file).await
        }
    }
}

/// The blocking part: digest, type, and the move into the store. The part
/// comes back for an upload that goes on (after a mismatch).
fn check(
    disk: &Disk,
    mut part: Part,
    temp: &std::path::Path,
    sha256: &str,
) -> std::io::Result<(Option<Part>, Checked)> {
    let digest = hex(&std::mem::replace(&mut part.hasher, Sha256::new()).finalize());
    if digest != sha256 {
        disk::truncate(&mut part.file)?;
        return Ok((Some(part), Checked::Mismatch));
    }
    let bytes = disk::read_all(&mut part.file)?;
    let Some(sniffed) = sniff(&bytes) else {
        return Ok((None, Checked::Unsupported));
    };
    let new = disk.keep(temp, &part.file, sha256)?;
    Ok((None, Checked::Kept { sniffed, new }))
}

/// Records a stored file for the device and answers `file.stored`.
pub async fn record(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    upload_id: &str,
    file: FileRef,
) -> Result<(), RequestError> {
    let row = file.clone();
    let device = device_id.to_string();
    app.outbox
        .run(move |store, _| store.insert_file(&row, &device))
        .await
        .map_err(|e| RequestError::from_store(e, None))?;
    stored(app, conn, upload_id, file);
    Ok(())
}
