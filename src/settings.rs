//! Per-device settings: one serde struct with defaults and a version, stored
//! as JSON in localStorage. Loading is field by field, so a corrupt or
//! unknown value falls back to its default without losing the others.

use serde::{Deserialize, Serialize};

pub const SETTINGS_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// How a streaming answer is shown (the gateway always streams).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamingMode {
    /// Only the final answer, at `message.stop`.
    Off,
    /// The live snapshot as it grows.
    #[default]
    Partial,
    /// Advances only at completed paragraphs, list items or code blocks.
    Block,
    /// One progress draft per turn, then the final answer.
    Progress,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolDetail {
    /// Name, full args and output; cards open.
    Everything,
    /// One line per call; a tap reveals the rest.
    #[default]
    Truncated,
    /// No tool cards at all.
    Nothing,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelMode {
    /// A word from the built-in pool, chosen per turn.
    #[default]
    Auto,
    /// The user's own `label_text`.
    Fixed,
    Hidden,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgressDetail {
    #[default]
    Explain,
    Raw,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgressSettings {
    pub label: LabelMode,
    pub label_text: String,
    pub detail: ProgressDetail,
    pub max_lines: u32,
    pub max_line_chars: u32,
    /// Off: the draft keeps only its label.
    pub tool_lines: bool,
}

impl Default for ProgressSettings {
    fn default() -> Self {
        ProgressSettings {
            label: LabelMode::Auto,
            label_text: "Working".into(),
            detail: ProgressDetail::Explain,
            max_lines: 4,
            max_line_chars: 120,
            tool_lines: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub version: u32,
    /// `ws://` or `wss://` URL; empty means the page's own origin, `/ws`.
    pub gateway_url: String,
    /// The gateway's shared secret; empty when it runs without auth.
    pub token: String,
    pub theme: Theme,
    pub streaming: StreamingMode,
    pub tool_detail: ToolDetail,
    pub reasoning_auto_collapse: bool,
    pub progress: ProgressSettings,
    /// Pinned threads, shown on top (per device).
    pub pins: Vec<String>,
    /// System notifications while the tab is hidden (approvals, turn ends).
    pub notifications: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: SETTINGS_VERSION,
            gateway_url: String::new(),
            token: String::new(),
            theme: Theme::System,
            streaming: StreamingMode::Partial,
            tool_detail: ToolDetail::Truncated,
            reasoning_auto_collapse: true,
            progress: ProgressSettings::default(),
            pins: Vec::new(),
            notifications: false,
        }
    }
}

impl Settings {
    /// Reads stored settings, keeping every field that is valid.
    pub fn from_json(text: &str) -> Settings {
        let Ok(serde_json::Value::Object(stored)) = serde_json::from_str(text) else {
            return Settings::default();
        };
        let mut out = Settings::default();
        for (key, value) in stored {
            let Ok(serde_json::Value::Object(mut merged)) = serde_json::to_value(&out) else {
                break;
            };
            // Nested objects merge the same way, one field at a time.
            let value = match (merged.get(&key), value) {
                (Some(serde_json::Value::Object(base)), serde_json::Value::Object(v)) => {
                    merge_fields::<ProgressSettings>(base.clone(), v)
                }
                (_, v) => v,
            };
            merged.insert(key, value);
            if let Ok(s) = serde_json::from_value(serde_json::Value::Object(merged)) {
                out = s;
            }
        }
        out.version = SETTINGS_VERSION;
        out.clamped()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Keeps numbers in ranges the UI can show.
    fn clamped(mut self) -> Settings {
        self.progress.max_lines = self.progress.max_lines.clamp(1, 20);
        self.progress.max_line_chars = self.progress.max_line_chars.clamp(20, 400);
        self.pins.dedup();
        self
    }

    pub fn is_pinned(&self, channel_id: &str) -> bool {
        self.pins.iter().any(|p| p == channel_id)
    }

    pub fn toggle_pin(&mut self, channel_id: &str) {
        if self.is_pinned(channel_id) {
            self.pins.retain(|p| p != channel_id);
        } else {
            self.pins.push(channel_id.to_string());
        }
    }
}

/// Overlays the valid fields of `stored` on `base` (an object of type `T`).
fn merge_fields<T: Serialize + serde::de::DeserializeOwned>(
    base: serde_json::Map<String, serde_json::Value>,
    stored: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Value {
    let mut out = base;
    for (key, value) in stored {
        let mut candidate = out.clone();
        candidate.insert(key, value);
        let candidate = serde_json::Value::Object(candidate);
        if serde_json::from_value::<T>(candidate.clone()).is_ok() {
            if let serde_json::Value::Object(m) = candidate {
                out = m;
            }
        }
    }
    serde_json::Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut s = Settings {
            streaming: StreamingMode::Progress,
            pins: vec!["c1".into()],
            ..Settings::default()
        };
        s.progress.max_lines = 6;
        assert_eq!(Settings::from_json(&s.to_json()), s);
    }

    #[test]
    fn garbage_gives_defaults() {
        for text in ["", "null", "[1,2]", "{", "\"x\""] {
            assert_eq!(Settings::from_json(text), Settings::default());
        }
    }

    #[test]
    fn one_bad_field_keeps_the_rest() {
        let s = Settings::from_json(
            r#"{"streaming":"block","tool_detail":"loud","theme":7,"token":"abc",
                "progress":{"max_lines":"many","detail":"raw","label":"hidden"},"future":1}"#,
        );
        assert_eq!(s.streaming, StreamingMode::Block);
        assert_eq!(s.tool_detail, ToolDetail::Truncated);
        assert_eq!(s.theme, Theme::System);
        assert_eq!(s.token, "abc");
        assert_eq!(s.progress.max_lines, 4);
        assert_eq!(s.progress.detail, ProgressDetail::Raw);
        assert_eq!(s.progress.label, LabelMode::Hidden);
    }

    #[test]
    fn numbers_are_clamped() {
        let s = Settings::from_json(r#"{"progress":{"max_lines":0,"max_line_chars":100000}}"#);
        assert_eq!((s.progress.max_lines, s.progress.max_line_chars), (1, 400));
    }

    #[test]
    fn pins_toggle() {
        let mut s = Settings::default();
        s.toggle_pin("a");
        assert!(s.is_pinned("a"));
        s.toggle_pin("a");
        assert!(!s.is_pinned("a"));
    }
}
