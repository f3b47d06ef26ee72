//! Files (§13): uploads in chunks over the WebSocket into a
//! content-addressed store on disk, their metadata in the log's database,
//! and reading them back.
//!
//! Nothing a file holds is trusted: its type comes from its bytes
//! ([`sniff`]), its name is cleaned ([`name`]), its bytes are named by their
//! digest ([`disk`]), and an upload is bounded in size, count, age and
//! total disk ([`limits`], [`quota`], [`uploads`]).

pub mod attach;
mod begin;
mod disk;
mod finish;
pub mod frames;
mod keep;
mod limits;
pub mod name;
pub mod png;
mod quota;
mod read;
mod reply;
pub mod sniff;
mod upload;
mod uploads;

use std::io;
use std::path::Path;
use std::time::Instant;

pub use limits::{FileArgs, FileLimits};

use disk::Disk;
use quota::Quota;
use uploads::Uploads;

pub struct Files {
    disk: Disk,
    uploads: Uploads,
    quota: Quota,
    limits: FileLimits,
}

impl Files {
    /// Opens the store in `data_dir` (removing uploads an earlier run left).
    pub fn open(data_dir: &Path, limits: FileLimits) -> io::Result<Self> {
        let disk = Disk::open(data_dir)?;
        let used = disk.stored_bytes()?;
        Ok(Self {
            quota: Quota::new(limits.quota_bytes, used),
            uploads: Uploads::new(limits.max_uploads, limits.upload_expiry),
            disk,
            limits,
        })
    }

    pub fn limits(&self) -> &FileLimits {
        &self.limits
    }

    /// Removes expired uploads with their bytes.
    pub fn sweep(&self) {
        self.uploads.sweep(Instant::now(), &self.quota);
    }

    /// Bytes of the stored file `sha256` from `offset` (at most `len`).
    pub fn read_at(&self, sha256: &str, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.disk.read_at(sha256, offset, len)
    }
}
