use std::time::{Duration, Instant};

use super::*;
use crate::files::disk::Disk;
use crate::files::upload::Announced;

fn upload(disk: &Disk, n: u64) -> Upload {
    let (temp, file) = disk.create_temp().expect("temp");
    let mut upload = Upload::new(
        Announced {
            name: format!("{n}.txt"),
            size: 100,
            sha256: "0".repeat(64),
        },
        temp,
        file,
    );
    upload.received = n;
    upload
}

fn key(n: usize) -> Key {
    ("device".into(), format!("u{n}"))
}

#[test]
fn a_full_registry_drops_the_upload_untouched_longest() {
    let dir = tempfile::tempdir().expect("dir");
    let disk = Disk::open(dir.path()).expect("disk");
    let quota = Quota::new(1000, 0);
    let uploads = Uploads::new(3, Duration::from_secs(3600));
    let t0 = Instant::now();
    for n in 0..3 {
        assert!(quota.reserve(10));
        uploads.insert(
            key(n),
            upload(&disk, 10),
            t0 + Duration::from_secs(n as u64),
            &quota,
        );
    }
    // u0 is used again: u1 is now the one untouched the longest.
    assert!(uploads.get(&key(0), t0 + Duration::from_secs(5)).is_some());
    assert!(quota.reserve(10));
    uploads.insert(
        key(3),
        upload(&disk, 10),
        t0 + Duration::from_secs(6),
        &quota,
    );
    assert_eq!(uploads.len(), 3);
    assert!(uploads.get(&key(1), t0).is_none(), "evicted");
    assert!(uploads.get(&key(0), t0).is_some());
    assert_eq!(disk.temp_files(), 3, "the evicted upload's bytes are gone");
    assert_eq!(quota.used(), 30, "and given back");
}

#[test]
fn a_thousand_unfinished_uploads_stay_bounded() {
    let dir = tempfile::tempdir().expect("dir");
    let disk = Disk::open(dir.path()).expect("disk");
    let quota = Quota::new(u64::MAX, 0);
    let uploads = Uploads::new(64, Duration::from_secs(3600));
    let t0 = Instant::now();
    for n in 0..1000 {
        uploads.insert(
            key(n),
            upload(&disk, 0),
            t0 + Duration::from_millis(n as u64),
            &quota,
        );
    }
    assert_eq!(uploads.len(), 64);
    assert_eq!(disk.temp_files(), 64);
}

#[test]
fn expired_uploads_are_swept_with_their_bytes() {
    let dir = tempfile::tempdir().expect("dir");
    let disk = Disk::open(dir.path()).expect("disk");
    let quota = Quota::new(1000, 0);
    let uploads = Uploads::new(10, Duration::from_secs(3600));
    let t0 = Instant::now();
    assert!(quota.reserve(20));
    uploads.insert(key(0), upload(&disk, 10), t0, &quota);
    uploads.insert(
        key(1),
        upload(&disk, 10),
        t0 + Duration::from_secs(1800),
        &quota,
    );
    uploads.sweep(t0 + Duration::from_secs(3599), &quota);
    assert_eq!(uploads.len(), 2, "nothing is an hour old yet");
    uploads.sweep(t0 + Duration::from_secs(3600), &quota);
    assert_eq!(uploads.len(), 1);
    assert!(uploads.get(&key(1), t0).is_some());
    assert_eq!(disk.temp_files(), 1);
    assert_eq!(quota.used(), 10);
}

#[tokio::test]
async fn a_busy_upload_is_not_dropped_under_it() {
    let dir = tempfile::tempdir().expect("dir");
    let disk = Disk::open(dir.path()).expect("disk");
    let quota = Quota::new(1000, 0);
    let uploads = Uploads::new(1, Duration::from_secs(3600));
    let t0 = Instant::now();
    let busy = uploads.insert(key(0), upload(&disk, 0), t0, &quota);
    let guard = busy.lock().await;
    uploads.insert(key(1), upload(&disk, 0), t0, &quota);
    assert!(!guard.closed, "a chunk being written keeps its upload");
    assert_eq!(
        uploads.len(),
        2,
        "the bound gives way only to work in progress"
    );
}

#[test]
fn a_restart_clears_the_temporary_area() {
    let dir = tempfile::tempdir().expect("dir");
    let disk = Disk::open(dir.path()).expect("disk");
    let _left = disk.create_temp().expect("temp");
    assert_eq!(disk.temp_files(), 1);
    let again = Disk::open(dir.path()).expect("reopen");
    assert_eq!(again.temp_files(), 0);
}
