//! Per-device settings: one serde struct with defaults and a version, stored
//! as JSON in localStorage. Loading is field by field, so a corrupt or
//! unknown value falls back to its default without losing the others.
//!
//! Version 2 keeps a token per gateway address instead of one global token
//! (which a crafted `?gateway=` link could send to any host).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::net::Address;

pub const SETTINGS_VERSION: u32 = 2;

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
    /// Each gateway's shared secret, keyed by its canonical address
    /// ([`Address::url`]): a token is only ever sent where it was saved.
    pub tokens: BTreeMap<String, String>,
    /// Gateways a link may name without asking ("Remember this gateway").
    pub trusted_gateways: Vec<String>,
    /// Plain `ws://` gateways on other hosts that the user allowed to
    /// receive their token unencrypted.
    pub plaintext_ok: Vec<String>,
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
            tokens: BTreeMap::new(),
            trusted_gateways: Vec::new(),
            plaintext_ok: Vec::new(),
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
    /// Reads stored settings, keeping every field (and every token or
    /// address in a list) that is valid. A version 1 global token is bound
    /// to the gateway it was used with: the saved address, else `own` (the
    /// page's same-origin gateway, if the page has one).
    pub fn from_json(text: &str, own: Option<&Address>) -> Settings {
        let Ok(serde_json::Value::Object(mut stored)) = serde_json::from_str(text) else {
            return Settings::default();
        };
        let legacy_token = stored.remove("token");
        let mut out = Settings::default();
        for (key, value) in stored {
            let value = match key.as_str() {
                "tokens" => valid_tokens(value),
                "trusted_gateways" | "plaintext_ok" => valid_addresses(value),
                _ => value,
            };
            // Through the JSON text, not `to_value`: the wasm then needs no
            // serializer into a `Value` (bench/history/2026-11-30-to-12-03.md, "Size (2026-12-01, evening)").
            let Ok(serde_json::Value::Object(mut merged)) = serde_json::from_str(&out.to_json())
            else {
                break;
            };
            // Nested objects merge the same way, one field at a time.
            let value = match (merged.get(&key), value) {
                (Some(serde_json::Value::Object(base)), serde_json::Value::Object(v))
                    if key == "progress" =>
                {
                    merge_fields::<ProgressSettings>(base.clone(), v)
                }
                (_, v) => v,
            };
            merged.insert(key, value);
            if let Ok(s) = serde_json::from_value(serde_json::Value::Object(merged)) {
                out = s;
            }
        }
        let used_with = if out.gateway_url.trim().is_empty() {
            own.cloned()
        } else {
            Address::parse(&out.gateway_url).ok()
        };
        if let (Some(serde_json::Value::String(token)), Some(used_with)) = (legacy_token, used_with)
        {
            if out.token_for(&used_with).is_none() {
                out.set_token(&used_with, &token);
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

    /// The token saved for exactly this gateway, if any.
    pub fn token_for(&self, gateway: &Address) -> Option<&str> {
        self.tokens
            .get(&gateway.url())
            .map(String::as_str)
            .filter(|t| !t.is_empty())
    }

    /// Saves `token` for `gateway` (an empty one forgets it).
    pub fn set_token(&mut self, gateway: &Address, token: &str) {
        if token.is_empty() {
            self.tokens.remove(&gateway.url());
        } else {
            self.tokens.insert(gateway.url(), token.to_string());
        }
    }

    pub fn trusts(&self, gateway: &Address) -> bool {
        self.trusted_gateways.contains(&gateway.url())
    }

    pub fn trust(&mut self, gateway: &Address) {
        if !self.trusts(gateway) {
            self.trusted_gateways.push(gateway.url());
        }
    }

    pub fn allows_plaintext(&self, gateway: &Address) -> bool {
        self.plaintext_ok.contains(&gateway.url())
    }

    pub fn allow_plaintext(&mut self, gateway: &Address) {
        if !self.allows_plaintext(gateway) {
            self.plaintext_ok.push(gateway.url());
        }
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

/// The entries of a stored token map whose address parses and whose token
/// is a non-empty string, re-keyed by the canonical address.
fn valid_tokens(value: serde_json::Value) -> serde_json::Value {
    let serde_json::Value::Object(map) = value else {
        return serde_json::Value::Object(Default::default());
    };
    let kept = map.into_iter().filter_map(|(address, token)| {
        let address = Address::parse(&address).ok()?;
        let token = token.as_str().filter(|t| !t.is_empty())?;
        Some((address.url(), serde_json::Value::from(token)))
    });
    serde_json::Value::Object(kept.collect())
}

/// The entries of a stored address list that parse, canonical, once each.
fn valid_addresses(value: serde_json::Value) -> serde_json::Value {
    let mut kept: Vec<String> = Vec::new();
    for item in value.as_array().into_iter().flatten() {
        if let Some(a) = item.as_str().and_then(|s| Address::parse(s).ok()) {
            if !kept.contains(&a.url()) {
                kept.push(a.url());
            }
        }
    }
    serde_json::Value::from(kept)
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

    fn own() -> Address {
        Address::parse("ws://127.0.0.1:8080/ws").unwrap()
    }

    fn load(text: &str) -> Settings {
        Settings::from_json(text, Some(&own()))
    }

    #[test]
    fn round_trips() {
        let mut s = Settings {
            streaming: StreamingMode::Progress,
            pins: vec!["c1".into()],
            ..Settings::default()
        };
        s.progress.max_lines = 6;
        s.set_token(&own(), "t1");
        s.trust(&Address::parse("wss://other.example/ws").unwrap());
        assert_eq!(load(&s.to_json()), s);
    }

    #[test]
    fn garbage_gives_defaults() {
        for text in ["", "null", "[1,2]", "{", "\"x\""] {
            assert_eq!(load(text), Settings::default());
        }
    }

    #[test]
    fn one_bad_field_keeps_the_rest() {
        let s = load(
            r#"{"streaming":"block","tool_detail":"loud","theme":7,"token":"abc",
                "progress":{"max_lines":"many","detail":"raw","label":"hidden"},"future":1}"#,
        );
        assert_eq!(s.streaming, StreamingMode::Block);
        assert_eq!(s.tool_detail, ToolDetail::Truncated);
        assert_eq!(s.theme, Theme::System);
        assert_eq!(s.token_for(&own()), Some("abc"));
        assert_eq!(s.progress.max_lines, 4);
        assert_eq!(s.progress.detail, ProgressDetail::Raw);
        assert_eq!(s.progress.label, LabelMode::Hidden);
    }

    #[test]
    fn numbers_are_clamped() {
        let s = load(r#"{"progress":{"max_lines":0,"max_line_chars":100000}}"#);
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

    #[test]
    fn a_v1_token_moves_to_the_gateway_it_was_used_with() {
        // No saved address: the page's own gateway.
        let s = load(r#"{"version":1,"token":"abc"}"#);
        assert_eq!(s.tokens.len(), 1);
        assert_eq!(s.token_for(&own()), Some("abc"));
        // A saved address, in any spelling: that gateway, and no other.
        let s = load(r#"{"version":1,"gateway_url":"HTTPS://GW.example:443/ws","token":"abc"}"#);
        let gw = Address::parse("wss://gw.example/ws").unwrap();
        assert_eq!(s.token_for(&gw), Some("abc"));
        assert_eq!(s.token_for(&own()), None);
        assert_eq!(s.version, SETTINGS_VERSION);
        // An empty v1 token binds nothing; saved settings carry no global token.
        assert!(load(r#"{"token":""}"#).tokens.is_empty());
        assert!(!load(r#"{"token":"abc"}"#).to_json().contains("\"token\""));
    }

    #[test]
    fn one_bad_token_or_address_keeps_the_others() {
        let s = load(
            r#"{"tokens":{"WS://127.0.0.1:8080/ws":"good","javascript:x":"bad","ws://b/ws":7,"ws://c/ws":""},
                "trusted_gateways":["ws://a:1/ws",3,"nope","WS://A:1/ws"],"plaintext_ok":"x","theme":"dark"}"#,
        );
        assert_eq!(s.tokens.len(), 1);
        assert_eq!(s.token_for(&own()), Some("good"));
        assert_eq!(s.trusted_gateways, vec!["ws://a:1/ws".to_string()]);
        assert!(s.plaintext_ok.is_empty());
        assert_eq!(s.theme, Theme::Dark);
    }

    #[test]
    fn tokens_are_per_gateway() {
        let mut s = Settings::default();
        let a = own();
        let b = Address::parse("ws://localhost:8080/ws").unwrap();
        s.set_token(&a, "ta");
        assert_eq!(s.token_for(&b), None);
        s.set_token(&b, "tb");
        assert_eq!((s.token_for(&a), s.token_for(&b)), (Some("ta"), Some("tb")));
        s.set_token(&a, "");
        assert_eq!(s.token_for(&a), None);
        s.trust(&b);
        s.trust(&b);
        assert_eq!(s.trusted_gateways.len(), 1);
        assert!(s.trusts(&b) && !s.trusts(&a));
    }
}
