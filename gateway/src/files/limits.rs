//! How much the file store takes: per file, per message, on disk, and how
//! long an unfinished upload is kept. Settable by flags.

use std::time::Duration;

use aria_protocol::Limits;

use super::sniff::STORED_TYPES;

/// Default of `--file-max-mib`: a phone photo or a long PDF, in 80 chunks.
pub const DEFAULT_FILE_MAX_MIB: u64 = 20;
/// Default of `--files-per-message`.
pub const DEFAULT_FILES_PER_MESSAGE: u32 = 10;
/// Default of `--files-quota-mib`: stored files and uploads in progress
/// together, so uploads cannot fill the disk.
pub const DEFAULT_FILES_QUOTA_MIB: u64 = 2048;
/// Default of `--upload-expiry-secs`: an upload untouched this long is
/// removed with its bytes.
pub const DEFAULT_UPLOAD_EXPIRY_SECS: u64 = 3600;
/// Default of `--max-uploads`: uploads in progress at once, over all
/// devices; beginning one more drops the one untouched the longest.
pub const DEFAULT_MAX_UPLOADS: usize = 64;

const MIB: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLimits {
    pub max_bytes: u64,
    pub per_message: u32,
    pub quota_bytes: u64,
    pub upload_expiry: Duration,
    pub max_uploads: usize,
}

impl Default for FileLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_FILE_MAX_MIB * MIB,
            per_message: DEFAULT_FILES_PER_MESSAGE,
            quota_bytes: DEFAULT_FILES_QUOTA_MIB * MIB,
            upload_expiry: Duration::from_secs(DEFAULT_UPLOAD_EXPIRY_SECS),
            max_uploads: DEFAULT_MAX_UPLOADS,
        }
    }
}

impl FileLimits {
    /// `ready.limits`.
    pub fn announced(&self) -> Limits {
        Limits {
            file_max_bytes: self.max_bytes,
            files_per_message: self.per_message,
            file_types: STORED_TYPES.iter().map(|t| t.to_string()).collect(),
        }
    }
}

/// The command line flags of the file store.
#[derive(Debug, Clone, clap::Args)]
pub struct FileArgs {
    /// Largest file accepted, in mebibytes.
    #[arg(long, default_value_t = DEFAULT_FILE_MAX_MIB, value_parser = clap::value_parser!(u64).range(1..=4096), value_name = "MIB")]
    pub file_max_mib: u64,
    /// Most files on one message.
    #[arg(long, default_value_t = DEFAULT_FILES_PER_MESSAGE, value_name = "N")]
    pub files_per_message: u32,
    /// Most mebibytes of stored files and uploads in progress together;
    /// past it uploads fail with `too_large`.
    #[arg(long, default_value_t = DEFAULT_FILES_QUOTA_MIB, value_parser = clap::value_parser!(u64).range(1..), value_name = "MIB")]
    pub files_quota_mib: u64,
    /// Seconds an unfinished upload is kept after its last chunk.
    #[arg(long, default_value_t = DEFAULT_UPLOAD_EXPIRY_SECS, value_parser = clap::value_parser!(u64).range(1..), value_name = "SECS")]
    pub upload_expiry_secs: u64,
    /// Uploads in progress at once over all devices (at least 1).
    #[arg(long, default_value_t = DEFAULT_MAX_UPLOADS, value_name = "N")]
    pub max_uploads: usize,
}

impl From<FileArgs> for FileLimits {
    fn from(args: FileArgs) -> Self {
        Self {
            max_bytes: args.file_max_mib * MIB,
            per_message: args.files_per_message,
            quota_bytes: args.files_quota_mib.saturating_mul(MIB),
            upload_expiry: Duration::from_secs(args.upload_expiry_secs),
            max_uploads: args.max_uploads.max(1),
        }
    }
}
