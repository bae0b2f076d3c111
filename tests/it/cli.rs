//! End-to-end tests of the `colophon` binary on real PDFs (tests/fixtures,
//! copied from the team corpus; see tests/fixtures/SOURCES.md) and on
//! broken files made by the tests.

use crate::test_pdfs::SyntheticPdf;
use crate::util::{self, TestProject, record_for};

const PAPER: &str = "paper_jss_stripped.pdf";
const BOOK: &str = "book-p03-asis.pdf";

#[test]
fn every_pdf_gets_a_record_and_broken_ones_fail_alone() {
    let p = TestProject::new();
    p.add(PAPER, "papers/a.pdf");
    p.add(BOOK, "books/b.pdf");
    let good = std::fs::read(util::fixture(PAPER)).unwrap();
    p.write("broken/truncated.pdf", &good[..good.len() / 3]);
    p.write(
        "broken/not-a-pdf.pdf",
        b"<html>this is a web page saved as pdf</html>",
    );
    p.write("broken/empty.pdf", b"");
    p.add("encrypted_should_fail.pdf", "broken/encrypted.pdf");
    p.write("notes.txt", b"not a pdf and not named like one");

    let before = p.snapshot();
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "some PDFs failed: exit 1; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(records.len(), 6, "one record per PDF, none for notes.txt");
    for ok in ["papers/a.pdf", "books/b.pdf"] {
        let r = record_for(&records, ok);
        assert_ne!(r["status"], "error", "{ok}: {r:#}");
        assert!(r["pages"].as_u64().unwrap() > 1);
        assert_eq!(r["blake3"].as_str().unwrap().len(), 64);
    }
    for bad in [
        "broken/truncated.pdf",
        "broken/not-a-pdf.pdf",
        "broken/empty.pdf",
        "broken/encrypted.pdf",
    ] {
        let r = record_for(&records, bad);
        assert_eq!(r["status"], "error", "{bad}: {r:#}");
        assert!(
            r["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{bad} says why"
        );
    }
    assert!(
        record_for(&records, "broken/not-a-pdf.pdf")["error"]
            .as_str()
            .unwrap()
            .contains("not a PDF")
    );
    assert!(
        record_for(&records, "broken/encrypted.pdf")["error"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("password")
            || record_for(&records, "broken/encrypted.pdf")["error"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("encrypt")
    );
    assert_eq!(
        p.snapshot(),
        before,
        "a dry run changes nothing under data/"
    );
    let latest = p.root().join("cache/runs/latest");
    assert_eq!(
        std::fs::read_to_string(latest.join("records.jsonl"))
            .unwrap()
            .lines()
            .count(),
        6
    );
}

#[test]
fn rerun_computes_nothing_and_front_pages_change_recomputes_records_only() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    p.add(BOOK, "b.pdf");
    // No value is sure at 1.0, so front matter is read to its bound.
    p.config("MIN_CONFIDENCE = 1.0\n");
    let (out, first) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    let s = p.summary();
    assert_eq!(s["records computed"], 2);
    assert_eq!(s["hashes computed"], 2);
    assert!(s["pages read by pdfium"] >= 8);

    let (_, second) = p.run_json(&["run"]);
    let s = p.summary();
    assert_eq!(s["records from the cache"], 2);
    assert_eq!(s["records computed"], 0);
    assert_eq!(s["hashes from the stat memo"], 2);
    assert_eq!(s["hashes computed"], 0);
    assert_eq!(s["documents opened"], 0, "a warm run starts no PDF work");
    assert_eq!(s["pages read by pdfium"], 0);
    let strip = |v: &[serde_json::Value]| {
        let mut v: Vec<_> = v.iter().map(|r| r.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(strip(&first), strip(&second), "same records from the cache");

    // More front pages: the records are recomputed, but only the new pages are read.
    let (_, third) = p.run_json(&["run", "--front-pages", "10"]);
    let s = p.summary();
    assert_eq!(s["records computed"], 2);
    assert_eq!(
        s["pages from the cache"], 16,
        "the first 8 pages of each come from the cache"
    );
    assert_eq!(
        s["pages read by pdfium"], 4,
        "pages 9 and 10 of each are read"
    );
    assert_eq!(
        record_for(&third, "a.pdf")["pages_read"]["front"]
            .as_array()
            .unwrap()
            .len(),
        10
    );

    // --rehash reads the files again but finds the same records.
    p.run_json(&["run", "--front-pages", "10", "--rehash"]);
    let s = p.summary();
    assert_eq!(s["hashes computed"], 2);
    assert_eq!(s["records from the cache"], 2);
}

/// The seed's page contract by default: offset 0, front 3, back `always`
/// 2 reads exactly pages 0–2 and the last two pages of every document;
/// `front.stop_when_sure` reads fewer where the values are sure early.
#[test]
fn the_configured_pages_are_processed_unless_reading_may_stop_when_sure() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    p.add(BOOK, "b.pdf");
    p.add("wild_beamer_theme_manual.pdf", "c.pdf");
    let contract = "PAGE_NUM_OFFSET = 0\n\
                    MATTER_CONFIG.front.max_pages = 3\n\
                    MATTER_CONFIG.back.mode = \"always\"\n\
                    MATTER_CONFIG.back.max_pages = 2\n";
    let pages_of = |r: &serde_json::Value, k: &str| -> Vec<u64> {
        r["pages_read"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    p.config(contract);
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0), "{}", util::stderr(&out));
    assert_eq!(records.len(), 3);
    let mut front_read = 0;
    for r in &records {
        let n = r["pages"].as_u64().unwrap();
        assert!(n > 5, "{r}");
        assert_eq!(pages_of(r, "front"), vec![0, 1, 2], "{r}");
        assert_eq!(pages_of(r, "back"), vec![n - 2, n - 1], "{r}");
        front_read += 3;
    }
    let summary = p.summary();
    let read: u64 = summary
        .iter()
        .filter(|(k, _)| k.starts_with("pages read by"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(read, front_read + 6, "{summary:?}");

    p.config(&format!(
        "{contract}MATTER_CONFIG.front.stop_when_sure = true\n"
    ));
    let (_, records) = p.run_json(&["run"]);
    let fewer = records
        .iter()
        .filter(|r| pages_of(r, "front").len() < 3)
        .count();
    assert!(fewer >= 1, "{records:?}");
    for r in &records {
        let front = pages_of(r, "front");
        assert_eq!(front, (0..front.len() as u64).collect::<Vec<_>>(), "{r}");
    }
}

#[test]
fn front_matter_stops_once_title_authors_and_year_are_sure() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    p.config("MATTER_CONFIG.front.stop_when_sure = true\n");
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let r = record_for(&records, "a.pdf");
    let pages = r["pages"].as_u64().unwrap();
    let front: Vec<u64> = r["pages_read"]["front"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    // The paper prints its title, authors and date on its first pages:
    // reading stops at a batch end (after 2 or 4 pages), short of the 8.
    assert!(pages > 8, "{pages}");
    let read = front.len() as u64;
    assert!(read == 2 || read == 4, "{r}");
    assert_eq!(front, (1..=read).collect::<Vec<u64>>(), "{r}");
    assert!(r["metadata"]["title"].is_string(), "{r}");
    assert!(r["metadata"]["year"].is_u64(), "{r}");
    assert!(!r["metadata"]["authors"].as_array().unwrap().is_empty());
    assert_eq!(p.summary()["pages read by pdfium"], read);

    // Asking for more certainty than any value has reads up to the bound,
    // and only the pages not read before.
    p.config("MIN_CONFIDENCE = 1.0\nMATTER_CONFIG.front.stop_when_sure = true\n");
    let (_, records) = p.run_json(&["run"]);
    let r = record_for(&records, "a.pdf");
    assert_eq!(r["pages_read"]["front"].as_array().unwrap().len(), 8, "{r}");
    let s = p.summary();
    assert_eq!(s["pages from the cache"], read);
    assert_eq!(s["pages read by pdfium"], 8 - read);
}

#[test]
fn page_numbers_follow_the_offset_and_back_modes_select_pages() {
    let p = TestProject::new();
    p.add(BOOK, "b.pdf");
    let pages = {
        let (_, r) = p.run_json(&["run", "--front-pages", "3"]);
        r[0]["pages"].as_u64().unwrap() as u32
    };
    let front_back = |args: &[&str], toml: &str| {
        p.config(toml);
        let (out, r) = p.run_json(args);
        assert!(out.status.success() || out.status.code() == Some(1));
        let pr = &r[0]["pages_read"];
        let v = |k: &str| {
            pr[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect::<Vec<_>>()
        };
        (v("front"), v("back"))
    };
    let (f, b) = front_back(
        &[
            "run",
            "--front-pages",
            "3",
            "--back-mode",
            "always",
            "--back-pages",
            "2",
        ],
        // No value is sure at 1.0, so front matter is read to its bound.
        "PAGE_NUM_OFFSET = 1\nMIN_CONFIDENCE = 1.0\n",
    );
    assert_eq!(f, vec![1, 2, 3]);
    assert_eq!(b, vec![pages - 1, pages]);
    // Diagnostics are written when a document is computed: start afresh.
    std::fs::remove_dir_all(p.root().join("cache")).unwrap();
    let (f, b) = front_back(
        &[
            "run",
            "--front-pages",
            "3",
            "--back-mode",
            "always",
            "--back-pages",
            "2",
        ],
        "PAGE_NUM_OFFSET = 0\nMIN_CONFIDENCE = 1.0\n",
    );
    assert_eq!(f, vec![0, 1, 2]);
    assert_eq!(b, vec![pages - 2, pages - 1]);
    let diag = p.root().join("cache/runs/latest/diagnostics/b");
    assert!(
        diag.join("page-0.txt").exists(),
        "diagnostic names follow offset 0"
    );
    let (f, b) = front_back(
        &["run", "--front-pages", "10000", "--back-mode", "always"],
        "MIN_CONFIDENCE = 1.0\n",
    );
    assert_eq!(
        f.len() as u32,
        pages,
        "max_pages larger than the document reads it all"
    );
    assert!(b.is_empty(), "no page is read twice");
    let (_, b) = front_back(&["run", "--back-mode", "never", "--back-pages", "4"], "");
    assert!(b.is_empty());
}

#[test]
fn invalid_settings_stop_before_any_work() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    /// colophon.toml, environment, flags, and what the message must name.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str], &'a str);
    let cases: &[Case] = &[
        ("", &[("PAGE_NUM_OFFSET", "7")], &[], "PAGE_NUM_OFFSET"),
        (
            "[MATTER_CONFIG.back]\nmode = \"sometimes\"\n",
            &[],
            &[],
            "sometimes",
        ),
        (
            "[VISION_ANALYSIS_THRESHOLDS]\nfull_page_image_ratio = 1.5\n",
            &[],
            &[],
            "full_page_image_ratio",
        ),
        ("NO_SUCH_SETTING = 1\n", &[], &[], "NO_SUCH_SETTING"),
        ("", &[], &["--back-mode", "sometimes"], "sometimes"),
    ];
    for (toml, env, args, needle) in cases {
        p.config(toml);
        let mut c = p.cmd();
        c.arg("run").args(*args);
        for (k, v) in *env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{toml} {env:?} {args:?}: {err}");
        assert!(err.contains(needle), "message names {needle}: {err}");
        assert!(!p.root().join("cache/runs").exists(), "nothing ran");
    }
}

#[test]
fn a_worker_that_cannot_start_stops_the_run_with_exit_2() {
    // WORKER_EXECUTABLE is a setting: read from the environment and from
    // the config file alike (the environment would win over the file, so
    // the file case takes the test environment's value away).
    let missing = "/nonexistent/colophon";
    for from_file in [false, true] {
        let p = TestProject::new();
        p.add(PAPER, "a.pdf");
        p.add(BOOK, "b.pdf");
        let mut cmd = p.cmd();
        if from_file {
            p.config(&format!("WORKER_EXECUTABLE = \"{missing}\"\n"));
            cmd.env_remove("WORKER_EXECUTABLE");
        } else {
            cmd.env("WORKER_EXECUTABLE", missing);
        }
        let out = cmd.args(["run", "-q"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "from the file: {from_file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot start a PDF worker"), "{err}");
    }
}

#[test]
fn write_mode_appends_metadata_renames_and_undo_restores_every_byte() {
    let p = TestProject::new();
    p.add(BOOK, "shelf/b.pdf");
    p.add(BOOK, "shelf/b-copy.pdf"); // same book twice: the second name gets " (2)"
    p.add("write_xref_stream_objstm.pdf", "x.pdf");
    p.add(BOOK, "_ignore/kept.pdf");
    let before = p.snapshot();

    let (out, records) = p.run_json(&["run", "--write"]);
    util::assert_exit(&out, 0);
    assert!(
        !record_for(&records, "_ignore/kept.pdf")["written"]
            .as_bool()
            .unwrap()
    );
    assert!(
        record_for(&records, "shelf/b.pdf")["written"]
            .as_bool()
            .unwrap()
    );
    let after = p.snapshot();
    assert_eq!(
        after[std::path::Path::new("_ignore/kept.pdf")],
        before[std::path::Path::new("_ignore/kept.pdf")]
    );
    let shelf: Vec<_> = std::fs::read_dir(p.data().join("shelf"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let main_name = "Thornquist, Hume - Weaving on Simple Looms (1972).pdf";
    let second = "Thornquist, Hume - Weaving on Simple Looms (1972) (2).pdf";
    assert!(
        shelf.contains(&main_name.to_string()) && shelf.contains(&second.to_string()),
        "{shelf:?}"
    );
    assert!(
        shelf.contains(&"Thornquist, Hume - Weaving on Simple Looms (1972)--ann.json".to_string())
    );
    assert!(
        !shelf.iter().any(|n| n == "b.pdf" || n == "b-copy.pdf"),
        "old names are gone: {shelf:?}"
    );
    assert!(
        !shelf.iter().any(|n| n.starts_with(".colophon-tmp")),
        "no temporary file left"
    );

    let original = std::fs::read(util::fixture(BOOK)).unwrap();
    for name in [main_name, second] {
        let written = p.data().join("shelf").join(name);
        let bytes = std::fs::read(&written).unwrap();
        assert!(
            bytes.starts_with(&original),
            "the original is a byte prefix"
        );
        assert!(bytes.len() > original.len());
        let check = std::process::Command::new("qpdf")
            .arg("--check")
            .arg(&written)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "qpdf --check: {}",
            String::from_utf8_lossy(&check.stdout)
        );
        let info = std::process::Command::new("pdfinfo")
            .arg(&written)
            .output()
            .unwrap();
        let info = String::from_utf8_lossy(&info.stdout);
        assert!(info.contains("Weaving on Simple Looms"), "{info}");
        assert!(
            info.contains("Agnes Thornquist; Beatrice L. Hume"),
            "{info}"
        );
    }

    // A second write run changes no byte and is answered from the cache.
    let written_state = p.snapshot();
    p.run_json(&["run", "--write"]);
    assert_eq!(p.snapshot(), written_state);
    let s = p.summary();
    assert_eq!(s["written"], 0);
    assert_eq!(s["records computed"], 0);
    assert_eq!(s["hashes computed"], 0);

    // Undo gives back the original names and bytes.
    let out = p.cmd().arg("undo").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(p.snapshot(), before, "the library is as it was before");
}

#[test]
fn fallback_reads_back_matter_only_when_a_wanted_field_is_missing() {
    let p = TestProject::new();
    p.add(BOOK, "b.pdf");
    let run = |fields: &str| {
        p.config(&format!(
            "[MATTER_CONFIG.front]\nmax_pages = 4\n[MATTER_CONFIG.back]\nmode = \"fallback\"\nmax_pages = 3\nfields = {{ {fields} }}\n"
        ));
        let (out, r) = p.run_json(&["run"]);
        assert_eq!(out.status.code(), Some(0));
        r[0]["pages_read"]["back"].as_array().unwrap().len()
    };
    // Title, authors, ISBN and LCCN are all on the first four pages.
    assert_eq!(
        run("isbn = true, loc = true"),
        0,
        "nothing wanted is missing"
    );
    // This book prints no edition: wanting one sends colophon to the back.
    assert_eq!(run("edition = true"), 3);
    assert_eq!(
        p.summary()["pages read by pdfium"],
        3,
        "front pages came from the cache"
    );
}

#[test]
fn a_rerun_links_unchanged_exports_and_still_deletes_the_oldest_surplus_run() {
    use std::os::unix::fs::MetadataExt;
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let runs = p.root().join("cache/runs");
    let latest = || runs.join(std::fs::read_link(runs.join("latest")).unwrap());
    let (out, _) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let first = latest();
    // Twelve older runs: with the two real ones, four beyond the ten kept.
    for day in 10..22 {
        std::fs::create_dir_all(runs.join(format!("202601{day}-120000-77/ann"))).unwrap();
    }
    let (out, r) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(p.summary()["records computed"], 0, "{r:?}");
    let second = latest();
    assert_ne!(first, second);
    for name in ["a--ann.json", "a--ann.md"] {
        let (a, b) = (
            std::fs::metadata(first.join("ann").join(name)).unwrap(),
            std::fs::metadata(second.join("ann").join(name)).unwrap(),
        );
        assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()), "{name} is shared");
    }
    // Nothing was computed, so no pruning thread ran; the end of the run
    // still deletes the oldest surplus folder, and only that one.
    assert!(!runs.join("20260110-120000-77").exists());
    assert!(runs.join("20260111-120000-77").exists());
}

#[test]
fn page_texts_are_files_that_stats_counts_and_clear_removes() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let (out, _) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let stats = p.cmd().args(["cache", "stats"]).output().unwrap();
    let stats = String::from_utf8_lossy(&stats.stdout).into_owned();
    let page_line = stats
        .lines()
        .find(|l| l.starts_with("page "))
        .unwrap_or_else(|| panic!("no page line in:\n{stats}"));
    assert!(
        page_line.contains(" 1 entries"),
        "one document's file: {page_line}"
    );
    assert!(p.root().join("cache/pages").is_dir());

    let clear = p.cmd().args(["cache", "clear"]).output().unwrap();
    assert_eq!(clear.status.code(), Some(0));
    assert!(!p.root().join("cache/pages").exists());
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let read = records[0]["pages_read"]["front"].as_array().unwrap().len();
    assert!(read >= 2, "{read}");
    assert_eq!(
        p.summary()["pages read by pdfium"],
        read as u64,
        "pages read again"
    );
}

#[test]
fn old_run_folders_go_and_the_newest_ten_stay() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let runs = p.root().join("cache/runs");
    std::fs::create_dir_all(&runs).unwrap();
    // Twelve earlier runs, the oldest with a file in it, and a folder of
    // the user's that is not a run.
    for day in 10..22 {
        let dir = runs.join(format!("202601{day}-120000-77"));
        std::fs::create_dir_all(dir.join("ann")).unwrap();
        std::fs::write(dir.join("ann/x--ann.json"), "{}").unwrap();
    }
    std::fs::create_dir(runs.join("my-notes")).unwrap();
    let (out, _) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    // The run deletes old folders while it works, without waiting for
    // the rest; `cache prune` finishes the job.
    let out = p.cmd().args(["cache", "prune"]).output().unwrap();
    util::assert_exit(&out, 0);

    let mut left: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let latest = std::fs::read_link(runs.join("latest")).unwrap();
    let mut want: Vec<String> = (13..22).map(|d| format!("202601{d}-120000-77")).collect();
    want.push(latest.to_string_lossy().into_owned());
    want.push("latest".into());
    want.push("my-notes".into());
    want.sort();
    assert_eq!(left, want, "the ten newest runs (this one included) stay");
    assert!(runs.join("latest/records.jsonl").exists());
}

#[test]
fn verbose_says_where_each_stage_got_its_result() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let run = || {
        let out = p.cmd().args(["run", "-v", "--json"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let first = run();
    let line = first
        .lines()
        .find(|l| l.starts_with("a.pdf: "))
        .unwrap_or_else(|| panic!("no line for a.pdf in:\n{first}"));
    let read = p.summary()["pages read by pdfium"];
    assert!(read >= 2, "{read}");
    assert!(
        line.starts_with(&format!(
            "a.pdf: hashed; record computed: {read} pages read, 0 from the cache; 0 OCRed"
        )),
        "{line}"
    );
    assert!(first.contains("records computed"), "{first}");

    let second = run();
    assert!(
        second
            .lines()
            .any(|l| l == "a.pdf: hash from the stat memo; record from the cache"),
        "{second}"
    );
    // Without -v neither appears.
    let out = p.cmd().args(["run", "--json"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("a.pdf: "));
}

#[test]
fn min_confidence_decides_what_is_proposed_and_unsure_values_stay_visible() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    // Everything the ranker found, with its probability.
    p.config("MIN_CONFIDENCE = 0.0\n");
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let r = record_for(&records, "a.pdf");
    let title = r["metadata"]["title"].as_str().expect("a title at 0.0");
    let conf = r["sources"]["title"]["confidence"]
        .as_f64()
        .expect("the title's probability");
    assert!(conf > 0.0 && conf <= 1.0, "{conf}");
    assert!(r["proposed_filename"].is_string());

    // Above every probability: nothing is proposed or named; the values
    // are kept as unsure, in the record and in the annotation export.
    p.config("MIN_CONFIDENCE = 1.0\n");
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let r = record_for(&records, "a.pdf");
    assert!(r["metadata"]["title"].is_null(), "{r}");
    assert_eq!(r["unsure"]["title"].as_str(), Some(title));
    assert_eq!(r["status"], "incomplete");
    assert!(r["proposed_filename"].is_null(), "{r}");
    let ann = std::fs::read_dir(p.root().join("cache/runs/latest/ann"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with("--ann.md"))
        .expect("an --ann.md export");
    let md = std::fs::read_to_string(ann.path()).unwrap();
    assert!(md.contains("(unsure)"), "{md}");
}

#[test]
fn candidates_json_and_vv_explain_why_a_value_won() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let out = p.cmd().args(["run", "-vv", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let top: Vec<&str> = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("title #"))
        .collect();
    assert!(!top.is_empty() && top.len() <= 3, "{stderr}");
    assert!(top[0].contains("p="), "{}", top[0]);

    let path = p
        .root()
        .join("cache/runs/latest/diagnostics/a/candidates.json");
    let list: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&path).expect("candidates.json")).unwrap();
    let chosen: Vec<&serde_json::Value> = list
        .iter()
        .filter(|c| c["field"] == "title" && c["chosen"] == true)
        .collect();
    assert_eq!(chosen.len(), 1);
    assert!(chosen[0]["features"]["size_ratio"].as_f64().is_some());
    // With -v only, no candidate lines.
    let out = p.cmd().args(["run", "-v", "--json"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("title #1"));
}

/// The title candidates of document `stem` in the latest run's
/// `candidates.json`.
fn title_candidates(p: &TestProject, stem: &str) -> Vec<serde_json::Value> {
    let list: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(p.root().join(format!(
            "cache/runs/latest/diagnostics/{stem}/candidates.json"
        )))
        .unwrap(),
    )
    .unwrap();
    list.into_iter().filter(|c| c["field"] == "title").collect()
}

#[test]
fn title_needs_the_learned_weights() {
    // A package manual without metadata: the finders' rule scores put a
    // line of its contents ("9.1 9.2 \SetQuote 9.4 …") first; the trained
    // ranker takes the heading of the first page.
    let p = TestProject::new();
    p.add("wild_calendar_code_manual_stripped.pdf", "m.pdf");
    // No value is sure at 1.0, so every front page is read.
    p.config("MIN_CONFIDENCE = 1.0\n");
    let (out, _) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let titles = title_candidates(&p, "m");
    let score = |c: &serde_json::Value| c["score"].as_f64().unwrap();
    let by_rule = titles
        .iter()
        .max_by(|a, b| score(a).total_cmp(&score(b)))
        .expect("a title candidate");
    let chosen = titles
        .iter()
        .find(|c| c["chosen"] == true)
        .expect("a title");
    let text = |c: &serde_json::Value| c["value"]["Text"].as_str().unwrap().to_lowercase();
    assert_eq!(text(chosen), "wallcalendar code documentation");
    assert_ne!(
        text(by_rule),
        text(chosen),
        "the rule would have chosen it too"
    );
}

#[test]
fn the_ranker_gives_a_manuals_slide_headings_no_chance() {
    // On this manual set as slides the finders' rules rank slide headings
    // ("» Defined Colors") close to the title; the trained ranker gives
    // the title a sure probability and the headings next to none.
    let p = TestProject::new();
    p.add("wild_beamer_theme_manual.pdf", "m.pdf");
    // No value is sure at 1.0, so all eight front pages (and their slide
    // headings) are read; the title stays in `unsure`.
    p.config("MIN_CONFIDENCE = 1.0\n");
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let titles = title_candidates(&p, "m");
    let titles: Vec<&serde_json::Value> = titles.iter().collect();
    let number = |c: &serde_json::Value, k: &str| c[k].as_f64().unwrap();
    let chosen = titles
        .iter()
        .find(|c| c["chosen"] == true)
        .expect("a title");
    assert!(number(chosen, "probability") >= 0.9, "{chosen}");
    let headings: Vec<&&serde_json::Value> = titles
        .iter()
        .filter(|c| c["chosen"] != true && number(c, "score") >= number(chosen, "score") * 0.5)
        .collect();
    assert!(!headings.is_empty(), "no heading the rules rank close");
    for h in headings {
        assert!(number(h, "probability") < 0.05, "{h}");
    }
    let title = record_for(&records, "m.pdf")["unsure"]["title"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(title.starts_with("Beamer Theme"), "{title}");
}

#[test]
fn turned_text_reads_in_its_own_direction() {
    // A side stamp going up the margin, a line going down the other margin
    // and a caption turned by the page's transformation (as a landscape
    // table on a portrait page is drawn): each reads forwards.
    let ops = "BT /F1 24 Tf 100 700 Td (Plain Title) Tj ET\n\
               BT /F1 10 Tf 0 1 -1 0 30 200 Tm (arXiv:2101.00001v1 [cs.CL] 4 Jan 2021) Tj ET\n\
               BT /F1 10 Tf 0 -1 1 0 580 600 Tm (Turned downwards) Tj ET\n\
               q 0 1 -1 0 0 0 cm BT /F1 14 Tf 300 -400 Td (Landscape Caption) Tj ET Q\n";
    let p = TestProject::new();
    p.write(
        "turned.pdf",
        &SyntheticPdf::new()
            .page(612.0, 792.0, Some(ops))
            .into_bytes(),
    );
    let out = p.cmd().args(["run", "--json"]).output().unwrap();
    util::assert_exit(&out, 0);
    let text = std::fs::read_to_string(
        p.root()
            .join("cache/runs/latest/diagnostics/turned/page-1.txt"),
    )
    .unwrap();
    for line in [
        "Plain Title",
        "arXiv:2101.00001v1 [cs.CL] 4 Jan 2021",
        "Turned downwards",
        "Landscape Caption",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in:\n{text}");
    }
}

/// `chattr +i` on `path` until dropped; `None` where it is not permitted
/// (not root, or a file system without the flag).
struct Immutable(std::path::PathBuf);

impl Immutable {
    fn set(path: &std::path::Path) -> Option<Immutable> {
        let guard = Immutable(path.to_path_buf());
        std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
            .then_some(guard)
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

/// Issue 38, 1, as a user meets it: one PDF of the library cannot be
/// renamed (immutable). `run --write` fails that one (naming it, exit 1)
/// and leaves no copy beside it; the next `run --write` and `undo` are not
/// stopped by it, and undo gives back everything else.
#[test]
fn a_pdf_that_cannot_be_renamed_fails_alone_and_undo_reverts_the_rest() {
    let p = TestProject::new();
    let stuck = p.add(BOOK, "stuck/b.pdf");
    p.add(BOOK, "fine/b.pdf");
    let before = p.snapshot();
    let Some(guard) = Immutable::set(&stuck) else {
        eprintln!("skipped: `chattr +i` is not permitted here");
        return;
    };
    let out = p.cmd().args(["run", "--write"]).output().unwrap();
    let err = util::stderr(&out);
    util::assert_exit(&out, 1);
    assert!(
        err.lines()
            .any(|l| l.contains(&*stuck.to_string_lossy()) && l.contains("is as it was")),
        "{err}"
    );
    let stuck_dir: Vec<String> = std::fs::read_dir(stuck.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(stuck_dir, ["b.pdf"], "nothing made beside it");
    assert!(
        std::fs::read_dir(p.data().join("fine")).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("Weaving")),
        "the other PDF is written"
    );

    // Again: the same failure, named, and nothing else.
    let out = p.cmd().args(["run", "--write"]).output().unwrap();
    let err = util::stderr(&out);
    util::assert_exit(&out, 1);
    assert!(!err.contains("colophon: Operation not permitted"), "{err}");
    assert!(err.contains(&*stuck.to_string_lossy()), "{err}");

    let out = p.cmd().arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    assert!(
        util::stdout(&out).contains("undid 1 writes"),
        "{}",
        util::stdout(&out)
    );
    drop(guard);
    assert_eq!(p.snapshot(), before, "the library is as it was");
}

/// Issue 38, small: `undo` printed file names raw, so a name with a
/// newline or an escape sequence split its line or drove the terminal.
#[test]
fn undo_prints_file_names_with_control_characters_escaped() {
    let p = TestProject::new();
    p.add(BOOK, "odd\nname\x1b[2J.pdf");
    let before = p.snapshot();
    let out = p.cmd().args(["run", "--write", "-q"]).output().unwrap();
    util::assert_exit(&out, 0);
    let out = p.cmd().arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    let text = util::stdout(&out);
    assert!(!text.contains('\x1b'), "{text:?}");
    assert!(
        text.lines()
            .any(|l| l.contains("→") && l.ends_with("odd\\nname\\x1b[2J.pdf")),
        "{text:?}"
    );
    assert_eq!(p.snapshot(), before);
}

/// Runs colophon with stdout and stderr on a pseudo-terminal of `cols`
/// columns, as a user at a terminal runs it, and returns its exit code
/// and everything the terminal received, in the order it arrived.
fn on_a_terminal(p: &TestProject, args: &[&str], cols: u16) -> (i32, String) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 40,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty fills the two descriptors, which are owned below.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty");
    let mut master = unsafe { std::fs::File::from_raw_fd(master) };
    let slave = unsafe { OwnedFd::from_raw_fd(slave) };
    let mut cmd = p.cmd();
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave);
    let mut child = cmd.spawn().expect("running colophon");
    drop(cmd); // its copies of the terminal's end, so that reading ends
    let reader = std::thread::spawn(move || {
        let (mut all, mut chunk) = (Vec::new(), [0u8; 4096]);
        // EIO once every process holding the other end has closed it.
        while let Ok(n @ 1..) = master.read(&mut chunk) {
            all.extend_from_slice(&chunk[..n]);
        }
        all
    });
    let status = child.wait().unwrap();
    let all = reader.join().unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&all).into_owned(),
    )
}

/// The lines a terminal shows of `raw`: escape sequences (the bars'
/// cursor moves) taken out, split at line feeds and carriage returns.
fn screen_lines(raw: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters, then one final letter.
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() || c == '~' {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain
        .split(['\n', '\r'])
        .map(str::to_string)
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Issue 39.1: on a terminal each row is printed when its document is done
/// (above the bars), the summary last; rows fit the terminal's width, cut
/// with `…`; an unsure value carries a `?`; the files bar never shows
/// `0/0`; the pages the bar counted are the pages the summary says.
#[test]
fn on_a_terminal_rows_stream_above_the_bars_fit_the_width_and_mark_unsure_values() {
    let p = TestProject::new();
    let long = "a folder with a rather long name to be cut/and another long folder name";
    p.add(PAPER, &format!("{long}/paper.pdf"));
    p.add(BOOK, "book.pdf");
    // Above every probability: every value found is unsure.
    p.config("MIN_CONFIDENCE = 1.0\n");
    let (code, raw) = on_a_terminal(&p, &["run", "-j", "1"], 60);
    assert_eq!(code, 0, "{raw}");
    let lines = screen_lines(&raw);
    let rows: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" → "))
        .collect();
    let summary = lines
        .iter()
        .rposition(|l| l.contains(" files: ") && l.contains(" complete, "))
        .unwrap_or_else(|| panic!("no summary line in {lines:#?}"));
    assert_eq!(rows.len(), 2, "one row per PDF: {lines:#?}");
    assert!(
        rows.iter().all(|&i| i < summary),
        "rows come before the summary: {lines:#?}"
    );
    for &i in &rows {
        let row = &lines[i];
        assert!(row.chars().count() <= 60, "{row:?} is wider than 60");
    }
    let paper = rows
        .iter()
        .map(|&i| &lines[i])
        .find(|l| l.starts_with("a folder"))
        .expect("the paper's row");
    assert!(paper.contains('…'), "{paper}");
    assert!(!raw.contains("0/0"), "no bar of 0 files: {raw:?}");
    // The same run through a pipe: full rows, an unsure title with a `?`.
    let out = p.cmd().args(["run", "-q"]).output().unwrap();
    let table = util::stdout(&out);
    let full = table.lines().find(|l| l.contains("paper.pdf")).unwrap();
    assert!(
        full.starts_with(&format!("{long}/paper.pdf  →  -  [incomplete]")),
        "{full}"
    );
    assert!(
        full.split(" | ")
            .any(|f| f.contains("title: ") && f.ends_with('?')),
        "{full}"
    );
}

/// Issue 39.3: a folder given to `run` is refused with the fix; `config`
/// says where the data folder is and what it links to; a data folder
/// without a PDF is said, with where colophon looked.
#[test]
fn the_data_folder_is_explained_when_a_library_is_given_linked_or_empty() {
    let p = TestProject::new();
    let library = tempfile::tempdir().unwrap();
    let lib = library.path().to_string_lossy().into_owned();
    for args in [vec!["run", &*lib], vec![&*lib]] {
        let out = p.cmd().args(&args).output().unwrap();
        util::assert_exit(&out, 2);
        let err = util::stderr(&out);
        assert!(err.contains("fixed by design"), "{args:?}: {err}");
        assert!(err.contains(&format!("ln -s {lib} data")), "{err}");
    }
    // A flag colophon does not know is clap's refusal alone.
    let out = p.cmd().args(["run", "--no-such-flag"]).output().unwrap();
    util::assert_exit(&out, 2);
    assert!(!util::stderr(&out).contains("ln -s"));

    // Empty: said, with the folder.
    let out = p.cmd().arg("run").output().unwrap();
    util::assert_exit(&out, 0);
    let err = util::stderr(&out);
    assert!(err.contains("no PDF found"), "{err}");
    assert!(err.contains(&*p.data().to_string_lossy()), "{err}");
    let out = p.cmd().arg("config").output().unwrap();
    util::assert_exit(&out, 0);
    assert!(
        util::stdout(&out).contains("(a folder)"),
        "{}",
        util::stdout(&out)
    );

    // Linked to the library: config names the link's target.
    std::fs::remove_dir(p.data()).unwrap();
    std::os::unix::fs::symlink(library.path(), p.data()).unwrap();
    let out = p.cmd().arg("config").output().unwrap();
    util::assert_exit(&out, 0);
    let text = util::stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("# Data folder:"))
        .unwrap();
    assert!(line.contains(&format!("(a link to {lib})")), "{line}");
    let out = p.cmd().arg("run").output().unwrap();
    assert!(util::stderr(&out).contains(&format!("a link to {lib}")));

    // Missing: exit 2, with the fix.
    std::fs::remove_file(p.data()).unwrap();
    let out = p.cmd().arg("run").output().unwrap();
    util::assert_exit(&out, 2);
    assert!(util::stderr(&out).contains("ln -s ~/papers data"));
}

/// Issue 39.6: a file the user made read-only is left alone and said to
/// be, in the record and the table, unless WRITE_READ_ONLY_FILES = true;
/// `review` neither lists nor takes `--write` and `--online`.
#[test]
fn a_read_only_pdf_is_left_alone_unless_allowed_and_review_takes_no_write_flag() {
    use std::os::unix::fs::PermissionsExt;
    let p = TestProject::new();
    let ro = p.add(BOOK, "kept.pdf");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = p.snapshot();
    let (out, records) = p.run_json(&["run", "--write"]);
    util::assert_exit(&out, 0);
    let r = record_for(&records, "kept.pdf");
    assert_eq!(r["written"], false, "{r}");
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("read-only"), "{r}");
    assert!(warnings.contains("WRITE_READ_ONLY_FILES"), "{r}");
    assert_eq!(p.snapshot(), before, "nothing under data/ changed");
    let out = p.cmd().args(["run", "--write", "-q"]).output().unwrap();
    let table = util::stdout(&out);
    assert!(
        table.contains("[not written]  warning: not written: read-only file"),
        "{table}"
    );

    let out = p.cmd().arg("config").output().unwrap();
    assert!(util::stdout(&out).contains("WRITE_READ_ONLY_FILES = false  # default"));
    p.config("WRITE_READ_ONLY_FILES = true\n");
    let (out, records) = p.run_json(&["run", "--write"]);
    util::assert_exit(&out, 0);
    assert_eq!(record_for(&records, "kept.pdf")["written"], true);
    assert!(!p.data().join("kept.pdf").exists(), "written and renamed");

    let out = p.cmd().args(["review", "--help"]).output().unwrap();
    util::assert_exit(&out, 0);
    let help = util::stdout(&out);
    assert!(help.contains("--no-open"), "{help}");
    let listed = |flag: &str| help.lines().any(|l| l.trim_start().starts_with(flag));
    assert!(listed("--no-open") && listed("--json"), "{help}");
    assert!(!listed("--write") && !listed("--online"), "{help}");
    let out = p
        .cmd()
        .args(["review", "--write", "--no-open"])
        .output()
        .unwrap();
    util::assert_exit(&out, 2);
    assert!(util::stderr(&out).contains("colophon run --write --approved"));
    let out = p.cmd().args(["run", "--help"]).output().unwrap();
    assert!(util::stdout(&out).contains("--write"), "run still takes it");
}
