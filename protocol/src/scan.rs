//! Finds a frame's top-level `"type"` by scanning its bytes, without
//! building anything: decoding reads `type` first to pick the frame's struct,
//! and a full parse just for that would double the cost of small frames.

/// The top-level `type` of a JSON object, when it is a string without
/// escapes; `None` when it is absent, escaped or the text is not a plain
/// object (the caller then parses properly). It does not validate the rest.
pub fn top_level_type(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(b, i);
        let key_start = i + 1;
        i = string_end(b, i)?;
        let key = &b[key_start..i - 1];
        i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        if key == b"type" {
            let end = string_end(b, i)?;
            let value = text.get(i + 1..end - 1)?;
            return (!value.contains('\\')).then_some(value);
        }
        i = value_end(b, i)?;
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Given a `"` at `i`, the index just past the closing quote.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The index just past the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            // A number or literal: up to the next delimiter.
            let len = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))?;
            Some(i + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    use super::top_level_type;

    #[test]
    fn finds_the_type_wherever_it_stands() {
        let cases = [
            (r#"{"type":"typing","on":true}"#, Some("typing")),
            (r#"{"on":true,"type":"typing"}"#, Some("typing")),
            (
                r#" { "a" : [1, {"type":"inner"}, "]"] , "type" : "x" } "#,
                Some("x"),
            ),
            (r#"{"a":{"type":"inner"}}"#, None),
            (r#"{"type":"t\u0069"}"#, None),
            (r#"{"type":5}"#, None),
            (r#"{"a":"\"type\":\"no\"","type":"yes"}"#, Some("yes")),
            (r#"[{"type":"x"}]"#, None),
            ("", None),
            (r#"{"type":"unterminated"#, None),
            (r#"{"a":1"#, None),
        ];
        for (text, want) in cases {
            assert_eq!(top_level_type(text), want, "{text}");
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1e9f64..1e9).prop_map(|f| json!(f)),
            ".{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whatever surrounds it, the scan finds what a parser finds, or
        /// leaves it to the parser.
        #[test]
        fn agrees_with_a_parser(fields in prop::collection::btree_map("[a-z_]{0,6}", json_value(), 0..5),
                                tag in ".{0,10}", pretty in any::<bool>()) {
            let mut object: Map<String, Value> = fields.into_iter().collect();
            object.insert("type".into(), Value::String(tag.clone()));
            let value = Value::Object(object);
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap_or_default()
            } else {
                value.to_string()
            };
            match top_level_type(&text) {
                Some(found) => prop_assert_eq!(found, tag.as_str()),
                None => prop_assert!(serde_json::to_string(&tag).unwrap_or_default().contains('\\')),
            }
        }
    }
}
