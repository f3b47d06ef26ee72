//! An incremental parser of `text/event-stream` bodies (the WHATWG
//! "server-sent events" format), fed the bytes of a response as they arrive.
//!
//! Written here rather than taken from a crate because both back ends need
//! only this: OpenAI-compatible servers send `data:` lines, Hermes adds
//! `event:` names and `: keepalive` comments. Bytes are split into lines
//! before decoding, so a multi-byte character cut between two chunks is safe
//! (a newline byte never occurs inside a UTF-8 sequence).

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` name; `None` is the default type, "message".
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// A line or an event larger than this ends the stream with an error
/// instead of growing the buffer without bound.
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("an event of the stream is larger than {MAX_EVENT_BYTES} bytes")]
pub struct EventTooLarge;

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line not yet terminated.
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` opening the next one
    /// belongs to that line break.
    skip_lf: bool,
    /// Nothing parsed yet: a byte-order mark may open the stream.
    started: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `bytes` and returns the events they complete, in order.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<Vec<SseEvent>, EventTooLarge> {
        let mut events = Vec::new();
        if !self.started && !bytes.is_empty() {
            self.started = true;
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        if self.skip_lf && !bytes.is_empty() {
            self.skip_lf = false;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&bytes[..end]);
            let line = String::from_utf8_lossy(&self.line).into_owned();
            self.line.clear();
            if let Some(event) = self.process(&line)? {
                events.push(event);
            }
            let crlf = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if crlf {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
        }
        self.line.extend_from_slice(bytes);
        if self.line.len() > MAX_EVENT_BYTES {
            return Err(EventTooLarge);
        }
        Ok(events)
    }

    /// One complete line; a blank one dispatches the event gathered so far.
    fn process(&mut self, line: &str) -> Result<Option<SseEvent>, EventTooLarge> {
        if line.is_empty() {
            let event = self.event.take();
            if !std::mem::take(&mut self.has_data) {
                return Ok(None);
            }
            let data = std::mem::take(&mut self.data);
            return Ok(Some(SseEvent { event, data }));
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                if self.data.len() > MAX_EVENT_BYTES {
                    return Err(EventTooLarge);
                }
            }
            // `id` and `retry` only matter to clients that reconnect.
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_string),
            data: data.to_string(),
        }
    }

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        chunks
            .iter()
            .flat_map(|c| parser.feed(c).expect("parse"))
            .collect()
    }

    #[test]
    fn data_lines_and_named_events() {
        let body = b"data: {\"a\":1}\n\nevent: tool.started\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        assert_eq!(
            parse_all(&[body]),
            [
                event(None, "{\"a\":1}"),
                event(Some("tool.started"), "{\"b\":2}"),
                event(None, "[DONE]"),
            ]
        );
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let body = "event: x\r\ndata: héllo\r\ndata:wörld\r\n\r\n: keepalive\r\n\r\ndata: 2\r\rdata: 3\n\n"
            .as_bytes();
        let whole = parse_all(&[body]);
        assert_eq!(
            whole,
            [
                event(Some("x"), "héllo\nwörld"),
                event(None, "2"),
                event(None, "3")
            ]
        );
        for cut in 0..=body.len() {
            assert_eq!(
                parse_all(&[&body[..cut], &body[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn comments_and_empty_events_dispatch_nothing() {
        assert!(parse_all(&[b": keepalive\n\n\n\nevent: lonely\n\n"]).is_empty());
        // A name without data dispatches nothing and does not leak into the next event.
        assert_eq!(
            parse_all(&[b"event: lonely\n\ndata: x\n\n"]),
            [event(None, "x")]
        );
    }

    #[test]
    fn bom_fields_without_colon_and_unterminated_tail() {
        let mut parser = SseParser::new();
        let events = parser
            .feed("\u{feff}data\n\ndata: partial".as_bytes())
            .expect("parse");
        assert_eq!(events, [event(None, "")]);
        assert_eq!(
            parser.feed(b"\n\n").expect("parse"),
            [event(None, "partial")]
        );
    }

    #[test]
    fn oversized_lines_are_refused() {
        let mut parser = SseParser::new();
        let big = vec![b'a'; MAX_EVENT_BYTES + 1];
        assert_eq!(parser.feed(&big), Err(EventTooLarge));
    }
}
