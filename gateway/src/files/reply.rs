//! The answers about one upload, to the device that sent it: shared by
//! the frame handlers and the end of an upload.

use aria_protocol::{ErrorCode, FileAccept, FileRef, FileStored, ServerFrame};

use crate::app::App;
use crate::hub::ConnId;
use crate::request_error::RequestError;

/// `file.accept`: the end of the bytes held.
pub fn accept(app: &App, conn: ConnId, upload_id: &str, offset: u64) {
    app.outbox.hub().reply(
        conn,
        &ServerFrame::FileAccept(FileAccept {
            upload_id: upload_id.to_string(),
            offset,
        }),
    );
}

/// `file.stored` to the device.
pub fn stored(app: &App, conn: ConnId, upload_id: &str, file: FileRef) {
    app.outbox.hub().reply(
        conn,
        &ServerFrame::FileStored(FileStored {
            upload_id: upload_id.to_string(),
            file,
        }),
    );
}

/// A failed disk operation, said as the log says a full disk.
pub fn io_error(e: &std::io::Error) -> RequestError {
    tracing::error!("file store: {e}");
    let message = if e.kind() == std::io::ErrorKind::StorageFull {
        "The gateway's disk is full, so the file was not stored."
    } else {
        "The gateway could not write the file."
    };
    RequestError::new(ErrorCode::Internal, message)
}
