//! Files Hermes sends with its answer (an image or a document its adapter
//! is asked to deliver), arriving over the link in pieces. Each is stored
//! the way an upload is (type from its bytes, named by its digest, within
//! the store's limits) and goes on the answer's `files`; one that cannot be
//! is named in the answer's text instead.

use std::collections::HashMap;

use aria_protocol::FileRef;
use base64::Engine;

use crate::agent::{Turn, TurnError};
use crate::files::name::clean_name;

/// Most files one answer carries.
pub const MAX_FILES: usize = 16;

/// A piece of a file, as the `file` event carries it.
pub struct Piece {
    pub file_id: String,
    pub name: String,
    pub offset: u64,
    pub data: String,
    pub last: bool,
    pub error: Option<String>,
}

/// A file still arriving; `None` bytes: refused, the rest is skipped.
struct Incoming {
    name: String,
    bytes: Option<Vec<u8>>,
}

#[derive(Default)]
pub struct Received {
    incoming: HashMap<String, Incoming>,
    kept: Vec<FileRef>,
    /// Why files were not attached, for the answer's text.
    notes: Vec<String>,
}

impl Received {
    /// Takes one piece; the last one stores the file.
    pub async fn piece(&mut self, turn: &Turn, piece: Piece) -> Result<(), TurnError> {
        if let Some(error) = piece.error {
            self.incoming.remove(&piece.file_id);
            self.refuse(&piece.name, &error);
            return Ok(());
        }
        self.open(&piece);
        let refused = self.add(&piece, turn.file_limit());
        if let Some(why) = refused {
            if let Some(incoming) = self.incoming.get_mut(&piece.file_id) {
                incoming.bytes = None;
            }
            self.refuse(&piece.name, &why);
        }
        if !piece.last {
            return Ok(());
        }
        let Some(Incoming {
            name,
            bytes: Some(bytes),
        }) = self.incoming.remove(&piece.file_id)
        else {
            return Ok(());
        };
        match turn.keep_file(&name, bytes).await? {
            Ok(file) => self.kept.push(file),
            Err(why) => self.refuse(&name, &why),
        }
        Ok(())
    }

    /// Starts receiving the piece's file unless it is arriving already.
    /// The plugin sends one file after the other: a file still arriving
    /// when another starts never ends (and memory stays within one file's
    /// limit).
    fn open(&mut self, piece: &Piece) {
        if self.incoming.contains_key(&piece.file_id) {
            return;
        }
        self.give_up("it did not arrive whole");
        let bytes = if self.kept.len() >= MAX_FILES {
            self.refuse(
                &piece.name,
                &format!("an answer carries at most {MAX_FILES}"),
            );
            None
        } else {
            Some(Vec::new())
        };
        let name = piece.name.clone();
        self.incoming
            .insert(piece.file_id.clone(), Incoming { name, bytes });
    }

    /// Drops the files still arriving, saying `why` of those not refused yet.
    fn give_up(&mut self, why: &str) {
        let unfinished: Vec<Incoming> = self.incoming.drain().map(|(_, i)| i).collect();
        for incoming in unfinished {
            if incoming.bytes.is_some() {
                self.refuse(&incoming.name, why);
            }
        }
    }

    /// Appends the piece's bytes; `Some(why)` when the file is refused
    /// with this piece (not for a file refused before).
    fn add(&mut self, piece: &Piece, limit: u64) -> Option<String> {
        let incoming = self.incoming.get_mut(&piece.file_id)?;
        let bytes = incoming.bytes.as_mut()?;
        if piece.offset != bytes.len() as u64 {
            return Some("its pieces arrived out of order".into());
        }
        let Ok(data) = base64::engine::general_purpose::STANDARD.decode(&piece.data) else {
            return Some("a piece was not base64".into());
        };
        if (bytes.len() + data.len()) as u64 > limit {
            return Some(format!("it is over the {limit} byte limit"));
        }
        bytes.extend_from_slice(&data);
        None
    }

    fn refuse(&mut self, name: &str, why: &str) {
        // The name is Hermes's: cleaned as an upload's is.
        let name = clean_name(name);
        self.notes.push(format!(
            "(The file \"{name}\" could not be attached: {why}.)"
        ));
    }

    /// The files stored so far and the notes about those that were not
    /// (files still arriving when the turn ends are dropped).
    pub fn take(&mut self) -> (Box<[FileRef]>, Vec<String>) {
        self.give_up("it did not arrive whole");
        (
            std::mem::take(&mut self.kept).into_boxed_slice(),
            std::mem::take(&mut self.notes),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(offset: u64, data: &[u8]) -> Piece {
        Piece {
            file_id: "f1".into(),
            name: "a.txt".into(),
            offset,
            data: base64::engine::general_purpose::STANDARD.encode(data),
            last: false,
            error: None,
        }
    }

    fn receiving() -> Received {
        let mut received = Received::default();
        let incoming = Incoming {
            name: "a.txt".into(),
            bytes: Some(Vec::new()),
        };
        received.incoming.insert("f1".into(), incoming);
        received
    }

    #[test]
    fn pieces_append_in_order_within_the_limit() {
        let mut received = receiving();
        assert_eq!(received.add(&piece(0, b"abc"), 10), None);
        assert_eq!(received.add(&piece(3, b"def"), 10), None);
        assert_eq!(
            received.incoming["f1"].bytes.as_deref(),
            Some(&b"abcdef"[..])
        );
        // Repeated, skipped ahead, over the limit, not base64: refused.
        assert!(received.add(&piece(0, b"abc"), 10).is_some());
        assert!(received.add(&piece(9, b"x"), 10).is_some());
        assert!(received.add(&piece(6, b"12345"), 10).is_some());
        let mut junk = piece(6, b"");
        junk.data = "%%%".into();
        assert!(received.add(&junk, 10).is_some());
    }

    #[test]
    fn a_file_left_unfinished_by_the_next_one_is_refused_once() {
        let mut received = receiving();
        let mut other = piece(0, b"x");
        other.file_id = "f2".into();
        other.name = "b.txt".into();
        received.open(&other);
        assert!(!received.incoming.contains_key("f1"));
        let mut refused = piece(0, b"");
        refused.file_id = "f3".into();
        refused.name = "c.txt".into();
        // b.txt refused already (over a limit): not named again.
        received.incoming.get_mut("f2").expect("f2").bytes = None;
        received.open(&refused);
        let (_, notes) = received.take();
        assert_eq!(
            notes,
            [
                "(The file \"a.txt\" could not be attached: it did not arrive whole.)",
                "(The file \"c.txt\" could not be attached: it did not arrive whole.)"
            ]
        );
    }

    #[test]
    fn a_refused_name_is_shown_as_plain_text() {
        let mut received = Received::default();
        received.refuse("/tmp/evil\n\u{202e}gnp.exe", "no");
        let (files, notes) = received.take();
        assert!(files.is_empty());
        assert_eq!(
            notes,
            ["(The file \"evilgnp.exe\" could not be attached: no.)"]
        );
    }
}
