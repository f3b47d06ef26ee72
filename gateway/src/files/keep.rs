//! Files the gateway itself stores: those an agent sends back (§13), kept
//! exactly as an upload is (sniffed, named by digest, within the limits).

use std::io::Write;

use aria_protocol::FileRef;
use sha2::{Digest, Sha256};

use super::name::clean_name;
use super::sniff::sniff;
use super::upload::hex;
use super::Files;
use crate::ids;

impl Files {
    /// Stores `bytes` under a cleaned `name`; the reference is not yet
    /// recorded in the database (the caller does that). `Err` says why not.
    pub fn keep_bytes(&self, name: &str, bytes: &[u8]) -> Result<FileRef, String> {
        let size = bytes.len() as u64;
        if size > self.limits.max_bytes {
            return Err(format!(
                "{size} bytes is over the {} byte limit",
                self.limits.max_bytes
            ));
        }
        let sniffed = sniff(bytes).ok_or("not an image, a text or a PDF")?;
        let sha256 = hex(&Sha256::digest(bytes));
        if !self.disk.has(&sha256) {
            if !self.quota.reserve(size) {
                return Err("the file storage is full".into());
            }
            let written = self.write(bytes, &sha256);
            match written {
                Ok(true) => {}
                Ok(false) => self.quota.release(size),
                Err(e) => {
                    self.quota.release(size);
                    return Err(e.to_string());
                }
            }
        }
        Ok(FileRef {
            file_id: ids::file_id(),
            name: clean_name(name),
            mime: sniffed.mime.to_string(),
            size,
            sha256,
            width: sniffed.size.map(|(w, _)| w),
            height: sniffed.size.map(|(_, h)| h),
        })
    }

    fn write(&self, bytes: &[u8], sha256: &str) -> std::io::Result<bool> {
        let (temp, mut file) = self.disk.create_temp()?;
        let kept = file
            .write_all(bytes)
            .and_then(|()| self.disk.keep(&temp, &file, sha256));
        if kept.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        kept
    }
}
