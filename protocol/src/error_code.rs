use serde::{Deserialize, Serialize};

/// The error codes of §7. Unknown codes from a newer gateway decode to `Other`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Unauthorized,
    UnsupportedProtocol,
    BadRequest,
    NotFound,
    TooLarge,
    RateLimited,
    Unsupported,
    Internal,
    #[serde(other)]
    Other,
}

impl ErrorCode {
    /// Whether the gateway closes the socket after this error (and the client
    /// must not retry on its own).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            ErrorCode::Unauthorized | ErrorCode::UnsupportedProtocol
        )
    }
}
