//! Serves the test suite's fake Ollama (`colophon::fixtures::fake_ollama`) on
//! 127.0.0.1 for `scripts/perf.sh`: every chat request is answered after a
//! fixed delay, as a slow vision model would, so that a run with vision can
//! be timed without a GPU.
//!
//! ```text
//! cargo run --release --example fake_ollama -- [DELAY_SECONDS]   (default 1)
//! ```
//!
//! Prints the chat endpoint (for `VLM_ENDPOINT`) on the first line of
//! stdout, serves until stdin is closed, then prints how many chat
//! requests it answered.

use colophon::fixtures::fake_ollama;

use std::io::{Read, Write};
use std::time::Duration;

fn main() {
    let delay: f64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("DELAY_SECONDS is a number"))
        .unwrap_or(1.0);
    let server = fake_ollama::FakeOllama::slow(
        Duration::from_secs_f64(delay),
        fake_ollama::NOT_VISIBLE_ANSWER,
    );
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{}", server.endpoint());
    let _ = out.flush();
    // Serve until whoever started us closes our stdin.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    let _ = writeln!(out, "answered {} chat requests", server.chat_count());
}
