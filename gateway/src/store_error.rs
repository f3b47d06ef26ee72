//! Why the log could not be read or written. A leaf, so that the log and
//! its search index can both use it without importing each other.

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unknown channel")]
    NotFound,
    /// The item asked for is on another branch than the active path (§12).
    #[error("the item is not on the active path")]
    OffPath,
    #[error("cannot create the data directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot encode a log item: {0}")]
    Json(#[from] serde_json::Error),
    #[error("corrupt log item: {0}")]
    Item(#[from] aria_protocol::DecodeError),
    #[error("corrupt log: {0}")]
    Corrupt(String),
    #[error(
        "the data directory was written by a newer aria-gateway (schema version {found}; \
         this one knows up to {known}): use that version, or another --data-dir"
    )]
    NewerSchema { found: u32, known: u32 },
    #[error("database worker failed: {0}")]
    Worker(String),
    /// The data dir or its database file cannot be used as it is (a start-up
    /// check failed); the sentence says why and what to do.
    #[error("{0}")]
    Refused(String),
}

impl StoreError {
    /// Whether the write failed because the disk (or the log's size cap)
    /// is full: nothing was written, and the same write works once there
    /// is room again.
    pub fn is_disk_full(&self) -> bool {
        match self {
            Self::Sqlite(e) => e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull),
            Self::Io(e) => e.kind() == std::io::ErrorKind::StorageFull,
            _ => false,
        }
    }
}
