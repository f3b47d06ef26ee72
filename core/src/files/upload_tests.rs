//! The upload state machine: the window, going back to the offset the
//! gateway wants, resuming, pausing and ending.

use super::upload::{AfterError, Upload, UploadState, RATE_LIMIT_PAUSE_MS};
use crate::protocol::{ClientFrame, ErrorCode, FileRef, MAX_CHUNK_BYTES};

const C: u64 = MAX_CHUNK_BYTES as u64;

fn upload(size: u64) -> Upload {
    let mut u = Upload::new("u1".into(), "photo.png".into(), "image/png".into(), size);
    let begin = u.hashed("ab".repeat(32)).expect("begin");
    let ClientFrame::FileBegin(b) = begin else {
        panic!("not a begin");
    };
    assert_eq!((b.upload_id.as_str(), b.size), ("u1", size));
    u
}

fn file() -> FileRef {
    FileRef {
        file_id: "f_1".into(),
        name: "photo.png".into(),
        mime: "image/png".into(),
        size: 10 * C,
        sha256: "ab".repeat(32),
        width: Some(2),
        height: Some(2),
    }
}

#[test]
fn the_window_keeps_four_chunks_unacknowledged() {
    let mut u = upload(10 * C + 5);
    assert_eq!(
        u.on_accept(0),
        vec![(0, C), (C, 2 * C), (2 * C, 3 * C), (3 * C, 4 * C)]
    );
    // Each acknowledgement lets one more chunk out.
    assert_eq!(u.on_accept(C), vec![(4 * C, 5 * C)]);
    assert_eq!(u.on_accept(2 * C), vec![(5 * C, 6 * C)]);
    assert_eq!(u.acked(), 2 * C);
    assert_eq!(
        u.on_accept(6 * C),
        vec![
            (6 * C, 7 * C),
            (7 * C, 8 * C),
            (8 * C, 9 * C),
            (9 * C, 10 * C)
        ]
    );
    assert_eq!(u.on_accept(7 * C), vec![(10 * C, 10 * C + 5)]);
    // Nothing more to send; the rest of the acknowledgements only move.
    assert_eq!(u.on_accept(10 * C), vec![]);
    assert_eq!(u.on_accept(10 * C + 5), vec![]);
    assert_eq!(u.state, UploadState::Sending);
    u.on_stored(file());
    assert!(u.is_over());
    assert_eq!(u.stored().map(|f| f.file_id.as_str()), Some("f_1"));
}

#[test]
fn a_small_file_is_one_chunk_and_an_empty_one_none() {
    let mut u = upload(3);
    assert_eq!(u.on_accept(0), vec![(0, 3)]);
    let mut empty = upload(0);
    assert_eq!(empty.on_accept(0), vec![]);
}

#[test]
fn resumes_from_the_offset_the_gateway_holds() {
    let mut u = upload(10 * C);
    u.on_accept(0);
    u.on_accept(C);
    // The connection drops: chunks in flight are lost. The same begin
    // again; the gateway holds 2 chunks.
    let again = u.resume().expect("begin again");
    assert!(matches!(again, ClientFrame::FileBegin(b) if b.upload_id == "u1"));
    assert_eq!(u.state, UploadState::Beginning);
    assert_eq!(
        u.on_accept(2 * C),
        vec![
            (2 * C, 3 * C),
            (3 * C, 4 * C),
            (4 * C, 5 * C),
            (5 * C, 6 * C)
        ]
    );
}

#[test]
fn goes_back_to_an_offset_the_gateway_asks_for() {
    let mut u = upload(10 * C);
    u.on_accept(0);
    // A chunk went missing: the gateway answers the offset it wants.
    assert_eq!(u.on_accept(C), vec![(4 * C, 5 * C)]);
    assert_eq!(u.on_accept(C), vec![]);
    // An offset behind the acknowledged one (the gateway lost bytes).
    assert_eq!(
        u.on_accept(0),
        vec![(0, C), (C, 2 * C), (2 * C, 3 * C), (3 * C, 4 * C)]
    );
    // An offset past what was sent (bytes it holds from before).
    assert_eq!(u.on_accept(8 * C), vec![(8 * C, 9 * C), (9 * C, 10 * C)]);
    // Past the size is held as the size.
    assert_eq!(u.on_accept(u64::MAX), vec![]);
    assert_eq!(u.acked(), 10 * C);
}

#[test]
fn rate_limited_pauses_then_goes_on_from_the_acknowledged_offset() {
    let mut u = upload(10 * C);
    u.on_accept(0);
    assert_eq!(
        u.on_error(ErrorCode::RateLimited, ""),
        AfterError::Later(RATE_LIMIT_PAUSE_MS)
    );
    assert_eq!(u.state, UploadState::Paused);
    // Answers to the chunks after the dropped one move nothing out.
    assert_eq!(u.on_accept(C), vec![]);
    assert_eq!(
        u.wake(),
        vec![(C, 2 * C), (2 * C, 3 * C), (3 * C, 4 * C), (4 * C, 5 * C)]
    );
    assert_eq!(u.wake(), vec![]);
}

#[test]
fn an_upload_the_gateway_forgot_starts_over_once() {
    let mut u = upload(2 * C);
    u.on_accept(0);
    assert!(matches!(
        u.on_error(ErrorCode::NotFound, ""),
        AfterError::Send(ClientFrame::FileBegin(_))
    ));
    assert_eq!(u.on_accept(0), vec![(0, C), (C, 2 * C)]);
    assert_eq!(u.on_error(ErrorCode::NotFound, "gone"), AfterError::Nothing);
    assert!(matches!(&u.state, UploadState::Failed(why) if why.starts_with("photo.png:")));
}

#[test]
fn errors_end_it_with_a_sentence_naming_the_file() {
    for (code, says) in [
        (ErrorCode::TooLarge, "too large"),
        (ErrorCode::Unsupported, "does not take this type"),
        (ErrorCode::BadRequest, "refused"),
        (ErrorCode::Internal, "failed"),
    ] {
        let mut u = Upload::new("u".into(), "a\u{202E}gnp.exe".into(), String::new(), 5);
        u.hashed("00".repeat(32));
        assert_eq!(u.on_error(code, "x\u{0}y"), AfterError::Nothing);
        let UploadState::Failed(why) = &u.state else {
            panic!("not failed: {:?}", u.state);
        };
        assert!(why.starts_with("agnp.exe: ") && why.contains(says), "{why}");
        assert!(why.contains("(xy)"), "{why}");
        // Over: later frames change nothing.
        assert_eq!(u.on_accept(0), vec![]);
        u.on_stored(file());
        assert!(u.stored().is_none());
    }
}

#[test]
fn cancelled_and_hashing_uploads_send_nothing() {
    let mut u = Upload::new("u".into(), "a".into(), String::new(), 5);
    assert_eq!(u.on_accept(0), vec![]);
    assert_eq!(u.resume(), None);
    u.hashed("00".repeat(32));
    u.cancel();
    assert_eq!(u.state, UploadState::Cancelled);
    assert_eq!(u.on_accept(0), vec![]);
    assert_eq!(u.resume(), None);
    assert_eq!(u.hashed("11".repeat(32)), None);
    assert_eq!(u.on_error(ErrorCode::RateLimited, ""), AfterError::Nothing);
}
