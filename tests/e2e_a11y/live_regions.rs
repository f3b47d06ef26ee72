//! What screen readers hear: one polite and one assertive live region in
//! the whole page, streaming text in neither, a finished answer announced
//! once when complete, a failed tool at once.

use serde_json::Value;

use crate::support::ui::*;
use crate::support::{run, secs};

/// Counts the page's live regions by politeness (explicit `aria-live` and
/// the roles that imply it), whether a streaming answer sits inside one,
/// and installs a recorder of every text each of the two regions shows.
const REGIONS: &str = r#"
const live = '[aria-live], [role=status], [role=alert], [role=log], [role=marquee], [role=timer]';
const kind = el => {
  const l = el.getAttribute('aria-live');
  if (l) return l;
  return el.getAttribute('role') === 'alert' ? 'assertive' : 'polite';
};
const all = Array.from(document.querySelectorAll(live)).filter(el => kind(el) !== 'off');
const streaming = Array.from(document.querySelectorAll('.msg-assistant[data-streaming=true]'));
if (!window.__heard) {
  window.__heard = { polite: [], assertive: [] };
  for (const k of ['polite', 'assertive']) {
    const region = document.querySelector(`[data-testid=live-${k}]`);
    if (region) new MutationObserver(() => {
      const t = region.textContent.trim();
      if (t) window.__heard[k].push({ text: t, streaming: !!document.querySelector('.msg-assistant[data-streaming=true]') });
    }).observe(region, { subtree: true, childList: true, characterData: true });
  }
}
return {
  polite: all.filter(el => kind(el) === 'polite').length,
  assertive: all.filter(el => kind(el) === 'assertive').length,
  streaming: streaming.length,
  streamingInLive: streaming.some(el => !!el.closest(live)),
  heard: window.__heard,
};
"#;

#[test]
fn one_polite_and_one_assertive_region_announce_answers_once_and_failures() {
    run(|| async {
        // Slow enough that the streaming answer is seen streaming.
        let app = demo_app(120).await;
        let b = &app.browser;
        let r = b.js(REGIONS, vec![]).await;
        assert_eq!(
            (r["polite"].clone(), r["assertive"].clone()),
            (1.into(), 1.into()),
            "{r}"
        );

        send_new_thread(b, "/demo tools").await;
        let during = b
            .poll("the answer streaming", secs(30), || async {
                let r = b.js(REGIONS, vec![]).await;
                (r["streaming"].as_u64() > Some(0)).then_some(r)
            })
            .await;
        assert_eq!(
            during["streamingInLive"], false,
            "streaming text is inside a live region: {during}"
        );
        assert_eq!(
            (during["polite"].clone(), during["assertive"].clone()),
            (1.into(), 1.into()),
            "{during}"
        );
        wait_answers(b, 1).await;

        let heard = b
            .poll("the answer announced", secs(10), || async {
                let r = b.js(REGIONS, vec![]).await;
                let n = r["heard"]["polite"]
                    .as_array()?
                    .iter()
                    .filter(|h| answered(h))
                    .count();
                (n > 0).then_some(r["heard"].clone())
            })
            .await;
        let answers: Vec<&Value> = heard["polite"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| answered(h))
            .collect();
        assert_eq!(
            answers.len(),
            1,
            "the answer must be announced once: {heard}"
        );
        assert_eq!(
            answers[0]["streaming"], false,
            "announced before it was complete: {heard}"
        );
        let body = b.text_of(".msg-assistant .msg-body").await;
        let first_words: String = body
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            answers[0]["text"].as_str().unwrap().contains(&first_words),
            "the announcement reads the answer ({first_words:?}): {heard}"
        );
        let failures: Vec<&Value> = heard["assertive"].as_array().unwrap().iter().collect();
        assert!(
            failures.len() == 1 && failures[0]["text"].as_str().unwrap().contains("failed"),
            "the failing tool is announced assertively, once: {heard}"
        );
        app.finish().await;
    });
}

fn answered(h: &Value) -> bool {
    h["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("The agent answered"))
}
