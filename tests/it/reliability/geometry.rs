//! Issue 19 (and 17) regression tests about what a PDF's pages claim and
//! what reading them costs: page sizes that would need gigabytes of pixels,
//! a document without pages, a file whose content changes between the hash
//! and the read, and Tesseract processes that outlive a killed run.

use crate::util::{self, SyntheticPdf, TestProject};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A born-digital book page that reads fine: the run must give it its
/// record whatever the hostile PDF next to it does.
const GOOD: &str = "book-p03-asis.pdf";

/// A PDF of `page_sizes.len()` pages, each with that MediaBox width and
/// height in points and the given content stream (`None`: no content,
/// hence no text at all), with Helvetica as /F1 and `title` in the Info
/// dictionary when given.
fn pdf(page_sizes: &[(f32, f32)], content: Option<&str>, title: Option<&str>) -> Vec<u8> {
    let mut pdf = SyntheticPdf::new();
    for &(w, h) in page_sizes {
        pdf = pdf.page(w, h, content);
    }
    if let Some(t) = title {
        pdf = pdf.info(t, "Margaret Ellison");
    }
    pdf.into_bytes()
}

/// A page with no text, `side` points square, that is one picture (a 1 x 1
/// px gray image stretched over it): the 448-byte file (a MediaBox
/// and nothing else) made a scan, so that it is rendered for OCR (a page
/// with no picture no longer is, issue 18). Written by hand so that the
/// size is exactly the number given (lopdf writes reals in its own way).
fn scan_page_pdf(side: &str) -> Vec<u8> {
    let draw = format!("q {side} 0 0 {side} 0 0 cm /Im0 Do Q");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {side} {side}] \
             /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>"
        ),
        format!("<< /Length {} >>\nstream\n{draw}\nendstream", draw.len()),
        "<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray \
         /BitsPerComponent 8 /Length 1 >>\nstream\nw\nendstream"
            .to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// Runs colophon to the end and returns its exit code, its records and
/// the peak resident memory, in bytes, of the largest process of the run
/// (colophon, its workers and the tesseracts it waited for: the kernel
/// folds reaped children's peaks into their parent's).
// The child is reaped by wait4 (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_measured(
    p: &TestProject,
    args: &[&str],
) -> (Option<i32>, Vec<serde_json::Value>, String, u64) {
    let child = p
        .cmd()
        .args(args)
        .args(["--json", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running colophon");
    let pid = child.id() as libc::pid_t;
    // Drain the pipes while it runs; wait4 below reaps it.
    let mut stdout = child.stdout.expect("piped");
    let mut stderr = child.stderr.expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let mut status = 0;
    // SAFETY: wait4 on our own child; rusage is plain data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let records = out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}\n{err}")))
        .collect();
    (code, records, err, usage.ru_maxrss as u64 * 1024)
}

/// Issue 19, item 1: a page of 100,000 pt (and one of 10^9 pt) with no
/// text made the OCR upscale allocate 174 GB: the process aborted with no
/// record at all (10^9 pt: "capacity overflow", reported as "a scoped
/// thread panicked"). Now such a page is an error naming its size, the
/// other PDFs of the run get their records, and memory stays bounded. A
/// page of 14,400 pt (the largest a PDF allows) is read at the capped
/// resolution: it cost 7.5 GB before.
#[test]
fn huge_pages_fail_alone_with_their_size_and_memory_stays_bounded() {
    let p = TestProject::new();
    p.add(GOOD, "good.pdf");
    let huge = scan_page_pdf("100000");
    assert!(huge.len() < 1000, "{} bytes", huge.len());
    p.write("huge.pdf", &huge);
    p.write("absurd.pdf", &scan_page_pdf("1000000000"));
    p.write("largest-allowed.pdf", &scan_page_pdf("14400"));

    let (code, records, err, peak) = run_measured(&p, &["run"]);
    assert_eq!(code, Some(1), "one record is an error: {err}\n{records:#?}");
    assert_eq!(records.len(), 4, "{err}\n{records:#?}");

    let good = util::record_for(&records, "good.pdf");
    assert_ne!(good["status"], "error", "{good:#}");
    assert!(good["metadata"]["title"].is_string(), "{good:#}");

    for (path, size) in [
        ("huge.pdf", "100000 x 100000 pt"),
        ("absurd.pdf", "1000000000 x 1000000000 pt"),
    ] {
        let r = util::record_for(&records, path);
        assert_eq!(r["status"], "error", "{r:#}");
        let msg = r["error"].as_str().unwrap();
        assert!(
            msg.contains(&format!("page 1 is {size}, too large to render")),
            "{msg}"
        );
    }
    // The largest legal page is rendered (capped) and OCRed: blank, so no
    // metadata, but no error either.
    let largest = util::record_for(&records, "largest-allowed.pdf");
    assert_ne!(largest["status"], "error", "{largest:#}");

    // Before: an abort after trying to allocate 174 GB, or 7.5 GB for the
    // 14,400 pt page. Now one page's pixels are capped at 35 Mpx (a 300 dpi
    // A3 page): the worker's BGRA render of it is 140 MB.
    assert!(peak < 1_500_000_000, "peak RSS {peak} bytes");
}

/// Issue 17: a PDF with zero pages was `incomplete` with no message.
#[test]
fn a_pdf_without_pages_is_an_error_that_says_so() {
    let p = TestProject::new();
    p.add(GOOD, "good.pdf");
    p.write("empty.pdf", &pdf(&[], None, Some("Nothing Inside")));
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 1);
    let r = util::record_for(&records, "empty.pdf");
    assert_eq!(r["status"], "error", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("the PDF has no pages"),
        "{r:#}"
    );
    assert_ne!(util::record_for(&records, "good.pdf")["status"], "error");
}

/// A one-page book title page titled `title`, in its text and its Info.
fn title_page(title: &str) -> Vec<u8> {
    let ops = format!(
        "BT /F1 28 Tf 72 600 Td ({title}) Tj ET\n\
         BT /F1 14 Tf 72 560 Td (Margaret Ellison) Tj ET\n\
         BT /F1 10 Tf 72 120 Td (Quiet Harbour Press, Halifax, 2019) Tj ET\n"
    );
    pdf(&[(432.0, 648.0)], Some(&ops), Some(title))
}

/// Overwrites `path` in place with `bytes` (same length) and puts its
/// modification time back: the stat memo (device, inode, size, mtime) then
/// still gives the old content's hash, which is what a change between the
/// hash and the read looks like to the coordinator.
fn replace_keeping_stat(path: &Path, bytes: &[u8]) {
    let before = std::fs::metadata(path).unwrap();
    assert_eq!(before.len(), bytes.len() as u64);
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, bytes).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
}

/// Issue 19, item 3: the record of a file's new content was cached under
/// the hash of its old content, and a later file with the old content got
/// the new content's metadata (and `--write` wrote it into that file).
#[test]
fn a_file_changed_after_its_hash_is_an_error_and_poisons_nothing() {
    let alpha = title_page("Alpha Tides of Winter");
    let omega = title_page("Omega Tides of Winter");
    assert_eq!(
        alpha.len(),
        omega.len(),
        "same size, so the stat memo matches"
    );
    assert_ne!(alpha, omega);

    let p = TestProject::new();
    let book = p.write("book.pdf", &alpha);
    p.add(GOOD, "good.pdf");
    // A run that hashes (the memo now says: this stat is alpha's content)
    // but reads nothing: no worker can start.
    let out = p
        .cmd()
        .args(["run", "-q"])
        .env("WORKER_EXECUTABLE", "/nonexistent/colophon")
        .output()
        .unwrap();
    util::assert_exit(&out, 2);

    // The content changes; the stat the memo knows does not.
    replace_keeping_stat(&book, &omega);
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 1);
    let r = util::record_for(&records, "book.pdf");
    assert_eq!(r["status"], "error", "{r:#}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("the file changed while it was read"),
        "{r:#}"
    );
    assert_ne!(util::record_for(&records, "good.pdf")["status"], "error");

    // A new file with alpha's content is alpha, not omega; and the changed
    // file, once its stat changes, is read as what it now is.
    p.write("copy-of-alpha.pdf", &alpha);
    let now = std::time::SystemTime::now() + Duration::from_secs(2);
    std::fs::File::options()
        .write(true)
        .open(&book)
        .unwrap()
        .set_modified(now)
        .unwrap();
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    let title = |path| {
        util::record_for(&records, path)["metadata"]["title"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        title("copy-of-alpha.pdf"),
        "Alpha Tides of Winter",
        "{records:#?}"
    );
    assert_eq!(title("book.pdf"), "Omega Tides of Winter", "{records:#?}");
}

/// Every descendant of `pid` (through /proc's children lists).
fn descendants(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let kids = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for k in kids.split_whitespace().filter_map(|k| k.parse().ok()) {
                out.push(k);
                todo.push(k);
            }
        }
    }
    out
}

/// Alive and not a zombie.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// A run of `p` whose scanned book is stuck in a stand-in tesseract that
/// would run for a minute, once that tesseract has started: the run and
/// its process family (workers, tesseracts), and its stderr lines as they
/// come (`-v`: one line per document done; stdout, a pipe, is buffered).
fn run_stuck_in_ocr(
    p: &TestProject,
) -> (
    std::process::Child,
    Vec<u32>,
    std::sync::mpsc::Receiver<String>,
) {
    p.add("book-p03-scanned.pdf", "scanned.pdf");
    let bin = p.root().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let pids = p.root().join("tesseract-pids");
    let fake = bin.join("tesseract");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = --version ]; then echo 'tesseract 5.3.0 (stand-in)'; exit 0; fi\n\
             echo $$ >> '{}'\n\
             exec sleep 60\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = p
        .cmd()
        .args(["run", "-v", "--json"])
        .env("PATH", path)
        .env(util::LIBTESSERACT_ENV, "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let started = Instant::now();
    while !pids.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no tesseract was started"
        );
        assert!(child.try_wait().unwrap().is_none(), "colophon ended early");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut family = descendants(child.id());
    family.extend(
        std::fs::read_to_string(&pids)
            .unwrap()
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok()),
    );
    assert!(family.len() >= 2, "a worker and a tesseract: {family:?}");
    (child, family, lines)
}

/// Waits up to 20 s for every process of `family` to be gone (the
/// stand-in tesseract sleeps a minute: that tells a process killed with
/// the run from one that finishes its page), kills what is left so as not
/// to leave it to the other tests, and returns it.
fn left_running(family: &[u32]) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut left: Vec<u32> = family.to_vec();
    while !left.is_empty() && Instant::now() < deadline {
        left.retain(|&pid| running(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
    for &pid in &left {
        // SAFETY: kill(2) on what our own child started.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
    left
}

/// Issue 19, "killed workers": after the run was killed, its workers and
/// tesseracts ran on (about 3 s, the rest of their page). With SIGKILL,
/// which the run cannot catch, they must still go with it.
#[test]
fn a_killed_run_takes_its_workers_and_tesseracts_with_it() {
    let p = TestProject::new();
    let (mut child, family, _) = run_stuck_in_ocr(&p);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left = left_running(&family);
    assert!(
        left.is_empty(),
        "still running after the run was killed: {left:?} of {family:?}"
    );
}

/// Issue 18: the OCR servers (`colophon ocr-server`, libtesseract kept
/// loaded between batches) outlive the documents they read, so only the
/// run's death can end them: a killed run must take them with it.
#[test]
fn a_killed_run_takes_its_ocr_servers_with_it() {
    let p = TestProject::new();
    p.add("book-p03-scanned.pdf", "scanned.pdf");
    let mut child = p
        .cmd()
        .args(["run", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let is_server = |pid: &u32| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == b"ocr-server"))
    };
    let started = Instant::now();
    let servers = loop {
        let servers: Vec<u32> = descendants(child.id())
            .into_iter()
            .filter(is_server)
            .collect();
        if !servers.is_empty() {
            break servers;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no OCR server was started"
        );
        assert!(child.try_wait().unwrap().is_none(), "colophon ended early");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left = left_running(&servers);
    assert!(
        left.is_empty(),
        "still running after the run was killed: {left:?}"
    );
}

/// Issue 16: SIGTERM, how Slurm and Kubernetes stop a task, is graceful.
/// The document in progress (stuck in OCR for a minute) is abandoned at
/// once, its worker and tesseract killed; the finished one is reported;
/// the run writes its records, closes the cache with its clean-close mark
/// and exits 143, for the engine to retry it.
#[test]
fn sigterm_abandons_the_documents_in_progress_and_keeps_the_finished_ones() {
    let p = TestProject::new();
    p.add(GOOD, "good.pdf");
    let (mut child, family, lines) = run_stuck_in_ocr(&p);
    // The text book is done (reported) before the signal.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !lines
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .expect("the text book's progress line")
        .starts_with("good.pdf: ")
    {}
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let stderr: Vec<String> =
        std::iter::from_fn(|| lines.recv_timeout(Duration::from_secs(5)).ok()).collect();
    let stderr = stderr.join("\n");
    assert_eq!(status.code(), Some(143), "{status:?}: {stderr}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
    let left = left_running(&family);
    assert!(
        left.is_empty(),
        "still running after SIGTERM: {left:?} of {family:?}"
    );
    // The abandoned book is not reported, as an error or otherwise.
    assert!(
        !stderr.lines().any(|l| l.starts_with("scanned.pdf: ")),
        "{stderr}"
    );
    let records =
        std::fs::read_to_string(p.root().join("cache/runs/latest/records.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 1, "{records}");
    assert!(records.contains("\"good.pdf\""), "{records}");
    assert!(
        p.root().join("cache/db/colophon-closed").is_file(),
        "the cache was closed cleanly"
    );
    assert_eq!(p.summary()["errors"], 0);
}

/// Issue 19, item 2: the hash read a memory map, and a file truncated
/// while it was hashed killed the whole run with SIGBUS (exit 135). Here a
/// thread truncates and regrows a 16 MB file without pause while colophon
/// hashes it again and again (`--rehash`): every run ends with an exit
/// status of its own, never a signal, and the book beside it gets its
/// record. (A race: with the memory map, a run almost surely met the
/// truncation; with reads, no outcome of the race can fail the test.)
#[test]
fn a_file_truncated_while_it_is_hashed_never_kills_the_run() {
    const SIZE: u64 = 16 * 1024 * 1024;
    let p = TestProject::new();
    p.add(GOOD, "good.pdf");
    let shifting = p.write("shifting.pdf", b"%PDF-1.4\n");
    std::fs::File::options()
        .write(true)
        .open(&shifting)
        .unwrap()
        .set_len(SIZE)
        .unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let f = std::fs::File::options()
                .write(true)
                .open(&shifting)
                .unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                f.set_len(0).unwrap();
                f.set_len(SIZE).unwrap();
            }
        });
        // Asserted once the truncating thread has stopped (a panic here
        // would leave the scope waiting for it).
        let runs: Vec<_> = (0..8).map(|_| p.run_json(&["run", "--rehash"])).collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        runs
    })
    .into_iter()
    .for_each(|(out, records)| {
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{:?}: {}",
            out.status,
            util::stderr(&out)
        );
        assert_ne!(util::record_for(&records, "good.pdf")["status"], "error");
    });
}

/// Issue 19, "killed workers", its second half: the OCR results of the
/// pages a document finished must be kept when the document does not
/// finish. A stand-in tesseract fails its first call (the batch of both
/// front pages, which is then read again page by page), reads the next
/// page it is given with the real one and fails every later page: the
/// document fails, and the next run, with the real tesseract, takes the
/// finished page from the cache and OCRs only the other one.
#[test]
fn ocr_of_finished_pages_is_kept_when_the_document_fails() {
    let p = TestProject::new();
    p.add("book-p03-scanned.pdf", "scanned.pdf");
    p.config("[MATTER_CONFIG.front]\nmax_pages = 2\n");
    let path = std::env::var("PATH").unwrap_or_default();
    let real = std::env::split_paths(&path)
        .map(|d| d.join("tesseract"))
        .find(|t| t.is_file())
        .expect("tesseract is installed");
    let bin = p.root().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("tesseract");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = --version ]; then exec '{real}' \"$@\"; fi\n\
             if mkdir '{batch}' 2>/dev/null; then exit 1; fi\n\
             if mkdir '{first}' 2>/dev/null; then exec '{real}' \"$@\"; fi\n\
             exit 1\n",
            real = real.display(),
            batch = p.root().join("batch-given").display(),
            first = p.root().join("first-page-given").display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let (out, records) = p
        .cmd()
        .args(["run", "--json", "-q"])
        .env("PATH", format!("{}:{path}", bin.display()))
        .env(util::LIBTESSERACT_ENV, "off")
        .output()
        .map(|out| {
            let records: Vec<serde_json::Value> = util::stdout(&out)
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            (out, records)
        })
        .unwrap();
    util::assert_exit(&out, 1);
    let r = util::record_for(&records, "scanned.pdf");
    assert_eq!(r["status"], "error", "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("tesseract"), "{r:#}");
    assert_eq!(p.summary()["pages OCRed"], 1, "{:?}", p.summary());

    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    assert_ne!(util::record_for(&records, "scanned.pdf")["status"], "error");
    let s = p.summary();
    assert_eq!(s["OCR pages from the cache"], 1, "{s:?}");
    assert_eq!(s["pages OCRed"], 1, "{s:?}");
}
