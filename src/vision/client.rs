//! HTTP side of the vision stage (SPEC 6, seed 4): one chat request per page
//! image with timeout and retries, and the `/api/show` model check behind
//! `colophon vlm-check`.
//!
//! Every call is a blocking ureq request, made only from the vision pool's
//! own threads (or the `vlm-check` command), never from a rayon thread.
//! A failed attempt is a timeout (`VLM_TIMEOUT`, measured over the whole
//! exchange including reading the body), a connection error, an HTTP status
//! of 400 or more, or a body we cannot read; it is retried up to
//! `VLM_MAX_RETRIES` more times, `VLM_RETRY_DELAY` seconds apart.

use super::image::{EncodedImage, ImageFormat};
use super::{PROMPT, PROMPT_VERSION};
use crate::settings::Settings;
use serde::{Deserialize, Serialize};
use std::io;
use std::time::{Duration, Instant};

/// Largest response body read (an answer is a few hundred bytes; a stream
/// of one object per token for a long answer stays far below this).
const MAX_BODY: u64 = 16 * 1024 * 1024;

/// Why one attempt failed. The pool branches on the kind: timeouts and
/// connection errors count towards "backend unreachable".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum VisionError {
    /// No complete answer within `VLM_TIMEOUT` seconds.
    #[error("no answer within VLM_TIMEOUT")]
    Timeout,
    /// The backend could not be reached (refused, reset, unknown host).
    #[error("cannot connect to the vision backend: {0}")]
    Connect(String),
    /// The backend answered with HTTP status >= 400.
    #[error("vision backend answered HTTP {0}")]
    Status(u16),
    /// The backend answered 2xx but the body is not a chat answer.
    #[error("unreadable answer from the vision backend: {0}")]
    BadBody(String),
}

impl VisionError {
    /// Timeouts and connection errors: the backend may be down or overloaded.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, VisionError::Timeout | VisionError::Connect(_))
    }

    /// HTTP 404 from the chat endpoint: Ollama's answer when the model has
    /// not been pulled (or the endpoint path is wrong). Retrying will not help.
    pub fn is_model_missing(&self) -> bool {
        matches!(self, VisionError::Status(404))
    }
}

/// A configured client for one backend and model.
#[derive(Debug, Clone)]
pub struct VisionClient {
    agent: ureq::Agent,
    endpoint: String,
    model: String,
    max_retries: u32,
    retry_delay: Duration,
}

/// One chat request, as Ollama's `/api/chat` takes it. `stream: false` asks
/// for one object; the reader accepts a stream anyway (proxies, other
/// backends). Temperature 0 makes answers repeatable, which the cache assumes.
#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: [ChatMessage<'a>; 1],
    stream: bool,
    options: ChatOptions,
}

#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'a str,
    content: &'a str,
    images: [&'a str; 1],
}

#[derive(Serialize)]
struct ChatOptions {
    temperature: f32,
}

/// The result of asking about one page: the model's text or the last
/// error, with the diagnostics of every attempt.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub result: Result<String, VisionError>,
    pub diagnostics: Diagnostics,
}

/// The diagnostics of one page's vision exchange, written by the report
/// stage as `page-<N>.vlm.json`: what was asked (without the image itself),
/// what came back, and how long each attempt took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    pub endpoint: String,
    pub model: String,
    pub prompt: String,
    pub prompt_version: u32,
    pub image: ImageSummary,
    /// Hex of the [`VisionKey`](super::VisionKey) the answer is cached under.
    pub cache_key: String,
    /// `answered`, `cached`, `failed` or `skipped`.
    pub outcome: String,
    /// The model's text, as received (or as cached).
    pub answer: Option<String>,
    /// The fields read from the answer.
    pub fields: Option<super::Answer>,
    /// Why there is no answer (last error, or why the page was skipped).
    pub error: Option<String>,
    pub attempts: Vec<Attempt>,
    /// Wall time from the first attempt to the end of the last one,
    /// including retry delays.
    pub total_ms: u64,
}

/// The page image as sent (sizes only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageSummary {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
    pub source_width: u32,
    pub source_height: u32,
    /// Encoded image size in bytes (the base64 in the request is 4/3 of this).
    pub bytes: usize,
    /// blake3 of the encoded image, hex.
    pub blake3: String,
}

impl ImageSummary {
    pub fn of(image: &EncodedImage) -> ImageSummary {
        ImageSummary {
            format: image.format,
            width: image.width,
            height: image.height,
            source_width: image.source_width,
            source_height: image.source_height,
            bytes: image.bytes.len(),
            blake3: blake3::hash(&image.bytes).to_hex().to_string(),
        }
    }
}

/// One HTTP attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Start, in ms after the first attempt started.
    pub started_ms: u64,
    pub elapsed_ms: u64,
    /// HTTP status when a response arrived.
    pub status: Option<u16>,
    /// The failure, with the start of an error body when there was one.
    pub error: Option<String>,
}

fn millis(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

/// Host part of an `http(s)://host[:port]/...` URL, without brackets.
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split_once(']').map(|(h, _)| h);
    }
    Some(authority.split(':').next().unwrap_or(authority))
}

/// Whether an http(s) URL names this machine (`localhost`, 127.0.0.1,
/// ::1): such a server is reached without the proxy environment variables.
pub fn is_loopback_url(url: &str) -> bool {
    url_host(url).is_some_and(is_loopback)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A ureq agent for `url`: the given overall timeout (None = no limit),
/// statuses >= 400 returned as responses so their bodies can be read, and
/// no proxy for a backend on this machine (an `HTTP_PROXY` meant for the
/// internet must not swallow `localhost:11434`); other hosts follow the
/// usual proxy environment variables.
fn agent_for(url: &str, timeout: Option<Duration>) -> ureq::Agent {
    let mut config = ureq::Agent::config_builder()
        .timeout_global(timeout)
        .http_status_as_error(false);
    if is_loopback_url(url) {
        config = config.proxy(None);
    }
    ureq::Agent::new_with_config(config.build())
}

/// Maps a ureq error onto the kinds the pool branches on.
fn classify(e: ureq::Error) -> VisionError {
    match e {
        ureq::Error::Timeout(_) => VisionError::Timeout,
        ureq::Error::Io(io) if matches!(io.kind(), io::ErrorKind::TimedOut) => VisionError::Timeout,
        ureq::Error::Io(io) => VisionError::Connect(io.to_string()),
        ureq::Error::HostNotFound => VisionError::Connect("host not found".to_string()),
        ureq::Error::ConnectionFailed => VisionError::Connect("connection failed".to_string()),
        ureq::Error::StatusCode(code) => VisionError::Status(code),
        ureq::Error::Protocol(p) => VisionError::BadBody(format!("bad HTTP response: {p}")),
        ureq::Error::BodyExceedsLimit(n) => VisionError::BadBody(format!("body over {n} bytes")),
        other => VisionError::Connect(other.to_string()),
    }
}

/// The first line or so of an error body, for diagnostics.
fn excerpt(body: &str) -> String {
    let line = body.trim().lines().next().unwrap_or("");
    line.chars().take(200).collect()
}

impl VisionClient {
    /// A client for `endpoint` (the full chat URL) and `model`. A zero
    /// `timeout` means no limit.
    pub fn new(
        endpoint: &str,
        model: &str,
        timeout: Duration,
        max_retries: u32,
        retry_delay: Duration,
    ) -> VisionClient {
        let timeout = (!timeout.is_zero()).then_some(timeout);
        VisionClient {
            agent: agent_for(endpoint, timeout),
            endpoint: endpoint.to_string(),
            model: model.to_string(),
            max_retries,
            retry_delay,
        }
    }

    /// `VLM_ENDPOINT`, `VLM_MODEL`, `VLM_TIMEOUT`, `VLM_MAX_RETRIES`, `VLM_RETRY_DELAY`.
    pub fn from_settings(settings: &Settings) -> VisionClient {
        VisionClient::for_endpoint(settings, &settings.vlm_endpoint)
    }

    /// [`from_settings`](Self::from_settings) for another `endpoint` (one
    /// of `VLM_ENDPOINTS`).
    pub fn for_endpoint(settings: &Settings, endpoint: &str) -> VisionClient {
        VisionClient::new(
            endpoint,
            &settings.vlm_model,
            Duration::from_secs_f64(settings.vlm_timeout.max(0.0)),
            settings.vlm_max_retries,
            Duration::from_secs_f64(settings.vlm_retry_delay.max(0.0)),
        )
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// Diagnostics for asking about `image`, before any attempt.
    pub fn diagnostics_for(
        &self,
        image: &EncodedImage,
        cache_key: &super::VisionKey,
    ) -> Diagnostics {
        Diagnostics {
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
            prompt: PROMPT.to_string(),
            prompt_version: PROMPT_VERSION,
            image: ImageSummary::of(image),
            cache_key: cache_key.hex(),
            outcome: String::new(),
            answer: None,
            fields: None,
            error: None,
            attempts: Vec::new(),
            total_ms: 0,
        }
    }

    /// Asks about one page with retries; see [`VisionClient::ask_until`].
    pub fn ask(&self, image: &EncodedImage) -> Exchange {
        self.ask_until(image, &|| false)
    }

    /// Asks about one page: up to `1 + max_retries` attempts,
    /// `retry_delay` apart. `give_up` is checked before every retry (and
    /// during the delay), so a pool that has switched vision off or been
    /// cancelled does not wait out the remaining retries.
    pub fn ask_until(&self, image: &EncodedImage, give_up: &dyn Fn() -> bool) -> Exchange {
        let key = super::VisionKey::new(image, &self.model);
        let mut diagnostics = self.diagnostics_for(image, &key);
        let body = self.request_body(&image.base64());
        let start = Instant::now();
        let mut last = VisionError::Connect("no attempt made".to_string());
        for attempt in 0..=self.max_retries {
            if attempt > 0 && (give_up() || !sleep_unless(self.retry_delay, give_up)) {
                break;
            }
            let t0 = Instant::now();
            let (result, status, detail) = self.attempt(&body);
            diagnostics.attempts.push(Attempt {
                started_ms: millis(t0 - start),
                elapsed_ms: millis(t0.elapsed()),
                status,
                error: result.as_ref().err().map(|e| match &detail {
                    Some(d) if !d.is_empty() => format!("{e}: {d}"),
                    _ => e.to_string(),
                }),
            });
            match result {
                Ok(text) => {
                    diagnostics.total_ms = millis(start.elapsed());
                    diagnostics.answer = Some(text.clone());
                    diagnostics.outcome = "answered".to_string();
                    return Exchange {
                        result: Ok(text),
                        diagnostics,
                    };
                }
                Err(e) => last = e,
            }
        }
        diagnostics.total_ms = millis(start.elapsed());
        diagnostics.error = diagnostics.attempts.last().and_then(|a| a.error.clone());
        diagnostics.outcome = "failed".to_string();
        Exchange {
            result: Err(last),
            diagnostics,
        }
    }

    fn request_body(&self, image_base64: &str) -> Vec<u8> {
        let request = ChatRequest {
            model: &self.model,
            messages: [ChatMessage {
                role: "user",
                content: PROMPT,
                images: [image_base64],
            }],
            stream: false,
            options: ChatOptions { temperature: 0.0 },
        };
        serde_json::to_vec(&request).expect("chat request serialises")
    }

    /// One HTTP exchange: the answer text, the status if a response came,
    /// and a detail (error body excerpt) for diagnostics.
    fn attempt(&self, body: &[u8]) -> (Result<String, VisionError>, Option<u16>, Option<String>) {
        let response = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json")
            .send(body);
        let mut response = match response {
            Ok(r) => r,
            Err(e) => return (Err(classify(e)), None, None),
        };
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .lossy_utf8(true)
            .read_to_string();
        if status >= 400 {
            let detail = text.ok().map(|t| excerpt(&t));
            return (Err(VisionError::Status(status)), Some(status), detail);
        }
        let result = match text {
            Ok(t) => response_text(&t),
            Err(ureq::Error::Timeout(_)) => Err(VisionError::Timeout),
            Err(e) => Err(VisionError::BadBody(e.to_string())),
        };
        (result, Some(status), None)
    }
}

/// Sleeps `d`, waking early (returning false) when `give_up` turns true.
fn sleep_unless(d: Duration, give_up: &dyn Fn() -> bool) -> bool {
    let end = Instant::now() + d;
    loop {
        let now = Instant::now();
        if now >= end {
            return true;
        }
        if give_up() {
            return false;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// What `colophon vlm-check` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The URL asked (`.../api/show`).
    pub url: String,
    pub model: String,
    /// The backend answered HTTP at all.
    pub backend_up: bool,
    /// `/api/show` said 200 for the model.
    pub model_present: bool,
    /// One or two sentences for people, with the fix when something is wrong.
    pub message: String,
}

impl CheckResult {
    /// Backend up and model present: `vlm-check` exits 0 only then.
    pub fn ok(&self) -> bool {
        self.backend_up && self.model_present
    }
}

/// The `/api/show` URL of the backend behind a chat endpoint: the
/// endpoint's scheme, host and port (as written; the default endpoint
/// carries `VLM_PORT`), with a trailing `/api/chat` replaced by `/api/show`
/// so a backend behind a path prefix (`http://host/ollama/api/chat`) is
/// checked where it is served. `None` when the endpoint is not an http(s) URL.
pub fn show_url(endpoint: &str) -> Option<String> {
    let (scheme, rest) = endpoint.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let prefix = path
        .trim_end_matches('/')
        .strip_suffix("/api/chat")
        .unwrap_or("");
    Some(format!("{scheme}://{authority}{prefix}/api/show"))
}

/// `colophon vlm-check`: `POST /api/show {"name": VLM_MODEL}` on the
/// backend (see [`show_url`]). 200 means the model is there, 404 that the
/// backend is up without it; anything else is reported as it is.
pub fn vlm_check(settings: &Settings) -> CheckResult {
    check_endpoint(settings, &settings.vlm_endpoint)
}

/// [`vlm_check`] of every vision host of the run (`VLM_ENDPOINTS`, else
/// `VLM_ENDPOINT`), in order.
pub fn vlm_check_hosts(settings: &Settings) -> Vec<CheckResult> {
    settings
        .vlm_hosts()
        .iter()
        .map(|endpoint| check_endpoint(settings, endpoint))
        .collect()
}

/// [`vlm_check`] of the backend at the chat URL `endpoint`.
fn check_endpoint(settings: &Settings, endpoint: &str) -> CheckResult {
    let model = settings.vlm_model.clone();
    let Some(url) = show_url(endpoint) else {
        return CheckResult {
            url: endpoint.to_string(),
            model,
            backend_up: false,
            model_present: false,
            message: format!(
                "VLM_ENDPOINT {endpoint:?} is not an http(s) URL; set it to the chat URL of the \
                 backend, e.g. http://localhost:{}/api/chat",
                settings.vlm_port
            ),
        };
    };
    let timeout = Duration::from_secs_f64(settings.vlm_timeout.clamp(0.0, 30.0));
    let agent = agent_for(&url, (!timeout.is_zero()).then_some(timeout));
    let body = serde_json::json!({ "name": model }).to_string();
    let response = agent
        .post(&url)
        .header("Content-Type", "application/json")
        .send(body.as_bytes());
    let (backend_up, model_present, message) = match response {
        Ok(mut r) => {
            let status = r.status().as_u16();
            match status {
                200 => (
                    true,
                    true,
                    format!("vision backend at {url} is up and model {model} is present"),
                ),
                404 => (
                    true,
                    false,
                    format!(
                        "vision backend at {url} is up but model {model} is missing; \
                         download it on the backend host with: ollama pull {model}"
                    ),
                ),
                _ => {
                    let detail = r
                        .body_mut()
                        .read_to_string()
                        .map(|b| excerpt(&b))
                        .unwrap_or_default();
                    (
                        true,
                        false,
                        format!(
                            "vision backend at {url} answered HTTP {status} for model {model}{}{detail}; \
                             is VLM_ENDPOINT an Ollama server? (try: ollama pull {model})",
                            if detail.is_empty() { "" } else { ": " }
                        ),
                    )
                }
            }
        }
        Err(e) => (
            false,
            false,
            format!(
                "vision backend at {url} is not reachable ({}); start it with `ollama serve` \
                 on that host, or set VLM_ENDPOINT / VLM_PORT to where it runs",
                classify(e)
            ),
        ),
    };
    CheckResult {
        url,
        model,
        backend_up,
        model_present,
        message,
    }
}

/// The model's text from a chat response body: a single JSON object, or
/// newline-delimited JSON objects (Ollama streaming), concatenating
/// `message.content` of every object that has a `message`. A body that is
/// not JSON, an `error` object, or no object with a message is
/// [`VisionError::BadBody`].
pub fn response_text(body: &str) -> Result<String, VisionError> {
    let mut text = String::new();
    let mut messages = 0;
    let mut objects = 0;
    for item in serde_json::Deserializer::from_str(body).into_iter::<serde_json::Value>() {
        let value = item.map_err(|e| VisionError::BadBody(format!("not JSON: {e}")))?;
        objects += 1;
        if let Some(err) = value.get("error") {
            let msg = err
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(VisionError::BadBody(format!("backend error: {msg}")));
        }
        if let Some(message) = value.get("message") {
            messages += 1;
            match message.get("content") {
                Some(serde_json::Value::String(s)) => text.push_str(s),
                Some(serde_json::Value::Null) | None => {}
                Some(other) => {
                    return Err(VisionError::BadBody(format!(
                        "message.content is not a string: {other}"
                    )));
                }
            }
        }
    }
    if objects == 0 {
        return Err(VisionError::BadBody("empty body".to_string()));
    }
    if messages == 0 {
        return Err(VisionError::BadBody(
            "no object carries a message".to_string(),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_url_follows_the_endpoint() {
        assert_eq!(
            show_url("http://localhost:11434/api/chat").as_deref(),
            Some("http://localhost:11434/api/show")
        );
        assert_eq!(
            show_url("http://gpu-box:11434/api/chat").as_deref(),
            Some("http://gpu-box:11434/api/show")
        );
        assert_eq!(
            show_url("https://example.org/ollama/api/chat/").as_deref(),
            Some("https://example.org/ollama/api/show")
        );
        assert_eq!(
            show_url("http://[::1]:8080/v1/whatever").as_deref(),
            Some("http://[::1]:8080/api/show")
        );
        assert_eq!(show_url("ftp://host/api/chat"), None);
        assert_eq!(show_url("localhost:11434"), None);
    }

    #[test]
    fn loopback_hosts() {
        assert_eq!(
            url_host("http://localhost:11434/api/chat"),
            Some("localhost")
        );
        assert_eq!(url_host("http://[::1]:1/x"), Some("::1"));
        assert_eq!(url_host("http://user@10.0.0.2:1/x"), Some("10.0.0.2"));
        assert!(is_loopback("localhost"));
        assert!(is_loopback("127.0.0.1"));
        assert!(is_loopback("::1"));
        assert!(!is_loopback("gpu-box"));
        assert!(!is_loopback("10.0.0.2"));
    }

    #[test]
    fn request_body_is_the_ollama_chat_shape() {
        let client = VisionClient::new(
            "http://localhost:1/api/chat",
            "qwen2.5vl:7b",
            Duration::from_secs(1),
            0,
            Duration::ZERO,
        );
        let body: serde_json::Value = serde_json::from_slice(&client.request_body("QUJD")).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "model": "qwen2.5vl:7b",
                "messages": [{"role": "user", "content": PROMPT, "images": ["QUJD"]}],
                "stream": false,
                "options": {"temperature": 0.0}
            })
        );
    }

    use crate::vision::Answer;
    use crate::vision::fake_ollama::{
        FakeOllama, NOT_VISIBLE_ANSWER, Reply, SAMPLE_ANSWER, closed_port_endpoint,
    };
    use crate::vision::image::prepare;
    use base64::Engine;
    use image::{GrayImage, Luma};

    fn page() -> EncodedImage {
        prepare(&GrayImage::from_fn(60, 80, |x, y| {
            Luma([((x * 7 + y * 3) % 256) as u8])
        }))
        .unwrap()
    }

    fn client(endpoint: &str, timeout: f64, retries: u32, delay: f64) -> VisionClient {
        VisionClient::new(
            endpoint,
            "qwen2.5vl:7b",
            Duration::from_secs_f64(timeout),
            retries,
            Duration::from_secs_f64(delay),
        )
    }

    fn settings_for(endpoint: &str, model: &str) -> Settings {
        Settings {
            vlm_endpoint: endpoint.to_string(),
            vlm_model: model.to_string(),
            vlm_timeout: 5.0,
            ..Settings::default()
        }
    }

    /// Gaps between the arrivals of successive chat requests, in seconds.
    fn gaps(server: &FakeOllama) -> Vec<f64> {
        let reqs = server.chat_requests();
        reqs.windows(2)
            .map(|w| (w[1].at - w[0].at).as_secs_f64())
            .collect()
    }

    #[test]
    fn normal_answer_sends_the_exact_request() {
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let image = page();
        let ex = client(&server.endpoint(), 5.0, 3, 0.1).ask(&image);
        assert_eq!(ex.result.as_deref(), Ok(SAMPLE_ANSWER));
        assert_eq!(ex.diagnostics.attempts.len(), 1);
        assert_eq!(ex.diagnostics.attempts[0].status, Some(200));
        assert_eq!(ex.diagnostics.answer.as_deref(), Some(SAMPLE_ANSWER));
        assert_eq!(ex.diagnostics.image.bytes, image.bytes.len());

        let reqs = server.chat_requests();
        assert_eq!(reqs.len(), 1);
        let req = &reqs[0];
        assert_eq!(req.method, "POST");
        assert_eq!(req.header("content-type"), Some("application/json"));
        assert_eq!(req.model().as_deref(), Some("qwen2.5vl:7b"));
        assert_eq!(req.prompt().as_deref(), Some(PROMPT));
        let images = req.images();
        assert_eq!(images.len(), 1);
        let sent = base64::engine::general_purpose::STANDARD
            .decode(&images[0])
            .unwrap();
        assert_eq!(sent, image.bytes);
        let json = req.json().unwrap();
        assert_eq!(json["stream"], serde_json::json!(false));
        assert_eq!(json["options"]["temperature"], serde_json::json!(0.0));
        assert_eq!(json["messages"][0]["role"], "user");

        let answer = Answer::parse(ex.result.as_ref().unwrap());
        assert_eq!(
            answer.title.as_deref(),
            Some("The Art of Computer Programming")
        );
        assert_eq!(answer.authors, vec!["Donald E. Knuth"]);
    }

    #[test]
    fn diagnostics_json_summarises_without_the_image() {
        let server = FakeOllama::failing_first(1, 500, SAMPLE_ANSWER);
        let image = prepare(&GrayImage::from_fn(300, 400, |x, y| Luma([(x ^ y) as u8]))).unwrap();
        let ex = client(&server.endpoint(), 5.0, 1, 0.01).ask(&image);
        let json = serde_json::to_value(&ex.diagnostics).unwrap();
        let text = json.to_string();
        assert!(
            !text.contains(&image.base64()[..64]),
            "the image itself is not in it"
        );
        assert_eq!(json["endpoint"], server.endpoint());
        assert_eq!(json["model"], "qwen2.5vl:7b");
        assert_eq!(json["prompt"], PROMPT);
        assert_eq!(json["outcome"], "answered");
        assert_eq!(json["answer"], SAMPLE_ANSWER);
        assert_eq!(json["image"]["bytes"], image.bytes.len());
        assert_eq!(json["image"]["width"], 300);
        assert_eq!(json["image"]["format"], "png");
        assert_eq!(json["attempts"].as_array().unwrap().len(), 2);
        assert_eq!(json["attempts"][0]["status"], 500);
        assert!(
            json["attempts"][0]["error"]
                .as_str()
                .unwrap()
                .contains("500")
        );
        assert!(json["attempts"][1]["error"].is_null());
        let back: Diagnostics = serde_json::from_value(json).unwrap();
        assert_eq!(back, ex.diagnostics);
    }

    #[test]
    fn streamed_answer_is_concatenated() {
        let server = FakeOllama::streaming(SAMPLE_ANSWER, 7);
        let ex = client(&server.endpoint(), 5.0, 0, 0.0).ask(&page());
        assert_eq!(ex.result.as_deref(), Ok(SAMPLE_ANSWER));
        assert_eq!(server.chat_count(), 1);
    }

    #[test]
    fn not_visible_everywhere_is_an_answer_without_fields() {
        let server = FakeOllama::answering(NOT_VISIBLE_ANSWER);
        let ex = client(&server.endpoint(), 5.0, 3, 0.1).ask(&page());
        let text = ex.result.unwrap();
        assert!(Answer::parse(&text).is_empty());
        assert_eq!(
            server.chat_count(),
            1,
            "an answer, even an empty one, is not retried"
        );
    }

    #[test]
    fn http_500_is_retried_after_the_delay() {
        let server = FakeOllama::failing_first(2, 500, SAMPLE_ANSWER);
        let ex = client(&server.endpoint(), 5.0, 3, 0.3).ask(&page());
        assert_eq!(ex.result.as_deref(), Ok(SAMPLE_ANSWER));
        assert_eq!(server.chat_count(), 3);
        let statuses: Vec<_> = ex.diagnostics.attempts.iter().map(|a| a.status).collect();
        assert_eq!(statuses, vec![Some(500), Some(500), Some(200)]);
        let first_error = ex.diagnostics.attempts[0].error.as_deref().unwrap();
        assert!(first_error.contains("HTTP 500") && first_error.contains("simulated failure"));
        for gap in gaps(&server) {
            assert!(
                (0.29..1.0).contains(&gap),
                "gap {gap:.3} s, retry delay 0.3 s"
            );
        }
    }

    #[test]
    fn retries_are_bounded_by_max_retries() {
        let server = FakeOllama::failing_first(100, 503, SAMPLE_ANSWER);
        let ex = client(&server.endpoint(), 5.0, 2, 0.05).ask(&page());
        assert_eq!(ex.result, Err(VisionError::Status(503)));
        assert_eq!(server.chat_count(), 3, "one attempt and two retries");
        assert_eq!(ex.diagnostics.attempts.len(), 3);
        assert!(ex.diagnostics.error.as_deref().unwrap().contains("503"));
    }

    #[test]
    fn zero_retries_means_one_attempt() {
        let server = FakeOllama::failing_first(100, 500, SAMPLE_ANSWER);
        let ex = client(&server.endpoint(), 5.0, 0, 0.05).ask(&page());
        assert_eq!(ex.result, Err(VisionError::Status(500)));
        assert_eq!(server.chat_count(), 1);
    }

    #[test]
    fn slow_answer_times_out_each_attempt() {
        let server = FakeOllama::slow(Duration::from_secs(2), SAMPLE_ANSWER);
        let start = Instant::now();
        let ex = client(&server.endpoint(), 0.4, 1, 0.2).ask(&page());
        let elapsed = start.elapsed().as_secs_f64();
        assert_eq!(ex.result, Err(VisionError::Timeout));
        assert_eq!(server.chat_count(), 2);
        assert_eq!(ex.diagnostics.attempts.len(), 2);
        for a in &ex.diagnostics.attempts {
            assert!(
                (350..1500).contains(&a.elapsed_ms),
                "attempt took {} ms",
                a.elapsed_ms
            );
            assert_eq!(a.status, None);
        }
        // Two timeouts of 0.4 s and one delay of 0.2 s, not two 2 s answers.
        assert!((0.95..1.9).contains(&elapsed), "took {elapsed:.2} s");
    }

    #[test]
    fn body_that_is_not_json_is_a_failed_attempt() {
        let server = FakeOllama::not_json();
        let ex = client(&server.endpoint(), 5.0, 1, 0.05).ask(&page());
        assert!(
            matches!(ex.result, Err(VisionError::BadBody(_))),
            "{:?}",
            ex.result
        );
        assert_eq!(server.chat_count(), 2);
    }

    #[test]
    fn hangup_is_a_failed_attempt() {
        let server = FakeOllama::start(|_, _| Reply::Hangup);
        let ex = client(&server.endpoint(), 5.0, 1, 0.05).ask(&page());
        assert!(ex.result.is_err());
        assert_eq!(server.chat_count(), 2);
    }

    #[test]
    fn closed_port_is_a_connection_error() {
        let endpoint = closed_port_endpoint();
        let start = Instant::now();
        let ex = client(&endpoint, 5.0, 2, 0.2).ask(&page());
        let elapsed = start.elapsed().as_secs_f64();
        assert!(
            matches!(ex.result, Err(VisionError::Connect(_))),
            "{:?}",
            ex.result
        );
        assert_eq!(ex.diagnostics.attempts.len(), 3);
        let starts: Vec<_> = ex
            .diagnostics
            .attempts
            .iter()
            .map(|a| a.started_ms)
            .collect();
        for w in starts.windows(2) {
            let gap = w[1] - w[0];
            assert!(
                (195..900).contains(&gap),
                "attempts {gap} ms apart, delay 200 ms"
            );
        }
        assert!(elapsed < 2.0, "took {elapsed:.2} s");
    }

    #[test]
    fn give_up_stops_retrying() {
        let server = FakeOllama::failing_first(100, 500, SAMPLE_ANSWER);
        let ex = client(&server.endpoint(), 5.0, 5, 10.0).ask_until(&page(), &|| true);
        assert_eq!(ex.result, Err(VisionError::Status(500)));
        assert_eq!(server.chat_count(), 1);
    }

    #[test]
    fn check_model_present() {
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let r = vlm_check(&settings_for(&server.endpoint(), "qwen2.5vl:7b"));
        assert!(r.ok(), "{r:?}");
        assert_eq!(r.url, format!("{}/api/show", server.base_url()));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].path, "/api/show");
        assert_eq!(
            reqs[0].json().unwrap(),
            serde_json::json!({"name": "qwen2.5vl:7b"})
        );
        assert_eq!(reqs[0].header("content-type"), Some("application/json"));
    }

    #[test]
    fn check_model_missing() {
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let r = vlm_check(&settings_for(&server.endpoint(), "llava:13b"));
        assert!(r.backend_up && !r.model_present && !r.ok(), "{r:?}");
        assert!(r.message.contains("ollama pull llava:13b"), "{}", r.message);
    }

    #[test]
    fn check_backend_down() {
        let r = vlm_check(&settings_for(&closed_port_endpoint(), "qwen2.5vl:7b"));
        assert!(!r.backend_up && !r.model_present, "{r:?}");
        assert!(r.message.contains("not reachable"), "{}", r.message);
    }

    #[test]
    fn unreachable_kinds() {
        assert!(VisionError::Timeout.is_unreachable());
        assert!(VisionError::Connect("refused".into()).is_unreachable());
        assert!(!VisionError::Status(500).is_unreachable());
        assert!(!VisionError::BadBody("x".into()).is_unreachable());
    }
}
