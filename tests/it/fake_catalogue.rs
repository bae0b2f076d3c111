//! Fake online catalogues for tests: a real HTTP/1.1 server on 127.0.0.1
//! (port chosen by the OS) per source, answering `GET` requests in the
//! shape of the real API (Open Library's Books API, DOI content
//! negotiation's CSL-JSON, Crossref's `/works/`, loc.gov's `/item/`) with
//! invented books, or whatever a test's closure decides (429s, 500s,
//! garbage, huge or slow bodies). It records every request with its
//! arrival time and counts every accepted connection, so a test can prove
//! that nothing was asked at all. Dropping the server stops it.
//!
//! Only `std` and `serde_json`: also included by `examples/fake_catalogue.rs`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Which API a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenLibrary,
    Doi,
    Crossref,
    Loc,
}

/// An invented book (or paper) the catalogues know.
#[derive(Debug, Clone, Default)]
pub struct Book {
    pub isbns: Vec<String>,
    pub doi: Option<String>,
    pub lccn: Option<String>,
    pub title: String,
    pub subtitle: Option<String>,
    pub authors: Vec<String>,
    pub publisher: Option<String>,
    pub year: Option<i32>,
    pub edition: Option<String>,
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub at: Instant,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// This status with a JSON (or any) body.
    Body(u16, String),
    /// This status, extra headers, body.
    WithHeaders(u16, Vec<(String, String)>, String),
    /// Wait, then reply.
    Delayed(Duration, Box<Reply>),
    /// 200 and a body that never ends (bytes until the client hangs up).
    Endless,
    /// Close the connection without answering.
    Hangup,
}

type Handler = dyn Fn(usize, &Request) -> Reply + Send + Sync;

struct State {
    handler: Box<Handler>,
    requests: Mutex<Vec<Request>>,
    connections: AtomicUsize,
}

pub struct FakeCatalogue {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeCatalogue {
    /// A server answering `handler(n, request)`, `n` counting requests from 0.
    pub fn start(handler: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding a fake catalogue");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            handler: Box::new(handler),
            requests: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let accept = {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    state.connections.fetch_add(1, Ordering::SeqCst);
                    let state = Arc::clone(&state);
                    std::thread::spawn(move || serve(conn, &state));
                }
            })
        };
        FakeCatalogue {
            addr,
            state,
            stop,
            accept: Some(accept),
        }
    }

    /// A catalogue speaking `api` that knows `books`.
    pub fn serving(api: Api, books: Vec<Book>) -> Self {
        Self::start(move |_, r| answer(api, &books, r))
    }

    /// `http://127.0.0.1:<port>`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.requests.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.state.requests.lock().unwrap().len()
    }

    /// Connections accepted, answered or not.
    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }
}

impl Drop for FakeCatalogue {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// The real API's answer about the book a request asks for.
pub fn answer(api: Api, books: &[Book], r: &Request) -> Reply {
    let path = r.path.as_str();
    let not_found = Reply::Body(404, "{\"error\": \"not found\"}".into());
    let doi_of = |p: &str| percent_decode(p).to_lowercase();
    match api {
        Api::OpenLibrary => {
            let Some(isbn) = path
                .split("bibkeys=ISBN:")
                .nth(1)
                .map(|r| r.split('&').next().unwrap_or(r).to_string())
            else {
                return Reply::Body(400, "{}".into());
            };
            match books.iter().find(|b| b.isbns.contains(&isbn)) {
                // Open Library answers an unknown ISBN with an empty object.
                None => Reply::Body(200, "{}".into()),
                Some(b) => Reply::Body(
                    200,
                    serde_json::json!({ format!("ISBN:{isbn}"): open_library(b) }).to_string(),
                ),
            }
        }
        Api::Doi => {
            if r.header("accept") != Some("application/vnd.citationstyles.csl+json") {
                return Reply::Body(406, "not acceptable".into());
            }
            let doi = doi_of(path.trim_start_matches('/'));
            match books
                .iter()
                .find(|b| b.doi.as_deref().map(str::to_lowercase) == Some(doi.clone()))
            {
                None => not_found,
                Some(b) => Reply::Body(200, csl(b).to_string()),
            }
        }
        Api::Crossref => {
            let doi = doi_of(
                path.trim_start_matches("/works/")
                    .split('?')
                    .next()
                    .unwrap_or(""),
            );
            match books
                .iter()
                .find(|b| b.doi.as_deref().map(str::to_lowercase) == Some(doi.clone()))
            {
                None => Reply::Body(404, "Resource not found.".into()),
                Some(b) => {
                    let mut work = csl(b);
                    work["title"] = serde_json::json!([b.title]);
                    if let Some(s) = &b.subtitle {
                        work["subtitle"] = serde_json::json!([s]);
                    }
                    Reply::Body(
                        200,
                        serde_json::json!({"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": work}).to_string(),
                    )
                }
            }
        }
        Api::Loc => {
            let lccn = path
                .trim_start_matches("/item/")
                .split(['/', '?'])
                .next()
                .unwrap_or("");
            match books.iter().find(|b| b.lccn.as_deref() == Some(lccn)) {
                None => not_found,
                Some(b) => Reply::Body(200, loc(b).to_string()),
            }
        }
    }
}

fn open_library(b: &Book) -> serde_json::Value {
    let mut v = serde_json::json!({
        "url": "https://openlibrary.org/books/OL0M/invented",
        "key": "/books/OL0M",
        "title": b.title,
        "authors": b.authors.iter().map(|a| serde_json::json!({"url": "https://openlibrary.org/authors/OL0A", "name": a})).collect::<Vec<_>>(),
        "identifiers": {"isbn_13": b.isbns, "lccn": b.lccn.iter().collect::<Vec<_>>(), "openlibrary": ["OL0M"]},
        "number_of_pages": 240,
    });
    if let Some(s) = &b.subtitle {
        v["subtitle"] = s.clone().into();
    }
    if let Some(p) = &b.publisher {
        v["publishers"] = serde_json::json!([{"name": p}]);
    }
    if let Some(y) = b.year {
        v["publish_date"] = format!("March {y}").into();
    }
    if let Some(e) = &b.edition {
        v["edition_name"] = format!("{e}. ed.").into();
    }
    v
}

fn csl(b: &Book) -> serde_json::Value {
    let authors: Vec<serde_json::Value> = b
        .authors
        .iter()
        .map(|a| match a.rsplit_once(' ') {
            Some((given, family)) => {
                serde_json::json!({"given": given, "family": family, "sequence": "first"})
            }
            None => serde_json::json!({"literal": a}),
        })
        .collect();
    let mut v = serde_json::json!({
        "type": if b.isbns.is_empty() { "article-journal" } else { "book" },
        "title": b.title,
        "author": authors,
        "DOI": b.doi,
        "ISBN": b.isbns,
        "source": "Crossref",
    });
    if let Some(p) = &b.publisher {
        v["publisher"] = p.clone().into();
    }
    if let Some(y) = b.year {
        v["issued"] = serde_json::json!({"date-parts": [[y, 3, 1]]});
    }
    if let Some(s) = &b.subtitle {
        v["subtitle"] = serde_json::json!([s]);
    }
    if let Some(e) = &b.edition {
        v["edition"] = e.clone().into();
    }
    v
}

fn loc(b: &Book) -> serde_json::Value {
    let title = match &b.subtitle {
        Some(s) => format!("{} : {s} / by {}.", b.title, b.authors.join(" and ")),
        None => format!("{} / by {}.", b.title, b.authors.join(" and ")),
    };
    let inverted: Vec<String> = b
        .authors
        .iter()
        .map(|a| match a.rsplit_once(' ') {
            Some((given, family)) => format!("{family}, {given}"),
            None => a.clone(),
        })
        .collect();
    let year = b.year.map(|y| y.to_string()).unwrap_or_default();
    serde_json::json!({
        "item": {
            "title": title,
            "contributor_names": inverted,
            "date": year,
            "created_published": [format!("New York : {}, {year}.", b.publisher.clone().unwrap_or_default())],
            "number_lccn": [b.lccn],
            "original_format": ["book"],
            "partof": ["catalog"],
        },
        "type": "item",
        "timestamp": 1_700_000_000_000u64,
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn serve(conn: TcpStream, state: &State) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(&conn);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let request = Request {
        path,
        headers,
        at: Instant::now(),
    };
    let n = {
        let mut all = state.requests.lock().unwrap();
        all.push(request.clone());
        all.len() - 1
    };
    write_reply(conn, (state.handler)(n, &request));
}

fn write_reply(mut conn: TcpStream, reply: Reply) {
    let (status, extra, body) = match reply {
        Reply::Body(s, b) => (s, Vec::new(), b),
        Reply::WithHeaders(s, h, b) => (s, h, b),
        Reply::Delayed(d, inner) => {
            std::thread::sleep(d);
            return write_reply(conn, *inner);
        }
        Reply::Hangup => {
            let _ = conn.shutdown(std::net::Shutdown::Both);
            return;
        }
        Reply::Endless => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"x\": \"",
            );
            let chunk = vec![b'a'; 64 * 1024];
            // Until the client hangs up (or 64 MiB, so a lost client ends it).
            for _ in 0..1024 {
                if conn.write_all(&chunk).is_err() {
                    return;
                }
            }
            return;
        }
    };
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(body.as_bytes());
    let _ = conn.flush();
}

/// An http URL on 127.0.0.1 where nothing listens.
pub fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a probe port");
    let addr = listener.local_addr().expect("local address");
    drop(listener);
    format!("http://{addr}")
}
