//! The base64 of chunks: `file.chunk` out, `file.data` in.

use base64::Engine;

use crate::protocol::{ClientFrame, FileChunk};

/// The `file.chunk` for `bytes` starting at `offset` of an upload.
pub fn chunk_frame(upload_id: &str, offset: u64, bytes: &[u8]) -> ClientFrame {
    ClientFrame::FileChunk(FileChunk {
        upload_id: upload_id.to_string(),
        offset,
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// The bytes of a `file.data` chunk; `None` when it is not base64.
pub fn decode_data(data: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_padded_standard_base64() {
        let ClientFrame::FileChunk(c) = chunk_frame("u1", 8, &[0xfb, 0xff]) else {
            panic!("not a chunk");
        };
        assert_eq!(
            (c.upload_id.as_str(), c.offset, c.data.as_str()),
            ("u1", 8, "+/8=")
        );
        assert_eq!(decode_data(&c.data), Some(vec![0xfb, 0xff]));
    }

    #[test]
    fn bad_base64_is_refused() {
        assert_eq!(decode_data("not base64!"), None);
        assert_eq!(decode_data("-_8"), None);
    }
}
