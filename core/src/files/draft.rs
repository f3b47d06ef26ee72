//! The draft's files as the app keeps them across a reload: which uploads
//! it has (their bytes are in IndexedDB) and, when it was sent while they
//! uploaded, the message that waits for them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptDraft {
    pub upload_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<KeptMessage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptMessage {
    /// `None`: the new thread pane.
    pub channel: Option<String>,
    pub text: String,
}

impl KeptDraft {
    /// Reads what [`KeptDraft::to_json`] wrote; anything else is no draft.
    pub fn from_json(text: &str) -> KeptDraft {
        serde_json::from_str(text).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.upload_ids.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bad_text() {
        let d = KeptDraft {
            upload_ids: vec!["u1".into()],
            waiting: Some(KeptMessage {
                channel: Some("c1".into()),
                text: "hi".into(),
            }),
        };
        assert_eq!(KeptDraft::from_json(&d.to_json()), d);
        assert!(KeptDraft::from_json("{nope").is_empty());
        assert!(KeptDraft::from_json(r#"{"upload_ids": 5}"#).is_empty());
    }
}
