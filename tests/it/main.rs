//! colophon's integration tests, in one binary so that the library, the
//! shared helpers and the test harness are compiled and linked once
//! (`cargo test --test it`; filter by module, e.g. `cargo test --test it
//! reliability::`).
//!
//! Every test drives the built `colophon` binary in a temporary project
//! ([`util::TestProject`]) with fixture PDFs from `tests/fixtures` and PDFs
//! built by the tests ([`test_pdfs`]), and a fake Ollama on 127.0.0.1
//! ([`fake_ollama`]) for vision.

use colophon::fixtures::{fake_catalogue, fake_ollama, test_pdfs};
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

/// `show` is a look at some files: the library's latest run (what
/// `export`, `review` and `merge` read) stays the last `run`, and with
/// `--write` nothing is written, so `undo` has nothing of it to revert
/// (issue 38 point 3, issue 39 point 2).
#[test]
fn show_never_becomes_the_latest_run_and_never_writes() {
    let p = util::TestProject::new();
    p.add("paper_jss_stripped.pdf", "a.pdf");
    p.add("book-p03-asis.pdf", "b.pdf");
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    assert_eq!(records.len(), 2);
    let latest = p.root().join("cache/runs/latest");
    let run = std::fs::read_link(&latest).unwrap();

    let before = p.snapshot();
    let out = p
        .cmd()
        .args(["show", "data/a.pdf", "--write", "--json"])
        .output()
        .unwrap();
    util::assert_exit(&out, 0);
    assert_eq!(util::stdout(&out).lines().count(), 1);
    assert!(
        util::stderr(&out).contains("show only looks"),
        "{}",
        util::stderr(&out)
    );
    assert_eq!(p.snapshot(), before, "show --write changed data/");
    assert_eq!(std::fs::read_link(&latest).unwrap(), run);
    let records = std::fs::read_to_string(latest.join("records.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 2, "the run's records stay latest");
    assert!(p.root().join("cache/shows/latest/records.jsonl").is_file());

    let out = p
        .cmd()
        .args(["export", "--format", "csv", "--include-unsure", "-o"])
        .arg(p.root().join("lib.csv"))
        .output()
        .unwrap();
    util::assert_exit(&out, 0);
    let csv = std::fs::read_to_string(p.root().join("lib.csv")).unwrap();
    assert!(csv.contains("a.pdf") && csv.contains("b.pdf"), "{csv}");
    let out = p.cmd().arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    assert!(util::stdout(&out).contains("nothing to undo"));
}
