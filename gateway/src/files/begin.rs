//! The checks of `file.begin`: what can be refused before any byte comes.

use aria_protocol::{is_sha256_hex, ErrorCode, FileBegin};

use super::limits::FileLimits;
use super::name::clean_name;
use super::sniff::{declared_as_text, STORED_TYPES};
use super::upload::Announced;
use crate::request_error::RequestError;

/// Longest `upload_id` kept (a client makes a UUID or similar).
const MAX_UPLOAD_ID_CHARS: usize = 128;

/// What the upload announces, or the error that answers it (without its
/// `upload_id`, which the caller adds).
pub fn check(req: &FileBegin, limits: &FileLimits) -> Result<Announced, RequestError> {
    let bad = |why: &str| Err(RequestError::new(ErrorCode::BadRequest, why));
    if req.upload_id.is_empty() || req.upload_id.chars().count() > MAX_UPLOAD_ID_CHARS {
        return bad("An upload_id must be 1 to 128 characters.");
    }
    if !is_sha256_hex(&req.sha256) {
        return bad("sha256 must be the 64 lowercase hex digits of the file's SHA-256.");
    }
    if req.size > limits.max_bytes {
        return Err(RequestError::new(
            ErrorCode::TooLarge,
            format!(
                "The file is {} bytes; this gateway takes files of at most {} bytes.",
                req.size, limits.max_bytes
            ),
        ));
    }
    if !may_be_accepted(&req.mime) {
        return Err(RequestError::new(
            ErrorCode::Unsupported,
            format!(
                "Files of type {} are not accepted here (only images, text and PDF).",
                req.mime.chars().take(100).collect::<String>()
            ),
        ));
    }
    Ok(Announced {
        name: clean_name(&req.name),
        size: req.size,
        sha256: req.sha256.clone(),
    })
}

/// Whether a declared type leaves the file a chance: an accepted type, a
/// text of any kind (stored as `text/plain`), or no useful type at all
/// (then the bytes decide after the last chunk).
fn may_be_accepted(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence.is_empty()
        || essence == "application/octet-stream"
        || STORED_TYPES.contains(&essence.as_str())
        || declared_as_text(&essence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(mime: &str, size: u64) -> FileBegin {
        FileBegin {
            upload_id: "u1".into(),
            name: "../x.png".into(),
            mime: mime.into(),
            size,
            sha256: "0".repeat(64),
        }
    }

    fn code(req: &FileBegin) -> Option<ErrorCode> {
        match check(req, &FileLimits::default()).map_err(|e| e.into_frame()) {
            Ok(_) => None,
            Err(aria_protocol::ServerFrame::Error(e)) => Some(e.code),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn size_type_and_digest_are_checked_up_front() {
        let max = FileLimits::default().max_bytes;
        assert_eq!(code(&begin("image/png", max)), None);
        assert_eq!(
            code(&begin("image/png", max + 1)),
            Some(ErrorCode::TooLarge)
        );
        for accepted in [
            "image/svg+xml",
            "text/html",
            "",
            "application/octet-stream",
            "application/pdf",
        ] {
            assert_eq!(code(&begin(accepted, 5)), None, "{accepted}");
        }
        for refused in ["video/mp4", "application/zip", "image/tiff"] {
            assert_eq!(
                code(&begin(refused, 5)),
                Some(ErrorCode::Unsupported),
                "{refused}"
            );
        }
        let mut bad_digest = begin("image/png", 5);
        bad_digest.sha256 = "A".repeat(64);
        assert_eq!(code(&bad_digest), Some(ErrorCode::BadRequest));
        let mut no_id = begin("image/png", 5);
        no_id.upload_id.clear();
        assert_eq!(code(&no_id), Some(ErrorCode::BadRequest));
        let announced = check(&begin("image/png", 5), &FileLimits::default()).expect("ok");
        assert_eq!(announced.name, "x.png");
    }
}
