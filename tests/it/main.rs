//! colophon's integration tests, in one binary so that the library, the
//! shared helpers and the test harness are compiled and linked once
//! (`cargo test --test it`; filter by module, e.g. `cargo test --test it
//! reliability::`).
//!
//! Every test drives the built `colophon` binary in a temporary project
//! ([`util::TestProject`]) with fixture PDFs from `tests/fixtures` and PDFs
//! built by the tests ([`test_pdfs`]), and a fake Ollama on 127.0.0.1
//! ([`fake_ollama`]) for vision.

mod fake_catalogue;
mod fake_ollama;
mod test_pdfs;
mod util;

mod cli;
mod export;
mod generated_books;
mod ocr;
mod online;
mod reliability;
mod review;
mod shard;
mod vision;
