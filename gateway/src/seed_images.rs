//! `--seed-images N`: before serving, a channel `c_images` of N messages,
//! each carrying one image of its own (a distinct PNG, stored and recorded
//! as an upload is). For the benchmark's thread of images: every row reads
//! real bytes from the store, and no two share a digest (so none is
//! deduplicated into one `blob:` URL).

use std::path::Path;

use aria_protocol::{FileRef, HistoryItem, MessageItem, Role};

use crate::clock::now_ms;
use crate::files::{png, FileLimits, Files};
use crate::store::Store;

/// The id of the seeded channel.
pub const IMAGES_CHANNEL: &str = "c_images";

/// Creates `c_images` with `count` messages of one image each in
/// `data_dir`, unless it exists. Returns whether it was created; `Err`
/// says what failed.
pub fn seed_images(data_dir: &Path, count: u64, limits: FileLimits) -> Result<bool, String> {
    let mut store = Store::open(data_dir).map_err(|e| e.to_string())?;
    if store.channel(IMAGES_CHANNEL).is_ok() {
        return Ok(false);
    }
    let files = Files::open(data_dir, limits).map_err(|e| e.to_string())?;
    let mut items = Vec::new();
    // Timestamps a minute apart, ending now.
    let start = now_ms()
        - i64::try_from(count)
            .unwrap_or(i64::MAX)
            .saturating_mul(60_000);
    for seq in 1..=count {
        let file = files.keep_bytes(&format!("photo-{seq:04}.png"), &picture(seq))?;
        store
            .insert_file(&file, "seed")
            .map_err(|e| e.to_string())?;
        items.push(message(seq, start, file));
    }
    store
        .create_channel(IMAGES_CHANNEL, &format!("Seeded images ({count})"), false)
        .map_err(|e| e.to_string())?;
    store
        .append_all(IMAGES_CHANNEL, items)
        .map_err(|e| e.to_string())?;
    Ok(true)
}

/// Image `seq`: sizes vary (so rows differ in height, as photos do), and a
/// colour and a stripe that depend on `seq` make every one's bytes differ.
fn picture(seq: u64) -> Vec<u8> {
    let width = 160 + (seq % 5) as u32 * 40;
    let height = 120 + (seq % 3) as u32 * 40;
    let [r, g, b] = [(seq * 37) as u8, (seq * 91) as u8, (seq * 53) as u8];
    let stripe = (seq % u64::from(width)) as u32;
    png::rgb(width, height, |x, y| {
        if x.abs_diff(stripe) < 4 || y.abs_diff(stripe % height) < 4 {
            [255 - r, 255 - g, 255 - b]
        } else {
            [r, g, b]
        }
    })
}

/// Message `seq`: the user's, from every other one the agent's, so both
/// bubbles' file views are scrolled through.
fn message(seq: u64, start: i64, file: FileRef) -> HistoryItem {
    let user = seq % 2 == 1;
    HistoryItem::Message(MessageItem {
        seq,
        message_id: format!("img_{seq}"),
        role: if user { Role::User } else { Role::Assistant },
        text: format!("Photo {seq} of the site visit."),
        reasoning: None,
        model: (!user).then(|| "aria-demo".into()),
        tokens: None,
        ts: start + i64::try_from(seq).unwrap_or(0) * 60_000,
        turn_id: (!user).then(|| format!("img_t{seq}")),
        client_msg_id: user.then(|| format!("img_k{seq}")),
        branch: None,
        files: vec![file].into_boxed_slice(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::PageQuery;
    use aria_protocol::HistoryGet;
    use std::collections::HashSet;

    #[test]
    fn seeds_messages_each_with_a_stored_image_of_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let limits = FileLimits::default();
        assert!(seed_images(dir.path(), 6, limits.clone()).expect("seed"));
        assert!(!seed_images(dir.path(), 6, limits).expect("seed again"));
        let store = Store::open(dir.path()).expect("open");
        let query = PageQuery::from_request(&HistoryGet {
            channel_id: IMAGES_CHANNEL.into(),
            before: None,
            after: None,
            around: None,
            limit: Some(200),
        })
        .expect("query");
        let (page, _) = store.page(IMAGES_CHANNEL, &query).expect("page");
        assert_eq!(page.items.len(), 6);
        let mut digests = HashSet::new();
        for item in &page.items {
            let HistoryItem::Message(m) = item else {
                panic!("not a message: {item:?}");
            };
            let [file] = &*m.files else {
                panic!("not one file: {:?}", m.files);
            };
            // Recorded as an upload is, so `file.get` serves it.
            let stored = store.file(&file.file_id).expect("read").expect("recorded");
            assert_eq!(&stored, file);
            assert_eq!(file.mime, "image/png");
            assert!(file.width.is_some() && file.height.is_some());
            digests.insert(file.sha256.clone());
        }
        assert_eq!(digests.len(), 6, "no two images are the same bytes");
    }
}
