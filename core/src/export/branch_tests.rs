//! An export follows one active path (§12): a switch while it runs starts
//! it over, so the file never mixes two branches.

use super::tests::Texts;
use super::*;
use crate::test_items::commentary;

fn page(req: &HistoryGet, seqs: std::ops::Range<u64>, has_more: bool, rev: u64) -> History {
    History {
        channel_id: "c1".into(),
        items: seqs.map(commentary).collect(),
        has_more,
        has_newer: None,
        before: req.before,
        after: None,
        around: None,
        branch_rev: Some(rev),
    }
}

#[test]
fn a_switch_during_an_export_starts_it_over_on_the_new_path() {
    let mut ex = Exporter::<String>::default();
    let first = ex
        .start("c1", "T", Format::Json, 200, 0, 0, true, 0.0)
        .expect("first request");
    assert!(matches!(
        ex.on_page(page(&first, 101..201, true, 1), 0.0, &mut Texts),
        Some(Step::Next(_))
    ));
    // The next page was read after a switch: dropped, and the export
    // asks for the newest page again.
    let second = ex.resume(0.0).expect("second request");
    assert_eq!(second.before, Some(101));
    assert!(matches!(
        ex.on_page(page(&second, 1..101, false, 2), 0.0, &mut Texts),
        Some(Step::Next(_))
    ));
    assert_eq!(ex.progress().map(|p| p.done), Some(0));
    let again = ex.resume(0.0).expect("the newest page again");
    assert_eq!(again.before, Some(NEWEST));
    let Some(Step::Done(file)) = ex.on_page(page(&again, 1..51, false, 2), 0.0, &mut Texts) else {
        panic!("the export ends on the new path");
    };
    let text = file.pages.join(file.sep);
    assert_eq!(text.matches("\"seq\"").count(), 50, "{text}");
}

#[test]
fn pages_of_one_revision_or_of_a_gateway_without_branches_make_one_file() {
    let mut ex = Exporter::<String>::default();
    let first = ex
        .start("c1", "T", Format::Json, 100, 0, 0, true, 0.0)
        .expect("first request");
    let mut p = page(&first, 51..101, true, 3);
    assert!(matches!(
        ex.on_page(p, 0.0, &mut Texts),
        Some(Step::Next(_))
    ));
    let second = ex.resume(0.0).expect("second request");
    p = page(&second, 1..51, false, 3);
    assert!(matches!(
        ex.on_page(p, 0.0, &mut Texts),
        Some(Step::Done(_))
    ));
    let first = ex
        .start("c1", "T", Format::Json, 100, 0, 0, true, 0.0)
        .expect("first request");
    let mut p = page(&first, 51..101, true, 0);
    p.branch_rev = None;
    assert!(matches!(
        ex.on_page(p, 0.0, &mut Texts),
        Some(Step::Next(_))
    ));
    let second = ex.resume(0.0).expect("second request");
    let mut p = page(&second, 1..51, false, 0);
    p.branch_rev = None;
    assert!(matches!(
        ex.on_page(p, 0.0, &mut Texts),
        Some(Step::Done(_))
    ));
}
