//! Reading stored files back: a few at a time, gathered in order, checked,
//! resumed after a lost connection, paused by `rate_limited`, and paced
//! to ten reads between pauses of a second.

use super::action::{FileAction, Wake};
use super::download::Downloads;
use crate::protocol::{ClientFrame, ErrorCode, FileData};

fn gets(actions: &[FileAction]) -> Vec<(String, String, Option<u64>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            FileAction::Send(ClientFrame::FileGet(g)) => {
                Some((g.request_id.clone(), g.file_id.clone(), g.offset))
            }
            _ => None,
        })
        .collect()
}

fn data(
    request_id: &str,
    file_id: &str,
    offset: u64,
    bytes: &[u8],
    size: u64,
    last: bool,
) -> FileData {
    let ClientFrame::FileChunk(c) = super::wire::chunk_frame("x", 0, bytes) else {
        panic!("not a chunk");
    };
    FileData {
        request_id: request_id.into(),
        file_id: file_id.into(),
        offset,
        data: c.data,
        size,
        mime: "image/png".into(),
        last,
    }
}

fn online() -> Downloads {
    let mut d = Downloads::default();
    assert!(d.online().is_empty());
    d
}

#[test]
fn two_reads_at_a_time_each_asked_once() {
    let mut d = online();
    let first = gets(&d.want("f1"));
    assert_eq!(first.len(), 1);
    assert_eq!(gets(&d.want("f2")).len(), 1);
    assert!(gets(&d.want("f3")).is_empty(), "a third waits");
    assert!(gets(&d.want("f1")).is_empty(), "asked once");
    assert!(gets(&d.want("f3")).is_empty(), "queued once");
    let (rid, _, _) = &first[0];
    let done = d.on_data(data(rid, "f1", 0, b"abc", 3, true));
    assert!(
        matches!(&done[0], FileAction::Downloaded { file_id, bytes, mime }
        if file_id == "f1" && bytes == b"abc" && mime == "image/png")
    );
    assert_eq!(
        gets(&done).iter().map(|g| g.1.as_str()).collect::<Vec<_>>(),
        ["f3"]
    );
}

#[test]
fn chunks_gather_in_order_and_a_bad_one_fails_the_read() {
    let mut d = online();
    let rid = gets(&d.want("f1"))[0].0.clone();
    assert!(d.on_data(data(&rid, "f1", 0, b"ab", 4, false)).is_empty());
    // Not where the read stands.
    let out = d.on_data(data(&rid, "f1", 0, b"cd", 4, true));
    assert!(matches!(&out[0], FileAction::DownloadFailed { file_id, .. } if file_id == "f1"));
    assert!(!d.owns(&rid));

    let rid = gets(&d.want("f2"))[0].0.clone();
    // More bytes than the size.
    let out = d.on_data(data(&rid, "f2", 0, b"abcdef", 4, true));
    assert!(matches!(&out[0], FileAction::DownloadFailed { .. }));

    let rid = gets(&d.want("f3"))[0].0.clone();
    let mut bad = data(&rid, "f3", 0, b"ab", 2, true);
    bad.data = "%%%".into();
    assert!(matches!(
        &d.on_data(bad)[0],
        FileAction::DownloadFailed { .. }
    ));

    let rid = gets(&d.want("f4"))[0].0.clone();
    // Last, yet short of the size.
    let out = d.on_data(data(&rid, "f4", 0, b"ab", 3, true));
    assert!(matches!(&out[0], FileAction::DownloadFailed { .. }));

    // A frame for no read is ignored.
    assert!(d.on_data(data("nope", "f9", 0, b"a", 1, true)).is_empty());
}

#[test]
fn a_cut_read_goes_on_from_the_bytes_it_has() {
    let mut d = online();
    let rid = gets(&d.want("f1"))[0].0.clone();
    d.on_data(data(&rid, "f1", 0, b"ab", 4, false));
    d.connection_lost();
    assert!(gets(&d.want("f2")).is_empty(), "nothing goes out offline");
    let again = gets(&d.online());
    assert_eq!(again[0], (rid.clone(), "f1".into(), Some(2)));
    assert_eq!(again[1].1, "f2");
    let out = d.on_data(data(&rid, "f1", 2, b"cd", 4, true));
    assert!(matches!(&out[0], FileAction::Downloaded { bytes, .. } if bytes == b"abcd"));
}

#[test]
fn rate_limited_waits_then_asks_again() {
    let mut d = online();
    let rid = gets(&d.want("f1"))[0].0.clone();
    let out = d.on_error(&rid, ErrorCode::RateLimited);
    assert_eq!(
        out,
        vec![FileAction::Later {
            ms: 500,
            wake: Wake::Downloads
        }]
    );
    assert!(gets(&d.want("f2")).is_empty(), "paused");
    let again = gets(&d.wake());
    assert_eq!(again.len(), 2);
    assert_eq!(again[0], (rid.clone(), "f1".into(), None));
    let out = d.on_error(&rid, ErrorCode::NotFound);
    assert!(matches!(&out[0], FileAction::DownloadFailed { file_id, .. } if file_id == "f1"));
}

#[test]
fn an_unnamed_rate_limit_asks_unanswered_reads_again_under_new_ids() {
    let mut d = online();
    let first = gets(&d.want("f1"))[0].0.clone();
    let second = gets(&d.want("f2"))[0].0.clone();
    // f1 is being answered: it was not the frame refused.
    d.on_data(data(&first, "f1", 0, b"ab", 4, false));
    let out = d.on_unnamed_rate_limit();
    assert_eq!(
        out,
        vec![FileAction::Later {
            ms: 500,
            wake: Wake::Downloads
        }]
    );
    let again = gets(&d.wake());
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!((again[0].1.as_str(), again[0].2), ("f2", None));
    assert_ne!(again[0].0, second, "a new request_id");
    // A late answer to the old request is not taken for the new one.
    assert!(d.on_data(data(&second, "f2", 0, b"zz", 2, true)).is_empty());
    let out = d.on_data(data(&again[0].0, "f2", 0, b"xy", 2, true));
    assert!(matches!(&out[0], FileAction::Downloaded { bytes, .. } if bytes == b"xy"));
    let out = d.on_data(data(&first, "f1", 2, b"cd", 4, true));
    assert!(matches!(&out[0], FileAction::Downloaded { bytes, .. } if bytes == b"abcd"));
}

#[test]
fn an_unnamed_rate_limit_with_every_read_answered_changes_nothing() {
    let mut d = online();
    let rid = gets(&d.want("f1"))[0].0.clone();
    d.on_data(data(&rid, "f1", 0, b"ab", 4, false));
    assert!(d.on_unnamed_rate_limit().is_empty());
    assert!(!gets(&d.want("f2")).is_empty(), "not paused");
}

#[test]
fn a_forgotten_file_is_not_asked_for() {
    let mut d = online();
    d.want("f1");
    d.want("f2");
    d.want("f3");
    d.forget("f3");
    let rid = gets(&d.want("f1")).first().map(|g| g.0.clone());
    assert!(rid.is_none());
    d.connection_lost();
    let again = gets(&d.online());
    assert_eq!(
        again.iter().map(|g| g.1.as_str()).collect::<Vec<_>>(),
        ["f1", "f2"]
    );
}

#[test]
fn reads_are_paced_to_ten_between_pauses_of_a_second() {
    let pause = FileAction::Later {
        ms: 1000,
        wake: Wake::Downloads,
    };
    let mut d = online();
    let mut in_flight = Vec::new();
    for i in 0..30 {
        in_flight.extend(gets(&d.want(&format!("f{i}"))));
    }
    let (mut asked, mut pauses) = (in_flight.len(), 0);
    // Each read answered at once, as a small image on loopback is.
    while let Some((rid, file_id, _)) = in_flight.pop() {
        let mut out = d.on_data(data(&rid, &file_id, 0, b"x", 1, true));
        if out.contains(&pause) {
            pauses += 1;
            assert_eq!(asked, pauses * 10, "ten reads between pauses");
        }
        if in_flight.is_empty() && gets(&out).is_empty() && asked < 30 {
            // Nothing in flight and nothing new: the second has passed.
            assert!(out.contains(&pause) || pauses > 0, "{out:?}");
            out = d.wake();
        }
        let next = gets(&out);
        asked += next.len();
        in_flight.extend(next);
    }
    assert_eq!(asked, 30, "all read in the end");
    assert_eq!(pauses, 2, "after the 10th and the 20th");
}
