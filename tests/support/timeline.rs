//! The open thread's timeline as a reader sees it: every row, scrolled
//! through the virtualised list (only rows near the viewport are mounted),
//! and whether a turn is still running.

use std::time::Duration;

use serde::Deserialize;

use super::Browser;

/// One timeline row as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RowDump {
    /// user, assistant, commentary or tool.
    pub kind: String,
    pub seq: Option<u64>,
    /// State classes that matter: pending, failed, interim, streaming,
    /// and a tool card's state.
    pub flags: String,
    pub text: String,
}

impl std::fmt::Display for RowDump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text: String = self.text.chars().take(70).collect();
        write!(
            f,
            "{:>4} {:<10} {:<18} {text:?}",
            self.seq.map(|s| s.to_string()).unwrap_or("-".into()),
            self.kind,
            self.flags
        )
    }
}

pub fn show_rows(rows: &[RowDump]) -> String {
    rows.iter()
        .map(|r| format!("  {r}\n"))
        .collect::<Vec<_>>()
        .join("")
}

const MOUNTED_ROWS: &str = r#"
const rows = Array.from(document.querySelectorAll('[data-testid=timeline] .row[data-key]'));
return rows.filter(r => !r.classList.contains('hidden')).map(r => {
  const kind = r.querySelector('.msg-user') ? 'user'
    : r.querySelector('.msg-assistant') ? 'assistant'
    : r.querySelector('.msg-commentary') ? 'commentary'
    : r.querySelector('.tool-card') ? 'tool' : 'other';
  const flags = [];
  for (const c of ['pending', 'failed', 'interim']) {
    if (r.querySelector('.msg.' + c)) flags.push(c);
  }
  if (r.querySelector('[data-streaming=true]')) flags.push('streaming');
  const tool = r.querySelector('.tool-card');
  if (tool) flags.push(tool.dataset.state);
  const seq = r.dataset.seq ? Number(r.dataset.seq) : null;
  return { key: r.dataset.key, kind, seq, flags: flags.join(','),
           text: r.textContent.replace(/\s+/g, ' ').trim() };
});
"#;

/// Every row of the open thread, top to bottom, scrolling through the
/// virtualised list (only rows near the viewport are mounted).
pub async fn timeline(b: &Browser) -> Vec<RowDump> {
    #[derive(Deserialize)]
    struct Mounted {
        key: String,
        #[serde(flatten)]
        row: RowDump,
    }
    b.js(
        "const t = document.querySelector('[data-testid=timeline]'); if (t) t.scrollTop = 0;",
        vec![],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut keys: Vec<String> = Vec::new();
    let mut rows: Vec<RowDump> = Vec::new();
    for _ in 0..500 {
        let mounted: Vec<Mounted> =
            serde_json::from_value(b.js(MOUNTED_ROWS, vec![]).await).unwrap_or_default();
        // Merge in document order: new keys go after the last known key
        // that precedes them.
        let mut insert_at = 0;
        for m in mounted {
            match keys.iter().position(|k| *k == m.key) {
                Some(i) => {
                    rows[i] = m.row;
                    insert_at = i + 1;
                }
                None => {
                    keys.insert(insert_at, m.key);
                    rows.insert(insert_at, m.row);
                    insert_at += 1;
                }
            }
        }
        let at_end = b
            .js(
                "const t = document.querySelector('[data-testid=timeline]'); if (!t) return true; \
                 const end = t.scrollTop + t.clientHeight >= t.scrollHeight - 2; \
                 t.scrollTop += Math.max(100, t.clientHeight * 0.7); return end;",
                vec![],
            )
            .await;
        if at_end.as_bool().unwrap_or(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
    rows
}

/// Waits until the open thread shows no streaming bubble, no typing
/// indicator and no running tool.
pub async fn wait_turn_over(b: &Browser, timeout: Duration) {
    b.poll(
        "the turn to end (no streaming, typing or running tool)",
        timeout,
        || async {
            let busy = b
            .js(
                "return document.querySelectorAll('[data-streaming=true], [data-testid=typing], \
                 .tool-card[data-state=running], .msg-user.pending').length;",
                vec![],
            )
            .await;
            (busy.as_u64() == Some(0)).then_some(())
        },
    )
    .await;
}
