//! Random opaque ids for channels, messages, turns and approval requests.

use rand::RngExt;

/// RFC 4648 base32 alphabet, lower-case so ids read well in URLs and logs.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
/// 12 base32 characters carry 60 random bits: collisions are not a concern.
const RANDOM_CHARS: usize = 12;

fn random_id(prefix: &str) -> String {
    let mut rng = rand::rng();
    let mut id = String::with_capacity(prefix.len() + RANDOM_CHARS);
    id.push_str(prefix);
    for _ in 0..RANDOM_CHARS {
        id.push(char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]));
    }
    id
}

pub fn channel_id() -> String {
    random_id("c_")
}

pub fn message_id() -> String {
    random_id("m_")
}

pub fn turn_id() -> String {
    random_id("t_")
}

/// `request_id` of an approval request: unguessable, so only devices that
/// were sent the request can answer it.
pub fn request_id() -> String {
    random_id("a_")
}

/// `file_id` of a stored file: unguessable, so only devices that were sent
/// a message carrying it can read it.
pub fn file_id() -> String {
    random_id("f_")
}

/// The Hermes session holding a channel's conversation on Hermes's side.
pub fn hermes_session_id() -> String {
    random_id("aria_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_prefix_and_base32_body() {
        let id = channel_id();
        assert!(id.starts_with("c_"));
        assert_eq!(id.len(), 14);
        assert!(id[2..].bytes().all(|b| ALPHABET.contains(&b)));
        assert_ne!(channel_id(), channel_id());
        assert!(message_id().starts_with("m_"));
        assert!(turn_id().starts_with("t_"));
        assert!(request_id().starts_with("a_"));
    }
}
