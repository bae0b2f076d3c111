//! A fake Ollama server for tests: a real HTTP/1.1 server on 127.0.0.1
//! (port chosen by the OS) speaking enough of the Ollama protocol for
//! colophon: `POST /api/chat` (answer decided per request by a closure)
//! and `POST /api/show` (model present / missing). It records every request
//! with its arrival time, so tests can count requests and measure retry
//! delays. It uses only `std` and `serde_json`, so the one copy serves the
//! integration tests (`mod fake_ollama;` in `tests/it`), the library's unit
//! tests, `benches/library.rs` and `examples/fake_ollama.rs` (`#[path]`);
//! tests point the real binary at it with `VLM_ENDPOINT=<server.endpoint()>`.
//!
//! Each connection is served on its own thread and closed after one
//! response (`Connection: close`), so slow answers for several clients run
//! in parallel. Dropping the server stops accepting; connection threads
//! still sleeping on a slow reply finish on their own.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The model name `/api/show` knows by default (colophon's default `VLM_MODEL`).
pub const DEFAULT_MODEL: &str = "qwen2.5vl:7b";

/// A well-formed answer naming every field, in the format the prompt asks for.
pub const SAMPLE_ANSWER: &str = "Title: The Art of Computer Programming\n\
Subtitle: Fundamental Algorithms\n\
Author: Donald E. Knuth\n\
Publisher: Addison-Wesley\n\
Edition: Third Edition\n\
Year: 1997\n\
ISBN: 0-201-89683-4\n\
DOI: Not visible\n\
LOC: 97-2147";

/// The model found nothing.
pub const NOT_VISIBLE_ANSWER: &str = "Title: Not visible\nSubtitle: Not visible\n\
Author: Not visible\nPublisher: Not visible\nEdition: Not visible\nYear: Not visible\n\
ISBN: Not visible\nDOI: Not visible\nLOC: Not visible";

/// How the server answers one chat request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with one JSON object whose `message.content` is the text (`stream: false`).
    Answer(String),
    /// 200 with NDJSON, chunked: one object per piece of the text, then a
    /// final `{"done": true}` object, as Ollama streams.
    Streamed(Vec<String>),
    /// This status with an Ollama-style `{"error": ...}` body.
    Status(u16, String),
    /// 200 with this body verbatim (e.g. not JSON).
    Raw(String),
    /// Wait, then reply.
    Delayed(Duration, Box<Reply>),
    /// Close the connection without answering.
    Hangup,
}

impl Reply {
    /// The text streamed in pieces of `chunk` characters.
    pub fn streamed(text: &str, chunk: usize) -> Reply {
        let chars: Vec<char> = text.chars().collect();
        Reply::Streamed(
            chars
                .chunks(chunk.max(1))
                .map(|c| c.iter().collect())
                .collect(),
        )
    }

    pub fn delayed(delay: Duration, reply: Reply) -> Reply {
        Reply::Delayed(delay, Box::new(reply))
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When the whole request had arrived.
    pub at: Instant,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// `model` of a chat request (or `name` of a show request).
    pub fn model(&self) -> Option<String> {
        let j = self.json()?;
        j.get("model")
            .or_else(|| j.get("name"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    }

    /// `messages[0].content` of a chat request.
    pub fn prompt(&self) -> Option<String> {
        self.json()?
            .pointer("/messages/0/content")?
            .as_str()
            .map(str::to_string)
    }

    /// `messages[0].images` (base64 strings) of a chat request.
    pub fn images(&self) -> Vec<String> {
        self.json()
            .and_then(|j| {
                j.pointer("/messages/0/images")?.as_array().map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
            })
            .unwrap_or_default()
    }
}

type ChatFn = dyn Fn(usize, &Request) -> Reply + Send + Sync;

struct State {
    chat: Box<ChatFn>,
    models: Vec<String>,
    requests: Mutex<Vec<Request>>,
    chats: AtomicUsize,
}

/// A running fake server. See the module docs.
pub struct FakeOllama {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeOllama {
    /// A server whose chat reply is `chat(n, request)`, `n` counting chat
    /// requests from 0; `/api/show` knows [`DEFAULT_MODEL`].
    pub fn start(chat: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static) -> FakeOllama {
        Self::with_models(&[DEFAULT_MODEL], chat)
    }

    /// Like [`FakeOllama::start`] with the models `/api/show` reports present.
    pub fn with_models(
        models: &[&str],
        chat: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static,
    ) -> FakeOllama {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding the fake Ollama server");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            chat: Box::new(chat),
            models: models.iter().map(|m| m.to_string()).collect(),
            requests: Mutex::new(Vec::new()),
            chats: AtomicUsize::new(0),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let state = Arc::clone(&state);
                    std::thread::spawn(move || serve(conn, &state));
                }
            })
        };
        FakeOllama {
            addr,
            state,
            stop,
            accept: Some(accept),
        }
    }

    /// Always answers `text` in one object.
    pub fn answering(text: &str) -> FakeOllama {
        let text = text.to_string();
        Self::start(move |_, _| Reply::Answer(text.clone()))
    }

    /// Always streams `text` as NDJSON in pieces of `chunk` characters.
    pub fn streaming(text: &str, chunk: usize) -> FakeOllama {
        let text = text.to_string();
        Self::start(move |_, _| Reply::streamed(&text, chunk))
    }

    /// HTTP `status` for the first `k` chat requests, then `text`.
    pub fn failing_first(k: usize, status: u16, text: &str) -> FakeOllama {
        let text = text.to_string();
        Self::start(move |n, _| {
            if n < k {
                Reply::Status(status, "simulated failure".to_string())
            } else {
                Reply::Answer(text.clone())
            }
        })
    }

    /// Answers `text` after `delay`.
    pub fn slow(delay: Duration, text: &str) -> FakeOllama {
        let text = text.to_string();
        Self::start(move |_, _| Reply::delayed(delay, Reply::Answer(text.clone())))
    }

    /// Answers 200 with a body that is not JSON.
    pub fn not_json() -> FakeOllama {
        Self::start(|_, _| Reply::Raw("<html><body>502 Bad Gateway</body></html>".to_string()))
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port>`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The chat URL, for `VLM_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        format!("{}/api/chat", self.base_url())
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    /// The `POST /api/chat` requests so far.
    pub fn chat_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == "/api/chat")
            .collect()
    }

    /// Number of chat requests so far.
    pub fn chat_count(&self) -> usize {
        self.state.chats.load(Ordering::SeqCst)
    }
}

impl Drop for FakeOllama {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// A chat URL on 127.0.0.1 where nothing listens (connections are refused).
pub fn closed_port_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a probe port");
    let addr = listener.local_addr().expect("local address");
    drop(listener);
    format!("http://{addr}/api/chat")
}

fn serve(conn: TcpStream, state: &State) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(request) = read_request(&conn) else {
        return;
    };
    let reply = match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/api/chat") => {
            let n = state.chats.fetch_add(1, Ordering::SeqCst);
            state.requests.lock().unwrap().push(request.clone());
            (state.chat)(n, &request)
        }
        ("POST", "/api/show") => {
            state.requests.lock().unwrap().push(request.clone());
            match request.model() {
                Some(m) if state.models.contains(&m) => Reply::Raw(
                    serde_json::json!({
                        "modelfile": format!("FROM {m}"),
                        "details": {"family": "fake", "parameter_size": "7B"},
                        "capabilities": ["completion", "vision"]
                    })
                    .to_string(),
                ),
                Some(m) => Reply::Status(404, format!("model '{m}' not found")),
                None => Reply::Status(400, "missing name".to_string()),
            }
        }
        _ => {
            state.requests.lock().unwrap().push(request.clone());
            Reply::Status(404, "not found".to_string())
        }
    };
    write_reply(conn, reply);
}

fn read_request(conn: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        path,
        headers,
        body,
        at: Instant::now(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn chat_object(content: &str, done: bool) -> String {
    serde_json::json!({
        "model": DEFAULT_MODEL,
        "created_at": "2024-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": done
    })
    .to_string()
}

fn write_reply(mut conn: TcpStream, reply: Reply) {
    let simple = |conn: &mut TcpStream, status: u16, ctype: &str, body: &str| {
        let head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            reason(status),
            body.len()
        );
        let _ = conn.write_all(head.as_bytes());
        let _ = conn.write_all(body.as_bytes());
        let _ = conn.flush();
    };
    match reply {
        Reply::Answer(text) => simple(
            &mut conn,
            200,
            "application/json",
            &chat_object(&text, true),
        ),
        Reply::Raw(body) => simple(&mut conn, 200, "application/json", &body),
        Reply::Status(status, msg) => simple(
            &mut conn,
            status,
            "application/json",
            &serde_json::json!({ "error": msg }).to_string(),
        ),
        Reply::Streamed(pieces) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            if conn.write_all(head.as_bytes()).is_err() {
                return;
            }
            let mut lines: Vec<String> = pieces.iter().map(|p| chat_object(p, false)).collect();
            lines.push(
                serde_json::json!({"model": DEFAULT_MODEL, "done": true, "done_reason": "stop"})
                    .to_string(),
            );
            for line in lines {
                let data = format!("{line}\n");
                let chunk = format!("{:x}\r\n{data}\r\n", data.len());
                if conn.write_all(chunk.as_bytes()).is_err() {
                    return;
                }
                let _ = conn.flush();
            }
            let _ = conn.write_all(b"0\r\n\r\n");
            let _ = conn.flush();
        }
        Reply::Delayed(delay, inner) => {
            std::thread::sleep(delay);
            write_reply(conn, *inner);
        }
        Reply::Hangup => {
            let _ = conn.shutdown(std::net::Shutdown::Both);
        }
    }
}
