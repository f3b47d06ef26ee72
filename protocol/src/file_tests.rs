use serde_json::json;

use super::*;

fn client(value: serde_json::Value) -> Result<ClientFrame, DecodeError> {
    ClientFrame::decode(&value.to_string())
}

fn server(value: serde_json::Value) -> Result<ServerFrame, DecodeError> {
    ServerFrame::decode(&value.to_string())
}

const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

fn file_ref() -> FileRef {
    FileRef {
        file_id: "f1".into(),
        name: "chart.png".into(),
        mime: "image/png".into(),
        size: 1234,
        sha256: DIGEST.into(),
        width: Some(640),
        height: Some(480),
    }
}

#[test]
fn client_file_frames_have_the_contract_fields() {
    let begin = client(
        json!({"type": "file.begin", "upload_id": "u1", "name": "a.txt",
        "mime": "text/plain", "size": 4, "sha256": DIGEST}),
    )
    .expect("begin");
    assert_eq!(
        begin,
        ClientFrame::FileBegin(FileBegin {
            upload_id: "u1".into(),
            name: "a.txt".into(),
            mime: "text/plain".into(),
            size: 4,
            sha256: DIGEST.into(),
        })
    );
    let chunk = client(json!({"type": "file.chunk", "upload_id": "u1", "offset": 0,
        "data": "dGVzdA=="}))
    .expect("chunk");
    assert!(matches!(&chunk, ClientFrame::FileChunk(c) if c.offset == 0 && c.data == "dGVzdA=="));
    let get = client(json!({"type": "file.get", "request_id": "r1", "file_id": "f1"}))
        .expect("get without offset");
    assert!(matches!(&get, ClientFrame::FileGet(g) if g.offset.is_none()));
    for frame in [begin, chunk, get] {
        assert_eq!(ClientFrame::decode(&frame.encode()), Ok(frame));
    }
}

#[test]
fn server_file_frames_round_trip_with_exact_names() {
    let frames = [
        ServerFrame::FileAccept(FileAccept {
            upload_id: "u1".into(),
            offset: 262_144,
        }),
        ServerFrame::FileStored(FileStored {
            upload_id: "u1".into(),
            file: file_ref(),
        }),
        ServerFrame::FileData(FileData {
            request_id: "r1".into(),
            file_id: "f1".into(),
            offset: 0,
            data: "dGVzdA==".into(),
            size: 4,
            mime: "text/plain".into(),
            last: true,
        }),
    ];
    for frame in frames {
        let text = frame.encode();
        assert_eq!(ServerFrame::decode(&text), Ok(frame.clone()), "{text}");
        assert_eq!(frame.channel_id(), None, "a reply to one device");
    }
    let stored: serde_json::Value = serde_json::from_str(
        &ServerFrame::FileStored(FileStored {
            upload_id: "u1".into(),
            file: file_ref(),
        })
        .encode(),
    )
    .expect("json");
    assert_eq!(
        stored,
        json!({"type": "file.stored", "upload_id": "u1", "file": {"file_id": "f1",
            "name": "chart.png", "mime": "image/png", "size": 1234, "sha256": DIGEST,
            "width": 640, "height": 480}})
    );
}

#[test]
fn a_file_without_dimensions_omits_them() {
    let text = serde_json::to_string(&FileRef {
        width: None,
        height: None,
        ..file_ref()
    })
    .expect("json");
    assert!(
        !text.contains("width") && !text.contains("height"),
        "{text}"
    );
}

#[test]
fn malformed_file_frames_are_errors_naming_the_type() {
    let cases = [
        json!({"type": "file.begin", "upload_id": "u1", "name": "a", "mime": "x", "sha256": DIGEST}),
        json!({"type": "file.begin", "upload_id": "u1", "name": "a", "mime": "x", "size": -1,
            "sha256": DIGEST}),
        json!({"type": "file.begin", "upload_id": 5, "name": "a", "mime": "x", "size": 1,
            "sha256": DIGEST}),
        json!({"type": "file.chunk", "upload_id": "u1", "offset": "0", "data": ""}),
        json!({"type": "file.chunk", "upload_id": "u1", "offset": 0}),
        json!({"type": "file.get", "file_id": "f1"}),
    ];
    for case in cases {
        let err = client(case.clone()).expect_err("malformed");
        let expected = case["type"].as_str().map(String::from);
        assert_eq!(err.frame_type, expected, "{case}");
    }
    let err = server(
        json!({"type": "file.data", "request_id": "r1", "file_id": "f1",
        "offset": 0, "data": "", "size": 0, "mime": "text/plain"}),
    )
    .expect_err("no last");
    assert_eq!(err.frame_type.as_deref(), Some("file.data"));
    assert!(
        server(json!({"type": "file.stored", "upload_id": "u1", "file": {"file_id": "f1"}}))
            .is_err()
    );
}

#[test]
fn sha256_digests_are_64_lowercase_hex_digits() {
    assert!(is_sha256_hex(DIGEST));
    assert!(!is_sha256_hex(&DIGEST.to_uppercase()));
    assert!(!is_sha256_hex(&DIGEST[1..]));
    assert!(!is_sha256_hex(&format!("{}g", &DIGEST[1..])));
    assert!(!is_sha256_hex(""));
}

#[test]
fn a_bad_file_ref_on_an_item_is_dropped_not_the_item() {
    let item = json!({"type": "message", "seq": 3, "message_id": "m1", "role": "user",
    "text": "", "ts": 1, "files": [
        {"file_id": "f1", "name": "chart.png", "mime": "image/png", "size": 1234,
         "sha256": DIGEST, "width": 640, "height": 480},
        {"file_id": "f2"},
        "not a file",
    ]});
    let Ok(HistoryItem::Message(m)) = HistoryItem::decode(&item.to_string()) else {
        panic!("the item survives");
    };
    assert_eq!(&*m.files, [file_ref()]);
    for files in [json!("nope"), json!(null), json!(7)] {
        let mut item = item.clone();
        item["files"] = files;
        let Ok(HistoryItem::Message(m)) = HistoryItem::decode(&item.to_string()) else {
            panic!("the item survives {item}");
        };
        assert!(m.files.is_empty());
    }
}

#[test]
fn messages_carry_files_in_order_and_omit_none() {
    let send = client(
        json!({"type": "message.send", "text": "", "client_msg_id": "k1",
        "files": ["f2", "f1"]}),
    )
    .expect("send with files");
    let ClientFrame::MessageSend(s) = &send else {
        panic!("{send:?}");
    };
    assert_eq!(s.files, ["f2", "f1"]);
    let edit = client(
        json!({"type": "message.edit", "channel_id": "c1", "message_id": "m1",
        "text": "again", "client_msg_id": "k2", "files": ["f1"]}),
    )
    .expect("edit with files");
    assert!(matches!(&edit, ClientFrame::MessageEdit(e) if e.files == ["f1"]));
    let plain = client(json!({"type": "message.send", "text": "hi", "client_msg_id": "k3"}))
        .expect("send without files");
    assert!(!plain.encode().contains("files"), "{}", plain.encode());
    assert!(client(
        json!({"type": "message.send", "text": "", "client_msg_id": "k4",
        "files": [1]})
    )
    .is_err());
    let stop = ServerFrame::MessageStop(MessageStop {
        channel_id: "c1".into(),
        turn_id: Some("t1".into()),
        message_id: "m2".into(),
        seq: 4,
        final_text: "Here is the chart.".into(),
        reasoning: None,
        model: None,
        tokens: None,
        ts: 2,
        files: Box::new([file_ref()]),
        branch: None,
    });
    assert_eq!(ServerFrame::decode(&stop.encode()), Ok(stop));
}

#[test]
fn ready_limits_and_upload_errors_round_trip() {
    let ready = ServerFrame::Ready(Ready {
        protocol: 1,
        server: "g".into(),
        device_id: "d".into(),
        channels: Vec::new(),
        limits: Some(Limits {
            file_max_bytes: 20 << 20,
            files_per_message: 10,
            file_types: vec!["image/png".into()],
        }),
    });
    assert_eq!(ServerFrame::decode(&ready.encode()), Ok(ready));
    let Ok(ServerFrame::Ready(without)) = server(json!({"type": "ready", "protocol": 1,
        "server": "g", "device_id": "d", "channels": []}))
    else {
        panic!("ready without limits");
    };
    assert_eq!(without.limits, None);
    let Ok(ServerFrame::Error(e)) = server(json!({"type": "error", "code": "too_large",
        "message": "big", "upload_id": "u1"}))
    else {
        panic!("error");
    };
    assert_eq!(
        (e.code, e.upload_id.as_deref()),
        (ErrorCode::TooLarge, Some("u1"))
    );
}

#[test]
fn ready_limits_have_the_contract_fields() {
    let limits: Limits = serde_json::from_value(json!({"file_max_bytes": 20_971_520u64,
        "files_per_message": 10, "file_types": ["image/png", "text/plain"]}))
    .expect("limits");
    assert_eq!(limits.file_max_bytes, 20 * 1024 * 1024);
    assert_eq!(limits.files_per_message, 10);
    assert_eq!(limits.file_types, ["image/png", "text/plain"]);
}
