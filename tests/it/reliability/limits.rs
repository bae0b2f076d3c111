//! Issue 19 regression tests: limits, hostile templates, hostile file
//! names and files that are not regular files; issue 17's messages and
//! cached failures.

use crate::util::{self, TestProject, stderr, stdout};

const BOOK: &str = "book-p03-asis.pdf";

/// `--jobs 100000` started a worker process per document (77 processes,
/// 3.1 GB for 46 PDFs). Jobs are now bounded by the CPU count, and the
/// run says so.
#[test]
fn jobs_beyond_the_cpus_are_cut_to_the_cpu_count() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    let out = p.cmd().args(["run", "--jobs", "100000"]).output().unwrap();
    util::assert_exit(&out, 0);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        stderr(&out).contains(&format!(
            "--jobs 100000 is more than the {cpus} CPU(s) here; using --jobs {cpus}"
        )),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("a.pdf"), "{}", stdout(&out));
}

/// `PDF_TIMEOUT = 0` gave Tesseract 1 s per page (every scan failed) and
/// `VLM_TIMEOUT = 0` waited forever on a silent backend. Zero is refused
/// before any work, from the file and from the environment alike.
#[test]
fn zero_time_limits_are_refused_before_any_work() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    for key in ["PDF_TIMEOUT", "VLM_TIMEOUT"] {
        p.config(&format!("{key} = 0\n"));
        let out = p.cmd().arg("run").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{key}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "invalid setting {key} = 0 (from colophon.toml): must be a number of seconds > 0"
            )),
            "{key}: {}",
            stderr(&out)
        );
        assert!(
            stdout(&out).is_empty(),
            "nothing processed: {}",
            stdout(&out)
        );

        p.config("");
        let out = p.cmd().arg("run").env(key, "0").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{key} env: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("invalid setting {key} = 0 (from environment)")),
            "{}",
            stderr(&out)
        );
    }
    assert!(
        !p.root().join("cache/runs/latest").exists(),
        "no run was started"
    );
    // A small positive limit is a limit, not an error of the settings.
    p.config("PDF_TIMEOUT = 0.5\nVLM_TIMEOUT = 0.5\n");
    let out = p.cmd().arg("config").output().unwrap();
    util::assert_exit(&out, 0);
}

/// A file name with a newline and an escape code was printed raw: the row
/// split in two and `ESC[31m` reached the terminal. The table escapes
/// control characters; the JSON record keeps the name exact.
#[test]
fn control_characters_in_names_are_escaped_in_the_table_only() {
    let p = TestProject::new();
    let name = "evil\nrow\x1b[31mred.pdf";
    p.add(BOOK, name);
    p.add(BOOK, "plain.pdf");

    let out = p.cmd().args(["run", "-v"]).output().unwrap();
    util::assert_exit(&out, 0);
    let table = stdout(&out);
    assert_eq!(table.lines().count(), 2, "one row per PDF: {table:?}");
    assert!(!table.contains('\x1b'), "{table:?}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("evil\\nrow\\x1b[31mred.pdf  →  ")),
        "{table:?}"
    );
    // -v names each document on stderr: escaped there too.
    assert!(!stderr(&out).contains('\x1b'), "{:?}", stderr(&out));
    assert!(
        stderr(&out).contains("evil\\nrow\\x1b[31mred.pdf: "),
        "{:?}",
        stderr(&out)
    );
    let summary = std::fs::read_to_string(p.root().join("cache/runs/latest/summary.md")).unwrap();
    assert!(
        !summary.chars().any(|c| c.is_control() && c != '\n'),
        "{summary:?}"
    );

    let (_, records) = p.run_json(&["run"]);
    assert_eq!(records.len(), 2);
    util::record_for(&records, name);
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// A FIFO, a dangling symbolic link and a `.pdf` link to a device got no
/// record and no warning. Each now gets an error record saying what it is,
/// the other PDFs are read, and nothing hangs on the FIFO (no writer ever
/// comes: opening it for reading would block the run forever).
#[test]
fn fifos_devices_and_dangling_links_get_error_records() {
    let p = TestProject::new();
    p.add(BOOK, "good.pdf");
    mkfifo(&p.data().join("pipe.pdf"));
    std::os::unix::fs::symlink("/dev/zero", p.data().join("zero.pdf")).unwrap();
    std::os::unix::fs::symlink("nowhere.pdf", p.data().join("dangling.pdf")).unwrap();

    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 1);
    assert_eq!(records.len(), 4, "{records:#?}");
    assert_ne!(util::record_for(&records, "good.pdf")["status"], "error");
    for (path, says) in [
        ("pipe.pdf", "a named pipe (FIFO), not a regular file"),
        (
            "zero.pdf",
            "a symbolic link to /dev/zero, which is a character device",
        ),
        (
            "dangling.pdf",
            "a symbolic link to nowhere.pdf, which does not exist",
        ),
    ] {
        let r = util::record_for(&records, path);
        assert_eq!(r["status"], "error", "{r:#}");
        assert!(r["error"].as_str().unwrap().contains(says), "{r:#}");
    }
    assert_eq!(p.summary()["errors"], 3);

    // `show` on the FIFO itself does not block either.
    let out = p
        .cmd()
        .args(["show", "data/pipe.pdf", "--json"])
        .output()
        .unwrap();
    util::assert_exit(&out, 1);
    assert!(stdout(&out).contains("named pipe"), "{}", stdout(&out));
}

/// `FILENAME_TEMPLATE = "."` or `".."` made every PDF a hidden `.pdf`
/// with a hidden `--ann.json` beside it. A template that can never give a
/// name is refused before any work.
#[test]
fn templates_that_can_never_name_are_refused() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    for template in [".", "..", " - "] {
        p.config(&format!("FILENAME_TEMPLATE = \"{template}\"\n"));
        let out = p.cmd().args(["run", "--write"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{template:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "invalid setting FILENAME_TEMPLATE = \"{template}\" (from colophon.toml): can \
                 never give a file name"
            )),
            "{}",
            stderr(&out)
        );
        assert!(p.data().join("a.pdf").exists());
    }
    let names: Vec<_> = std::fs::read_dir(p.data())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["a.pdf"], "nothing was written");
}

/// `"{doi}"` on a book (no DOI) rendered empty: the book was renamed to
/// `.pdf` with `--ann.json` beside it. It now keeps its name, and the
/// record says why.
#[test]
fn a_template_empty_for_one_document_keeps_its_name() {
    let p = TestProject::new();
    p.add(BOOK, "book.pdf");
    p.config("FILENAME_TEMPLATE = \"{doi}\"\n");
    let (out, records) = p.run_json(&["run", "--write"]);
    util::assert_exit(&out, 0);
    let r = util::record_for(&records, "book.pdf");
    assert_eq!(
        r["status"], "complete",
        "the test needs a named book: {r:#}"
    );
    assert!(
        r["metadata"]["doi"].is_null(),
        "the test needs a book without DOI: {r:#}"
    );
    assert!(r["proposed_filename"].is_null(), "{r:#}");
    let notes: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        notes.iter().any(|w| w.contains(
            "FILENAME_TEMPLATE \"{doi}\" gives this document no name (its placeholders are empty \
             here); the current name is kept"
        )),
        "{notes:?}"
    );
    let mut names: Vec<String> = std::fs::read_dir(p.data())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.iter().all(|n| !n.starts_with('.')),
        "no hidden file: {names:?}"
    );
    assert!(names.contains(&"book.pdf".to_string()), "{names:?}");
}

/// `-q` printed the summary line (and notices) on stderr; its help says
/// "only results and errors". Results still go to stdout.
#[test]
fn quiet_prints_only_results_and_errors() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    p.write("broken.pdf", b"%PDF-1.4\nthis is not a PDF body");
    let out = p
        .cmd()
        .args(["run", "-q", "--jobs", "100000"])
        .output()
        .unwrap();
    util::assert_exit(&out, 1);
    assert_eq!(stderr(&out), "", "nothing but errors on stderr");
    let table = stdout(&out);
    assert_eq!(table.lines().count(), 2, "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("broken.pdf") && l.contains("[error]")),
        "{table}"
    );
}

/// The notice that `--approved` does nothing in a dry run was written
/// straight to stderr, before the reporter existed, so `-q` printed it.
#[test]
fn quiet_keeps_the_notices_before_the_run_to_itself() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    let approvals = p.root().join("approved.json");
    std::fs::write(
        &approvals,
        r#"{"colophon_approvals": 1, "run": "r", "approved": []}"#,
    )
    .unwrap();
    let quiet = p
        .cmd()
        .args(["run", "-q", "--approved"])
        .arg(&approvals)
        .output()
        .unwrap();
    util::assert_exit(&quiet, 0);
    assert_eq!(stderr(&quiet), "", "nothing but errors on stderr");
    // Without -q the notice is there.
    let loud = p
        .cmd()
        .args(["run", "--approved"])
        .arg(&approvals)
        .output()
        .unwrap();
    util::assert_exit(&loud, 0);
    assert!(
        stderr(&loud).contains("this is a dry run"),
        "{}",
        stderr(&loud)
    );
}

/// An empty directory as PATH and no libtesseract: no Tesseract at all.
fn without_tesseract(cmd: &mut std::process::Command, empty_dir: &std::path::Path) {
    cmd.env("PATH", empty_dir)
        .env(util::LIBTESSERACT_ENV, "off");
}

/// A missing Tesseract failed every scanned PDF with the same message and
/// exited 1. It is an installation error now: the run stops once with the
/// install command (exit 2), and nothing of it is cached, so the next run
/// with Tesseract installed reads the pages.
#[test]
fn a_missing_tesseract_stops_the_run_once_and_is_not_cached() {
    let p = TestProject::new();
    for i in 0..4 {
        util::photo_pdf(&p.data().join(format!("scan-{i}.pdf")), 1);
    }
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = p.cmd();
    cmd.args(["run", "--jobs", "1"]);
    without_tesseract(&mut cmd, empty.path());
    let out = cmd.output().unwrap();
    util::assert_exit(&out, 2);
    let err = stderr(&out);
    assert_eq!(
        err.matches("sudo apt-get install tesseract-ocr").count(),
        1,
        "the install command once: {err}"
    );
    assert!(err.contains("colophon: stopped: "), "{err}");
    assert!(
        stdout(&out).lines().count() < 4,
        "the run stopped rather than failing every scan: {}",
        stdout(&out)
    );

    let (out, records) = p.run_json(&["run"]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(records.len(), 4);
    assert!(
        records.iter().all(|r| r["status"] != "error"),
        "{records:#?}"
    );
    assert!(p.summary()["pages OCRed"] >= 1, "{:?}", p.summary());
}

/// A broken PDF was read again on every run (errors were not cached). Its
/// failure is cached by content now: a warm rerun reports it without
/// opening it; `--retry-errors` reads it again.
#[test]
fn a_broken_pdf_fails_from_the_cache_until_retried() {
    let p = TestProject::new();
    p.add(BOOK, "good.pdf");
    p.add("encrypted_should_fail.pdf", "locked.pdf");
    let good = std::fs::read(util::fixture(BOOK)).unwrap();
    p.write("truncated.pdf", &good[..good.len() / 3]);

    let (out, first) = p.run_json(&["run"]);
    util::assert_exit(&out, 1);
    for bad in ["locked.pdf", "truncated.pdf"] {
        assert_eq!(util::record_for(&first, bad)["status"], "error");
    }
    assert_eq!(
        p.summary()["records from the cache"],
        0,
        "{:?}",
        p.summary()
    );

    let out = p.cmd().args(["run", "-v", "--json"]).output().unwrap();
    util::assert_exit(&out, 1);
    let summary = p.summary();
    assert_eq!(
        summary["records from the cache"], 3,
        "the two failures too, not read again: {summary:?}"
    );
    assert_eq!(summary["errors"], 2, "{summary:?}");
    assert!(
        stderr(&out).contains("locked.pdf: failure from the cache (--retry-errors reads it again)"),
        "{}",
        stderr(&out)
    );
    let second: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for bad in ["locked.pdf", "truncated.pdf"] {
        assert_eq!(
            util::record_for(&second, bad),
            util::record_for(&first, bad),
            "the same error record from the cache"
        );
    }

    let (out, _) = p.run_json(&["run", "--retry-errors"]);
    util::assert_exit(&out, 1);
    assert_eq!(
        p.summary()["records from the cache"],
        1,
        "the two failures read again: {:?}",
        p.summary()
    );
}
