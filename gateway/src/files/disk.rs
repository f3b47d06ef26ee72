//! The bytes on disk: a content-addressed store under the data directory.
//! A stored file is named by its SHA-256 digest (never by anything an
//! uploader chose), so the same bytes are kept once and no name can reach
//! outside the store. Uploads in progress are separate files in `tmp/`,
//! moved into place only once complete and checked, so a partial file is
//! never served.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use aria_protocol::is_sha256_hex;

/// Folder of the store inside the data directory.
pub const FILES_DIR: &str = "files";
const TEMP_DIR: &str = "tmp";

pub struct Disk {
    root: PathBuf,
    temp: PathBuf,
    /// Held from "is it stored?" to the move into place, so two uploads of
    /// the same bytes finishing at once count them once.
    keeping: Mutex<()>,
}

impl Disk {
    /// Opens (creating) the store in `data_dir`, removing uploads left
    /// unfinished by an earlier run: their sessions lived in its memory.
    pub fn open(data_dir: &Path) -> io::Result<Self> {
        let root = data_dir.join(FILES_DIR);
        let temp = root.join(TEMP_DIR);
        if temp.exists() {
            fs::remove_dir_all(&temp)?;
        }
        fs::create_dir_all(&temp)?;
        Ok(Self {
            root,
            temp,
            keeping: Mutex::new(()),
        })
    }

    /// Where the bytes with digest `sha256` live: `files/ab/abcd…`.
    fn blob_path(&self, sha256: &str) -> io::Result<PathBuf> {
        if !is_sha256_hex(sha256) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a digest"));
        }
        Ok(self.root.join(&sha256[..2]).join(sha256))
    }

    /// A new, empty file for an upload in progress.
    pub fn create_temp(&self) -> io::Result<(PathBuf, File)> {
        let name = format!("{:032x}.part", rand::random::<u128>());
        let path = self.temp.join(name);
        let file = OpenOptions::new()
            .create_new(true)
            .read(true)
            .write(true)
            .open(&path)?;
        Ok((path, file))
    }

    /// Makes the complete upload at `temp` the stored copy of `sha256`;
    /// `false` when those bytes were stored already (the upload is removed).
    pub fn keep(&self, temp: &Path, file: &File, sha256: &str) -> io::Result<bool> {
        let target = self.blob_path(sha256)?;
        let _keeping = self.keeping.lock().unwrap_or_else(PoisonError::into_inner);
        if target.exists() {
            fs::remove_file(temp)?;
            return Ok(false);
        }
        file.sync_data()?;
        if let Some(dir) = target.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::rename(temp, &target)?;
        Ok(true)
    }

    /// Whether the bytes of `sha256` are on disk.
    pub fn has(&self, sha256: &str) -> bool {
        self.blob_path(sha256).is_ok_and(|p| p.is_file())
    }

    /// Up to `len` bytes of the stored `sha256` from `offset`.
    pub fn read_at(&self, sha256: &str, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut file = File::open(self.blob_path(sha256)?)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::with_capacity(len);
        file.take(len as u64).read_to_end(&mut buf)?;
        Ok(buf)
    }

    /// Bytes of every stored file (for the quota at start).
    pub fn stored_bytes(&self) -> io::Result<u64> {
        let mut total = 0;
        for shard in fs::read_dir(&self.root)? {
            let shard = shard?;
            if shard.file_name() == TEMP_DIR || !shard.file_type()?.is_dir() {
                continue;
            }
            for blob in fs::read_dir(shard.path())? {
                total += blob?.metadata()?.len();
            }
        }
        Ok(total)
    }

    /// Uploads in progress on disk (for tests of the bounds).
    #[cfg(test)]
    pub fn temp_files(&self) -> usize {
        fs::read_dir(&self.temp).map_or(0, |d| d.count())
    }
}

/// Appends `bytes` to an upload's file.
pub fn append(file: &mut File, bytes: &[u8]) -> io::Result<()> {
    file.seek(SeekFrom::End(0))?;
    file.write_all(bytes)
}

/// The whole of an upload's file, for sniffing its type.
pub fn read_all(file: &mut File) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut buf = Vec::new();
    file.read_to_end(&mut buf)?;
    Ok(buf)
}

/// Empties an upload's file (its digest did not match: it starts over).
pub fn truncate(file: &mut File) -> io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0)).map(|_| ())
}
