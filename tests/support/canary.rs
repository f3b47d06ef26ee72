//! A loopback HTTP listener that records every connection and request line
//! it gets. Hostile content points its images, links, frames and styles at
//! it: a test then asserts it was never contacted (nothing was fetched
//! behind the reader's back), and can also prove it works by loading one
//! image on purpose.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub struct Canary {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Canary {
    pub fn start() -> Canary {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let hits: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (log, stop_flag) = (hits.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop_flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let log = log.clone();
                std::thread::spawn(move || record(conn, &log));
            }
        });
        Canary { addr, hits, stop }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `127.0.0.1:PORT`, for protocol-relative and bare-host vectors.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// The request line of every connection so far (`"(no request)"` for a
    /// connection that sent nothing, e.g. a preconnect).
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn record(mut conn: TcpStream, log: &Mutex<Vec<String>>) {
    // Counted at once, before any byte arrives: a preconnect is a leak too.
    let index = {
        let mut log = log.lock().unwrap();
        log.push("(no request)".to_string());
        log.len() - 1
    };
    let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    let mut line = String::new();
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let got = reader.read_line(&mut line).unwrap_or(0);
    if got > 0 {
        log.lock().unwrap()[index] = line.trim().to_string();
    }
    // A 1×1 transparent GIF, so a deliberately loaded image succeeds.
    const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
    let head = format!(
        "HTTP/1.0 200 OK\r\nContent-Type: image/gif\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n",
        GIF.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(GIF);
}
