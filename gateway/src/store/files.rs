//! Metadata of stored files (§13): the bytes once per digest (`blobs`), and
//! each upload of them as a file with its own id and name (`files`). The
//! bytes themselves are on disk, named by digest (`files/disk.rs`).

use aria_protocol::FileRef;
use rusqlite::{params, OptionalExtension, Row};

use super::{Store, StoreError};
use crate::clock::now_ms;

/// The schema step adding the two tables.
pub const MIGRATION: &str = "
CREATE TABLE blobs (
    sha256     TEXT PRIMARY KEY,
    size       INTEGER NOT NULL,
    mime       TEXT NOT NULL,
    width      INTEGER,
    height     INTEGER,
    created_at INTEGER NOT NULL
);
CREATE TABLE files (
    file_id    TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL REFERENCES blobs (sha256),
    name       TEXT NOT NULL,
    device_id  TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
";

/// What the bytes of a stored digest are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

const FILE_COLUMNS: &str = "f.file_id, f.name, b.mime, b.size, b.sha256, b.width, b.height";

fn file_ref(r: &Row<'_>) -> rusqlite::Result<FileRef> {
    Ok(FileRef {
        file_id: r.get(0)?,
        name: r.get(1)?,
        mime: r.get(2)?,
        size: r.get(3)?,
        sha256: r.get(4)?,
        width: r.get(5)?,
        height: r.get(6)?,
    })
}

impl Store {
    /// The stored bytes with this digest and size, if any.
    pub fn blob(&self, sha256: &str, size: u64) -> Result<Option<Blob>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT mime, width, height FROM blobs WHERE sha256 = ?1 AND size = ?2",
                params![sha256, size],
                |r| {
                    Ok(Blob {
                        mime: r.get(0)?,
                        width: r.get(1)?,
                        height: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Records a file (and its bytes' metadata, the first time they come).
    pub fn insert_file(&mut self, file: &FileRef, device_id: &str) -> Result<(), StoreError> {
        let now = now_ms();
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT OR IGNORE INTO blobs (sha256, size, mime, width, height, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                file.sha256,
                file.size,
                file.mime,
                file.width,
                file.height,
                now
            ],
        )?;
        tx.execute(
            "INSERT INTO files (file_id, sha256, name, device_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![file.file_id, file.sha256, file.name, device_id, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// One stored file.
    pub fn file(&self, file_id: &str) -> Result<Option<FileRef>, StoreError> {
        Ok(self
            .conn
            .query_row(
                &format!(
                    "SELECT {FILE_COLUMNS} FROM files f JOIN blobs b ON b.sha256 = f.sha256
                     WHERE f.file_id = ?1"
                ),
                [file_id],
                file_ref,
            )
            .optional()?)
    }

    /// The files `ids` in the order given; the first id not stored is the error.
    pub fn files(&self, ids: &[String]) -> Result<Result<Vec<FileRef>, String>, StoreError> {
        let mut found = Vec::with_capacity(ids.len());
        for id in ids {
            match self.file(id)? {
                Some(file) => found.push(file),
                None => return Ok(Err(id.clone())),
            }
        }
        Ok(Ok(found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(file_id: &str, name: &str) -> FileRef {
        FileRef {
            file_id: file_id.into(),
            name: name.into(),
            mime: "image/png".into(),
            size: 10,
            sha256: "ab".repeat(32),
            width: Some(3),
            height: Some(2),
        }
    }

    #[test]
    fn files_share_their_bytes_and_keep_their_names() {
        let dir = tempfile::tempdir().expect("dir");
        let mut store = Store::open(dir.path()).expect("store");
        assert_eq!(store.blob(&"ab".repeat(32), 10).expect("blob"), None);
        store
            .insert_file(&png("f_1", "a.png"), "d1")
            .expect("first");
        store
            .insert_file(&png("f_2", "b.png"), "d2")
            .expect("same bytes");
        let blob = store
            .blob(&"ab".repeat(32), 10)
            .expect("blob")
            .expect("stored");
        assert_eq!(
            (blob.mime.as_str(), blob.width, blob.height),
            ("image/png", Some(3), Some(2))
        );
        assert_eq!(
            store.blob(&"ab".repeat(32), 11).expect("blob"),
            None,
            "size must match too"
        );
        assert_eq!(store.file("f_2").expect("file"), Some(png("f_2", "b.png")));
        let ids = ["f_2".to_string(), "f_1".to_string()];
        let files = store.files(&ids).expect("files").expect("all stored");
        assert_eq!(files, [png("f_2", "b.png"), png("f_1", "a.png")]);
        let missing = ["f_1".to_string(), "f_9".to_string()];
        assert_eq!(
            store.files(&missing).expect("files"),
            Err("f_9".to_string())
        );
    }
}
