//! The files a message names (`files` on `message.send` and
//! `message.edit`): at most the per-message limit, each one stored.

use std::sync::Arc;

use aria_protocol::{ErrorCode, FileRef};

use crate::app::App;
use crate::request_error::RequestError;

/// The stored files `ids`, in the order given, or the error (without the
/// message's ids, which the caller adds).
pub async fn resolve(app: &Arc<App>, ids: &[String]) -> Result<Box<[FileRef]>, RequestError> {
    if ids.is_empty() {
        return Ok(Box::default());
    }
    let max = app.files.limits().per_message;
    if ids.len() > max as usize {
        return Err(RequestError::new(
            ErrorCode::BadRequest,
            format!("A message carries at most {max} files."),
        ));
    }
    let wanted = ids.to_vec();
    let found = app
        .outbox
        .run(move |store, _| store.files(&wanted))
        .await
        .map_err(|e| RequestError::from_store(e, None))?;
    match found {
        Ok(files) => Ok(files.into_boxed_slice()),
        Err(missing) => Err(RequestError::new(
            ErrorCode::NotFound,
            format!(
                "There is no stored file {}.",
                missing.chars().take(64).collect::<String>()
            ),
        )),
    }
}
