//! The URL hash names what is open: `#/t/<channel_id>` a thread,
//! `#/t/<channel_id>/<seq>` one item of it, opened in place. The id is
//! percent-encoded (so it holds no `/`); decoding is the browser's job.
//! The hash is untrusted (anyone can send a link): anything else opens
//! nothing, a `seq` that is not a positive number is ignored.

/// The (still encoded) channel id and the item of a hash, if it names one.
pub fn parse(hash: &str) -> Option<(&str, Option<u64>)> {
    let rest = hash.strip_prefix("#/t/")?;
    let (id, seq) = match rest.split_once('/') {
        Some((id, seq)) => (id, seq.parse::<u64>().ok().filter(|s| *s > 0)),
        None => (rest, None),
    };
    (!id.is_empty()).then_some((id, seq))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn threads_and_items() {
        assert_eq!(parse("#/t/c1"), Some(("c1", None)));
        assert_eq!(parse("#/t/c%2F1/42"), Some(("c%2F1", Some(42))));
        assert_eq!(parse("#/t/c1/"), Some(("c1", None)));
        assert_eq!(parse("#/t/c1/0"), Some(("c1", None)));
        assert_eq!(parse("#/t/c1/-3"), Some(("c1", None)));
        assert_eq!(parse("#/t/c1/99999999999999999999999"), Some(("c1", None)));
        assert_eq!(parse("#/t/c1/4/5"), Some(("c1", None)));
        assert_eq!(parse("#/t/"), None);
        assert_eq!(parse("#/t//7"), None);
        assert_eq!(parse("#/"), None);
        assert_eq!(parse(""), None);
    }
}
