//! End-to-end vision tests: the built binary against a real HTTP server on
//! 127.0.0.1 that speaks the Ollama protocol (`colophon::fixtures::fake_ollama`),
//! started by each test and stopped when it is dropped.

use crate::fake_ollama::{FakeOllama, Reply, closed_port_endpoint};
use crate::util::{self, TestProject, record_for};
use std::time::Duration;

/// A scanned book: every page is an image without a text layer (OCR reads it).
const SCANNED: &str = "book-p03-scanned.pdf";

/// A project with one PDF of two photo pages (no text, none for OCR either).
fn photo_project(rel: &str) -> TestProject {
    let p = TestProject::new();
    util::photo_pdf(&p.data().join(rel), 2);
    p
}
const TEXT_BOOK: &str = "book-p03-asis.pdf";

const COVER_ANSWER: &str = "Title: The Lantern Keepers\nSubtitle: Not visible\nAuthor: Mirela Castellanos and Ode Winterbourne\nPublisher: Not visible\nEdition: Not visible\nYear: 1984\nISBN: Not visible\nDOI: Not visible\nLOC: Not visible";

fn vision_config(p: &TestProject, endpoint: &str, extra: &str) {
    p.config(&format!(
        "ANALYZE_WITH_VISION = true\nVLM_ENDPOINT = \"{endpoint}\"\nVLM_RETRY_DELAY = 0.2\nVLM_TIMEOUT = 5\n{extra}\n[MATTER_CONFIG.front]\nmax_pages = 2\n"
    ));
}

#[test]
fn photo_pages_get_title_and_author_from_vision_and_a_rerun_sends_nothing() {
    let server = FakeOllama::answering(COVER_ANSWER);
    let p = photo_project("scan.pdf");
    vision_config(&p, &server.endpoint(), "");
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    let r = record_for(&records, "scan.pdf");
    assert_eq!(r["metadata"]["title"], "The Lantern Keepers", "{r:#}");
    assert_eq!(r["metadata"]["authors"].as_array().unwrap().len(), 2);
    assert_eq!(r["sources"]["title"]["via"], "vision");
    assert_eq!(r["status"], "complete");
    // Both front pages are full-page images (ratio ≥ 0.9): both are sent.
    assert_eq!(r["vision"]["pages"], serde_json::json!([1, 2]));
    assert_eq!(server.chat_count(), 2);
    let req = &server.chat_requests()[0];
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.model().as_deref(), Some("qwen2.5vl:7b"));
    assert!(req.prompt().unwrap().contains("Not visible"));
    assert_eq!(req.images().len(), 1);
    let diag = p.root().join("cache/runs/latest/diagnostics/scan");
    let vlm: serde_json::Value =
        serde_json::from_slice(&std::fs::read(diag.join("page-1.vlm.json")).unwrap()).unwrap();
    assert!(
        !vlm.to_string().contains(&req.images()[0][..100]),
        "no image in the diagnostics"
    );
    assert!(diag.join("page-1.png").exists());

    // Rerun: nothing is sent (record cache); with other front pages the
    // record is recomputed but the answers come from the vision cache.
    p.run_json(&["run"]);
    assert_eq!(server.chat_count(), 2);
    p.run_json(&["run", "--front-pages", "1"]);
    assert_eq!(server.chat_count(), 2);
    assert_eq!(p.summary()["vision answers from the cache"], 1);

    // Another model asks again.
    p.config(&format!(
        "ANALYZE_WITH_VISION = true\nVLM_ENDPOINT = \"{}\"\nVLM_MODEL = \"llava:13b\"\n[MATTER_CONFIG.front]\nmax_pages = 2\n",
        server.endpoint()
    ));
    p.run_json(&["run"]);
    assert_eq!(server.chat_count(), 4);
    assert_eq!(
        server.chat_requests()[3].model().as_deref(),
        Some("llava:13b")
    );
}

#[test]
fn server_errors_are_retried_then_the_page_goes_on_without_vision() {
    // 500 for the first 3 requests: page 1 fails after 1 + 2 retries;
    // page 2 gets an answer.
    let server = FakeOllama::failing_first(3, 500, COVER_ANSWER);
    let p = photo_project("scan.pdf");
    p.add(TEXT_BOOK, "text.pdf");
    vision_config(
        &p,
        &server.endpoint(),
        "VLM_MAX_RETRIES = 2\nVLM_CONCURRENCY = 1\n",
    );
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "vision failures are not PDF errors"
    );
    // With one caller, the first page taken gets all three 500s; which
    // document's page that is depends on scheduling. Exactly one page failed.
    let failed: usize = records
        .iter()
        .map(|r| r["vision"]["failed"].as_array().unwrap().len())
        .sum();
    assert_eq!(failed, 1, "{records:#?}");
    let sent: usize = records
        .iter()
        .map(|r| r["vision"]["pages"].as_array().unwrap().len())
        .sum();
    assert_eq!(sent, 3, "two scanned pages and the text book's first page");
    // 3 attempts on page 1, 1 on page 2, 1 on the text book's first page.
    assert_eq!(server.chat_count(), 5);
    let times: Vec<_> = server.chat_requests().iter().map(|r| r.at).collect();
    let first_page: Vec<_> = times.iter().take(3).collect();
    for w in first_page.windows(2) {
        let gap = w[1].duration_since(*w[0]);
        assert!(
            gap >= Duration::from_millis(180),
            "retry delay respected: {gap:?}"
        );
    }
    assert_eq!(record_for(&records, "text.pdf")["status"], "complete");
    assert_eq!(
        record_for(&records, "scan.pdf")["metadata"]["title"],
        "The Lantern Keepers"
    );
    assert_eq!(p.summary()["vision pages failed"], 1);
    // A failed page is asked again on the next run (failures are not cached).
    p.run_json(&["run"]);
    assert!(server.chat_count() >= 6);
}

#[test]
fn an_unreachable_backend_switches_vision_off_and_the_run_goes_on() {
    let p = TestProject::new();
    p.add(SCANNED, "a.pdf");
    p.add(SCANNED, "b.pdf");
    p.add(TEXT_BOOK, "c.pdf");
    vision_config(&p, &closed_port_endpoint(), "VLM_MAX_RETRIES = 1\n");
    let out = p.cmd().args(["run", "--json"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("switched off").count() + err.matches("switching vision off").count(),
        1,
        "one clear message: {err}"
    );
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 3);
    assert_eq!(
        record_for(&records, "c.pdf")["status"],
        "complete",
        "text layer still read"
    );
}

#[test]
fn answers_that_are_not_json_or_too_slow_are_failed_attempts() {
    let p = TestProject::new();
    p.add(SCANNED, "scan.pdf");
    let bad = FakeOllama::not_json();
    vision_config(
        &p,
        &bad.endpoint(),
        "VLM_MAX_RETRIES = 1\n[VISION_ANALYSIS_THRESHOLDS]\nfull_page_image_ratio = 1.0\nearly_pages_cutoff = 1\nlow_ocr_confidence = 0\n",
    );
    let (out, records) = p.run_json(&["run", "--front-pages", "1"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(records[0]["vision"]["failed"], serde_json::json!([1]));
    assert_eq!(bad.chat_count(), 2, "one attempt and one retry");

    // A reply ten times later than the whole run takes on a loaded
    // machine (OCR of the scanned page included): only the 0.5 s timeout
    // can have ended the wait.
    let slow = FakeOllama::slow(Duration::from_secs(30), COVER_ANSWER);
    p.config(&format!(
        "ANALYZE_WITH_VISION = true\nVLM_ENDPOINT = \"{}\"\nVLM_TIMEOUT = 0.5\nVLM_MAX_RETRIES = 0\n[MATTER_CONFIG.front]\nmax_pages = 1\n",
        slow.endpoint()
    ));
    let started = std::time::Instant::now();
    let (_, records) = p.run_json(&["run"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the timeout cut the wait"
    );
    assert_eq!(records[0]["vision"]["failed"], serde_json::json!([1]));
    assert_eq!(slow.chat_count(), 1);
}

#[test]
fn not_visible_everywhere_adds_nothing_and_vision_off_sends_nothing() {
    let server = FakeOllama::answering(crate::fake_ollama::NOT_VISIBLE_ANSWER);
    let p = photo_project("scan.pdf");
    vision_config(&p, &server.endpoint(), "");
    let (_, records) = p.run_json(&["run"]);
    assert!(
        records[0]["metadata"]["title"].is_null(),
        "{:#}",
        records[0]
    );
    assert_eq!(records[0]["vision"]["failed"], serde_json::json!([]));
    assert_eq!(server.chat_count(), 2);

    // A text book's cover page is sent when vision is on (see
    // server_errors_are_retried_then_the_page_goes_on_without_vision); with
    // only an endpoint set, nothing is. (A text book rather than the scanned
    // one: the same question without OCRing a whole book, 15 CPU-s.)
    let p2 = TestProject::new();
    p2.add(TEXT_BOOK, "book.pdf");
    p2.config(&format!(
        "VLM_ENDPOINT = \"{}\"\n[MATTER_CONFIG.front]\nmax_pages = 2\n",
        server.endpoint()
    ));
    let (_, records) = p2.run_json(&["run"]);
    assert_eq!(records[0]["vision"]["pages"], serde_json::json!([]));
    assert_eq!(
        server.chat_count(),
        2,
        "ANALYZE_WITH_VISION is off by default"
    );
}

/// Issue 16: two vision hosts share the pages by load; one that stops
/// halfway is switched off once, and its pages go to the other.
#[test]
fn two_hosts_share_the_pages_and_one_that_stops_is_switched_off_once() {
    let answer = || {
        Reply::delayed(
            Duration::from_millis(150),
            Reply::Answer(COVER_ANSWER.into()),
        )
    };
    let a = FakeOllama::start(move |_, _| answer());
    let b = FakeOllama::start(move |_, _| answer());
    let p = TestProject::new();
    for i in 0..12 {
        util::photo_pdf_variant(&p.data().join(format!("scan-{i}.pdf")), 1, i + 1);
    }
    let b_endpoint = b.endpoint();
    p.config(&format!(
        "ANALYZE_WITH_VISION = true\nVLM_ENDPOINTS = [\"{}\", \"{b_endpoint}\"]\n\
         VLM_CONCURRENCY = 2\nVLM_MAX_RETRIES = 1\nVLM_RETRY_DELAY = 0.05\nVLM_TIMEOUT = 5\nOCR_DPI = 72\n\
         [MATTER_CONFIG.front]\nmax_pages = 1\n",
        a.endpoint()
    ));
    let mut child = p
        .cmd()
        .args(["run", "--json", "--jobs", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stop host B once it has answered two pages (12 pages in all): with
    // ties going to the host sent fewer pages, B is asked first for at
    // least every other page after that, so it fails three in a row.
    while b.chat_count() < 2 {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            panic!(
                "the run ended before B answered two pages: {}",
                util::stderr(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (a_before, b_before) = (a.chat_count(), b.chat_count());
    drop(b);
    let out = child.wait_with_output().unwrap();
    util::assert_exit(&out, 0);
    let records: Vec<serde_json::Value> = util::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 12);
    for r in &records {
        assert_eq!(r["vision"]["pages"], serde_json::json!([1]), "{r:#}");
        assert_eq!(
            r["vision"]["failed"],
            serde_json::json!([]),
            "no page lost: {r:#}"
        );
        assert_eq!(r["status"], "complete");
    }
    // Both hosts worked at once before B stopped; A answered the rest.
    assert!(a_before >= 1, "A idle while B worked: {a_before}");
    assert_eq!(a.chat_count() + b_before, 12, "every page answered once");
    let err = util::stderr(&out);
    assert_eq!(
        err.matches(&format!("vision host {b_endpoint} switched off"))
            .count(),
        1,
        "{err}"
    );
    assert!(!err.contains("vision switched off"), "{err}");
    // The run's summary counts each host's pages.
    let end: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(p.root().join("cache/runs/latest/summary.json")).unwrap(),
    )
    .unwrap();
    let hosts = end["summary"]["vision_hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2, "{end:#}");
    let (ha, hb) = (&hosts[0], &hosts[1]);
    assert_eq!(ha["endpoint"], a.endpoint().as_str());
    assert_eq!(ha["answered"], a.chat_count() as u64, "{end:#}");
    assert_eq!(ha["failed"], 0);
    assert_eq!(ha["switched_off"], false);
    assert_eq!(hb["endpoint"], b_endpoint.as_str());
    assert_eq!(hb["answered"], b_before as u64, "{end:#}");
    assert!(hb["failed"].as_u64().unwrap() >= 3, "{end:#}");
    assert_eq!(hb["switched_off"], true);
    for h in hosts {
        assert_eq!(
            h["sent"].as_u64(),
            Some(h["answered"].as_u64().unwrap() + h["failed"].as_u64().unwrap()),
            "{end:#}"
        );
    }
    let md = std::fs::read_to_string(p.root().join("cache/runs/latest/summary.md")).unwrap();
    assert!(md.contains("## Vision hosts"), "{md}");
    assert!(md.contains(&format!("| {b_endpoint} | ")), "{md}");
}
