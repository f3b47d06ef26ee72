//! Just enough HTTP/1.1 over tokio for the peer bench: the fake model's
//! side (read a request, write a JSON reply) and a one-shot client for Open
//! WebUI's REST API. Loopback only, trusted peers, bounded sizes.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest request or reply body read (a 2,000-message chat is a few MB).
const MAX_BODY: usize = 64 * 1024 * 1024;

pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Vec<u8>,
}

/// Reads one request (`Content-Length` bodies only); `None` at the end of
/// the connection or on anything malformed.
pub async fn read_request(read: &mut (impl AsyncBufRead + Unpin)) -> Option<Request> {
    let mut line = String::new();
    read.read_line(&mut line).await.ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let length = read_headers(read).await?.content_length;
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    Some(Request { method, path, body })
}

struct Headers {
    content_length: usize,
    chunked: bool,
}

async fn read_headers(read: &mut (impl AsyncBufRead + Unpin)) -> Option<Headers> {
    let mut headers = Headers {
        content_length: 0,
        chunked: false,
    };
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Some(headers);
        }
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            headers.content_length = value.parse().ok().filter(|n| *n <= MAX_BODY)?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            headers.chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
}

/// Writes a whole JSON reply; false when the peer went away.
pub async fn write_json(write: &mut (impl AsyncWriteExt + Unpin), status: u16, v: &Value) -> bool {
    let body = v.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    write.write_all(head.as_bytes()).await.is_ok()
        && write.write_all(body.as_bytes()).await.is_ok()
        && write.flush().await.is_ok()
}

/// One request to `http://{host}{path}` on a connection of its own; the
/// status and the JSON body (`Null` when it is not JSON).
pub async fn call(
    host: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let socket = TcpStream::connect(host)
        .await
        .map_err(|e| format!("connect {host}: {e}"))?;
    let (read, mut write) = socket.into_split();
    let body = body.map(Value::to_string).unwrap_or_default();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let sent = async {
        write.write_all(head.as_bytes()).await?;
        write.write_all(body.as_bytes()).await
    };
    sent.await.map_err(|e| format!("send to {host}: {e}"))?;
    let mut read = tokio::io::BufReader::new(read);
    let mut status = String::new();
    read.read_line(&mut status)
        .await
        .map_err(|e| format!("read from {host}: {e}"))?;
    let code = status
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{method} {path}: bad status line {status:?}"))?;
    let headers = read_headers(&mut read)
        .await
        .ok_or_else(|| format!("{method} {path}: bad headers"))?;
    let mut bytes = Vec::new();
    if headers.chunked {
        read_chunked(&mut read, &mut bytes).await
    } else {
        (&mut read)
            .take(MAX_BODY as u64)
            .read_to_end(&mut bytes)
            .await
            .ok()
    }
    .ok_or_else(|| format!("{method} {path}: body cut off"))?;
    Ok((code, serde_json::from_slice(&bytes).unwrap_or(Value::Null)))
}

/// A `Transfer-Encoding: chunked` body, appended to `out`.
async fn read_chunked(read: &mut (impl AsyncBufRead + Unpin), out: &mut Vec<u8>) -> Option<usize> {
    loop {
        let mut size = String::new();
        read.read_line(&mut size).await.ok()?;
        let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        if size == 0 || out.len() + size > MAX_BODY {
            return (size == 0).then_some(out.len());
        }
        let start = out.len();
        out.resize(start + size, 0);
        read.read_exact(&mut out[start..]).await.ok()?;
        let mut crlf = [0u8; 2];
        read.read_exact(&mut crlf).await.ok()?;
    }
}
