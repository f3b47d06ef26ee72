use super::*;
use crate::test_items::commentary;
use serde_json::Value;

/// The gateway's answer to `before` over a log of `n` items.
fn page(channel: &str, n: u64, req: &HistoryGet) -> History {
    let before = req.before.unwrap_or(NEWEST);
    let limit = u64::from(req.limit.unwrap_or(50));
    let hi = before.min(n + 1);
    let lo = hi.saturating_sub(limit).max(1);
    History {
        channel_id: channel.into(),
        items: (lo..hi).map(commentary).collect(),
        has_more: lo > 1,
        has_newer: None,
        before: req.before,
        after: None,
        around: None,
        branch_rev: None,
    }
}

/// Parts kept as the text itself.
struct Texts;

impl Parts for Texts {
    type Part = String;
    fn keep(&mut self, text: String) -> String {
        text
    }
    fn join(&mut self, run: Vec<String>, sep: &'static str) -> String {
        run.join(sep)
    }
}

/// The file's whole text.
fn text(file: &File<String>) -> String {
    format!("{}{}{}", file.head, file.pages.join(file.sep), file.tail)
}

fn export(n: u64, format: Format) -> (Vec<HistoryGet>, File<String>) {
    let mut ex = Exporter::<String>::default();
    let mut req = ex
        .start("c1", "My thread", format, n, 1000, 0, true, 0.0)
        .expect("first request");
    let mut sent = vec![req.clone()];
    loop {
        let h = page("c1", n, &req);
        assert!(ex.claims(&h));
        match ex.on_page(h, 0.0, &mut Texts) {
            Some(Step::Next(_)) => {
                let next = ex.resume(0.0).expect("the next request");
                sent.push(next.clone());
                req = next;
            }
            Some(Step::Done(file)) => return (sent, file),
            None => panic!("a claimed page led nowhere"),
        }
    }
}

#[test]
fn fetches_every_page_once_newest_first() {
    let (sent, file) = export(450, Format::Json);
    let befores: Vec<_> = sent.iter().map(|r| r.before).collect();
    assert_eq!(befores, [Some(NEWEST), Some(251), Some(51)]);
    assert!(sent
        .iter()
        .all(|r| r.limit == Some(200) && r.after.is_none()));
    assert_eq!(file.name, "My-thread.json");
    let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
    let seqs: Vec<u64> = doc["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(seqs, (1..=450).collect::<Vec<_>>());
    assert_eq!(doc["title"], "My thread");
}

/// Parts kept as numbers: page texts numbered from 1 as they come,
/// joined runs from 1001; both recorded.
#[derive(Default)]
struct Numbered {
    kept: Vec<String>,
    joined: Vec<Vec<usize>>,
}

impl Parts for Numbered {
    type Part = usize;
    fn keep(&mut self, text: String) -> usize {
        self.kept.push(text);
        self.kept.len()
    }
    fn join(&mut self, run: Vec<usize>, sep: &'static str) -> usize {
        assert_eq!(sep, ",");
        self.joined.push(run);
        1000 + self.joined.len()
    }
}

/// A JSON export of `n` items with parts kept by `parts`.
fn export_into(n: u64, parts: &mut Numbered) -> File<usize> {
    let mut ex = Exporter::default();
    let mut req = ex
        .start("c1", "T", Format::Json, n, 0, 0, true, 0.0)
        .expect("request");
    loop {
        match ex.on_page(page("c1", n, &req), 0.0, parts) {
            Some(Step::Next(_)) => req = ex.resume(0.0).expect("next"),
            Some(Step::Done(file)) => return file,
            None => panic!("a claimed page led nowhere"),
        }
    }
}

#[test]
fn each_page_is_kept_as_it_arrives_and_the_file_is_those_parts() {
    let mut parts = Numbered::default();
    let file = export_into(450, &mut parts);
    let kept = &parts.kept;
    assert_eq!(kept.len(), 3, "one part per page, handed over at once");
    assert!(kept[0].contains("\"note 450\"") && kept[2].contains("\"note 1\""));
    assert!(parts.joined.is_empty());
    assert_eq!(file.pages, [3, 2, 1], "the parts oldest first");
    assert_eq!(
        (file.sep, file.tail),
        (",", crate::render::export::JSON_TAIL)
    );
}

#[test]
fn every_run_of_pages_is_joined_into_one_part_in_order() {
    let pages = 2 * GROUP_PAGES + 5;
    let mut parts = Numbered::default();
    let file = export_into(200 * pages as u64, &mut parts);
    assert_eq!(parts.kept.len(), pages);
    // Pages come newest first; each run is joined oldest first.
    let run = |from: usize| (from..from + GROUP_PAGES).rev().collect::<Vec<_>>();
    assert_eq!(parts.joined, [run(1), run(GROUP_PAGES + 1)]);
    let loose = (2 * GROUP_PAGES + 1..=pages).rev();
    let want: Vec<usize> = loose.chain([1002, 1001]).collect();
    assert_eq!(file.pages, want, "the file: the parts oldest first");
}

#[test]
fn a_long_export_is_the_same_file_with_its_pages_joined() {
    let (_, file) = export(200 * (GROUP_PAGES as u64 + 1) + 7, Format::Json);
    assert_eq!(file.pages.len(), 3, "one run, two loose pages");
    let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
    let seqs: Vec<u64> = doc["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(
        seqs,
        (1..=200 * (GROUP_PAGES as u64 + 1) + 7).collect::<Vec<_>>()
    );
}

#[test]
fn markdown_pages_join_in_order() {
    let (_, file) = export(401, Format::Markdown);
    let md = text(&file);
    assert!(md.starts_with("# My thread\n"));
    let pos: Vec<usize> = [1, 2, 201, 202, 401]
        .iter()
        .filter_map(|s| md.find(&format!("*note {s}*\n")))
        .collect();
    assert_eq!(pos.len(), 5);
    assert!(pos.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(md.matches("*note ").count(), 401);
}

#[test]
fn empty_threads_export_too() {
    let (sent, file) = export(0, Format::Json);
    assert_eq!(sent.len(), 1);
    let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
    assert_eq!(doc["items"], Value::Array(vec![]));
}

#[test]
fn only_its_own_replies_are_claimed() {
    let mut ex = Exporter::<String>::default();
    let req = ex
        .start("c1", "T", Format::Json, 10, 0, 0, true, 0.0)
        .expect("request");
    let mut h = page("c1", 10, &req);
    h.before = None;
    assert!(!ex.claims(&h), "the timeline's newest page");
    h.before = Some(5);
    assert!(!ex.claims(&h), "the timeline's older page");
    h.before = Some(NEWEST);
    h.channel_id = "c2".into();
    assert!(!ex.claims(&h), "another thread");
    h.channel_id = "c1".into();
    h.after = Some(3);
    assert!(!ex.claims(&h), "a gap fill");
    assert!(ex
        .start("c2", "T", Format::Json, 1, 0, 0, true, 0.0)
        .is_none());
}

#[test]
fn cancel_stops_and_swallows_the_reply_in_flight() {
    let mut ex = Exporter::<String>::default();
    let req = ex
        .start("c1", "T", Format::Json, 450, 0, 0, true, 0.0)
        .expect("request");
    ex.cancel();
    assert_eq!(ex.progress(), None);
    let h = page("c1", 450, &req);
    assert!(ex.claims(&h), "the late reply is not the timeline's");
    assert_eq!(
        ex.on_page(h.clone(), 0.0, &mut Texts),
        None,
        "and leads to no request"
    );
    assert!(!ex.claims(&h), "only once");
}

#[test]
fn a_lost_connection_resends_the_page() {
    let mut ex = Exporter::<String>::default();
    let first = ex
        .start("c1", "T", Format::Json, 450, 0, 0, true, 0.0)
        .expect("request");
    ex.connection_lost();
    assert!(!ex.claims(&page("c1", 450, &first)));
    assert_eq!(ex.resume(0.0), Some(first.clone()));
    assert_eq!(ex.resume(0.0), None, "one request in flight");
    let mut offline = Exporter::<String>::default();
    assert!(offline
        .start("c1", "T", Format::Json, 1, 0, 0, false, 0.0)
        .is_none());
    assert_eq!(offline.resume(0.0).map(|r| r.before), Some(Some(NEWEST)));
}

#[test]
fn a_misbehaving_gateway_cannot_loop_or_duplicate() {
    let mut ex = Exporter::<String>::default();
    let req = ex
        .start("c1", "T", Format::Json, 10, 0, 0, true, 0.0)
        .expect("request");
    let mut h = page("c1", 10, &req);
    h.items = (6..=10).chain(8..=10).rev().map(commentary).collect();
    h.has_more = true;
    let Some(Step::Next(_)) = ex.on_page(h, 0.0, &mut Texts) else {
        panic!("expected a next page");
    };
    let next = ex.resume(0.0).expect("the next request");
    assert_eq!(next.before, Some(6), "asks below the oldest seen");
    // The same items again, claiming more: none is new, so it ends.
    let mut again = page("c1", 10, &req);
    again.items = (6..=10).map(commentary).collect();
    again.before = next.before;
    again.has_more = true;
    let Some(Step::Done(file)) = ex.on_page(again, 0.0, &mut Texts) else {
        panic!("expected the end");
    };
    let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
    let seqs: Vec<u64> = doc["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(seqs, [6, 7, 8, 9, 10]);
}

#[test]
fn pages_are_paced_after_a_burst() {
    let mut pacer = Pacer::default();
    for _ in 0..20 {
        assert_eq!(pacer.wait_ms(0.0), 0.0);
        pacer.take(0.0);
    }
    let wait = pacer.wait_ms(0.0);
    assert!((wait - 1000.0 / PAGES_PER_SEC).abs() < 1e-6, "{wait}");
    assert_eq!(pacer.wait_ms(wait), 0.0);
    pacer.take(wait);
    // A long pause refills the burst, no more.
    assert_eq!(pacer.wait_ms(1e9), 0.0);
    assert!(pacer.tokens <= BURST);
}

#[test]
fn progress_reads_in_thousands() {
    let p = Progress {
        channel_id: "c".into(),
        format: Format::Markdown,
        done: 1200,
        total: 5000,
    };
    assert_eq!(p.label(), "Exporting… 1,200 of 5,000 items");
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(100_000), "100,000");
    assert_eq!(grouped(1_234_567), "1,234,567");
}

#[test]
fn aborts_only_its_thread() {
    let mut ex = Exporter::<String>::default();
    let _ = ex.start("c1", "T", Format::Json, 1, 0, 0, true, 0.0);
    assert!(!ex.abort("c2"));
    assert!(ex.progress().is_some());
    assert!(ex.abort("c1"));
    assert!(ex.progress().is_none());
}
