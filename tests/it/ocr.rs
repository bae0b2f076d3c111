//! End-to-end OCR tests: image-only PDFs (built by the test from rendered
//! pages, and a scanned fixture) read through Tesseract.

use crate::util::{self, SyntheticPdf, TestProject, record_for};

const BOOK: &str = "book-p03-asis.pdf";

#[test]
fn an_image_only_pdf_yields_title_and_isbn_via_ocr_and_a_rerun_ocrs_nothing() {
    let p = TestProject::new();
    // Title page and copyright page of a real book, as pictures only.
    util::image_only_copy(
        &util::fixture(BOOK),
        &[1, 2],
        200,
        &p.data().join("scan.pdf"),
    );
    p.add(BOOK, "digital.pdf");
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    let scan = record_for(&records, "scan.pdf");
    let m = &scan["metadata"];
    assert_eq!(m["isbn"], "9780876112038", "{scan:#}");
    assert_eq!(m["title"], "Weaving on Simple Looms");
    assert_eq!(scan["sources"]["isbn"]["via"], "ocr");
    assert_eq!(scan["sources"]["title"]["via"], "ocr");
    assert_eq!(m["loc"], "72081345");
    let s = p.summary();
    assert_eq!(
        s["pages OCRed"], 2,
        "the two scanned pages, and no page of the born-digital book"
    );
    let digital = record_for(&records, "digital.pdf");
    assert_ne!(digital["sources"]["title"]["via"], "ocr");

    // Diagnostics: text and rendered image per page, numbered from 1.
    let diag = p.root().join("cache/runs/latest/diagnostics/scan");
    for n in [1, 2] {
        assert!(diag.join(format!("page-{n}.txt")).exists());
        assert!(diag.join(format!("page-{n}.png")).exists());
    }
    assert!(
        std::fs::read_to_string(diag.join("page-2.txt"))
            .unwrap()
            .contains("ISBN")
    );

    // A changed setting that recomputes the record finds the OCR cached.
    let (_, again) = p.run_json(&["run", "--front-pages", "5"]);
    let s = p.summary();
    assert_eq!(s["records computed"], 2);
    assert_eq!(s["pages OCRed"], 0);
    assert_eq!(s["OCR pages from the cache"], 2);
    assert_eq!(
        record_for(&again, "scan.pdf")["metadata"]["isbn"],
        "9780876112038"
    );
}

#[test]
fn ocr_diagnostics_follow_offset_zero() {
    let p = TestProject::new();
    util::image_only_copy(
        &util::fixture(BOOK),
        &[0, 1],
        150,
        &p.data().join("scan.pdf"),
    );
    // Every value, however unsure: this test is about what OCR read.
    p.config("PAGE_NUM_OFFSET = 0\nMIN_CONFIDENCE = 0.0\n");
    let (out, records) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(records[0]["pages_read"]["front"], serde_json::json!([0, 1]));
    let diag = p.root().join("cache/runs/latest/diagnostics/scan");
    assert!(diag.join("page-0.png").exists() && diag.join("page-1.png").exists());
    assert!(!diag.join("page-2.png").exists());
    assert_eq!(
        records[0]["metadata"]["title"], "Weaving on Simple Looms",
        "{:#}",
        records[0]
    );
}

/// Issue 18: only scans are OCRed, each at its own resolution. A
/// born-digital document's page of vector drawings (no text at all), its
/// page with a large figure and a short caption, and its blank page are
/// not OCRed; a page that is one 150 dpi picture is, rendered at 200 dpi
/// (the floor), and one that is a 300 dpi picture at 300 dpi.
#[test]
fn only_scans_are_ocred_each_at_its_own_resolution() {
    let p = TestProject::new();
    let (w, h) = (612.0, 792.0);
    let mut drawing = String::from("0.8 w ");
    for i in 0..40 {
        let (x, y) = (40.0 + 12.0 * i as f32, 60.0 + 16.0 * i as f32);
        drawing.push_str(&format!(
            "{x} {y} m {} {} l S {x} {y} 30 20 re S ",
            w - x,
            h - y
        ));
    }
    // The figure: 540 x 630 pt of a 612 x 792 pt page (70%), a gray
    // gradient, and its caption of three words under it.
    let (fw, fh) = (270u32, 315u32);
    let gray: Vec<u8> = (0..fw * fh).map(|i| (i % fw * 255 / fw) as u8).collect();
    let figure = format!(
        "q 540 0 0 630 36 62 cm /Im0 Do Q {}",
        crate::test_pdfs::text_ops(h, &[(11.0, 36.0, 770.0, "Figure 2. A simple loom")])
    );
    let digital = SyntheticPdf::new()
        .compressed()
        .text_page(&[(24.0, 72.0, 200.0, "Looms of the Northern Valleys")])
        .page(w, h, Some(&drawing))
        .page_with_image(w, h, &figure, fw, fh, gray)
        .page(w, h, None);
    digital.save(&p.data().join("digital.pdf"));
    util::image_only_copy(
        &util::fixture(BOOK),
        &[1],
        150,
        &p.data().join("scan150.pdf"),
    );
    util::image_only_copy(
        &util::fixture(BOOK),
        &[1],
        300,
        &p.data().join("scan300.pdf"),
    );

    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 0);
    assert_eq!(
        record_for(&records, "digital.pdf")["pages_read"]["front"],
        serde_json::json!([1, 2, 3, 4])
    );
    assert_eq!(p.summary()["pages OCRed"], 2, "the two scanned pages only");
    let diag = p.root().join("cache/runs/latest/diagnostics");
    assert!(!diag.join("digital").join("page-2.png").exists());
    for (name, dpi) in [("scan150", 150), ("scan300", 300)] {
        let source = colophon::inspect::Document::open(&p.data().join(format!("{name}.pdf")))
            .unwrap()
            .read_page(0)
            .unwrap();
        let image = source.text.image.unwrap();
        assert!((image.dpi - dpi as f32).abs() < 1.0, "{name}: {image:?}");
        let rendered = image::image_dimensions(diag.join(name).join("page-1.png")).unwrap();
        let want = (source.text.width * dpi.max(200) as f32 / 72.0).floor() as u32;
        assert!(
            rendered.0.abs_diff(want) <= 1,
            "{name}: {rendered:?}, want {want} wide"
        );
    }
    assert_eq!(
        record_for(&records, "scan150.pdf")["metadata"]["title"],
        "Weaving on Simple Looms"
    );
}

/// The scanned pages of a document are read by one tesseract process a
/// batch, not one a page: a `tesseract` first on PATH logs each call and
/// runs the real one.
#[test]
fn scanned_pages_share_a_tesseract_process() {
    let p = four_scanned_pages();
    let (path, log) = logging_tesseract(&p);
    let out = p
        .cmd()
        .env("PATH", path)
        .env(util::LIBTESSERACT_ENV, "off")
        .args(["run", "--json", "-q", "--front-pages", "4"])
        .output()
        .unwrap();
    util::assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Weaving on Simple Looms"), "{stdout}");
    let ocred = p.summary()["pages OCRed"];
    let calls = std::fs::read_to_string(&log).unwrap();
    let reads = image_reads(&calls);
    assert!(ocred >= 2, "{ocred} pages OCRed");
    assert!(
        reads > 0 && (reads as u64) < ocred,
        "{ocred} pages OCRed in {reads} calls:\n{calls}"
    );
}

/// Issue 18: scans are read by OCR servers, which keep libtesseract and
/// its model loaded from one batch to the next, and the `tesseract`
/// program then reads nothing. With the library turned off the program
/// reads them, and the records are the same.
#[test]
fn the_ocr_servers_read_scans_as_the_program_does() {
    let run = |library: Option<&str>| {
        let p = four_scanned_pages();
        let (path, log) = logging_tesseract(&p);
        let mut cmd = p.cmd();
        cmd.env("PATH", path)
            .args(["run", "--json", "-q", "--front-pages", "4"]);
        if let Some(v) = library {
            cmd.env(util::LIBTESSERACT_ENV, v);
        }
        let out = cmd.output().unwrap();
        util::assert_exit(&out, 0);
        let mut record: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one record");
        record.as_object_mut().unwrap().remove("path");
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        (record, image_reads(&calls), p.summary()["pages OCRed"])
    };
    let (served, program_reads, ocred) = run(None);
    assert_eq!(
        program_reads, 0,
        "the program read pages beside the servers"
    );
    assert!(ocred >= 2, "{ocred} pages OCRed");
    assert_eq!(
        served["metadata"]["title"], "Weaving on Simple Looms",
        "{served:#}"
    );
    let (by_program, program_reads, _) = run(Some("off"));
    assert!(program_reads > 0);
    assert_eq!(served, by_program);
}

/// A project whose library is a scan of the first four pages of `BOOK`
/// (200 dpi, no text layer).
fn four_scanned_pages() -> TestProject {
    let p = TestProject::new();
    util::image_only_copy(
        &util::fixture(BOOK),
        &[1, 2, 3, 4],
        200,
        &p.data().join("scan.pdf"),
    );
    p
}

/// A `tesseract` on a new `PATH` that logs its arguments, a line a call,
/// and runs the real one: the `PATH` and the log.
fn logging_tesseract(p: &TestProject) -> (std::ffi::OsString, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let real = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join("tesseract"))
                .find(|t| t.is_file())
        })
        .expect("tesseract on PATH");
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = p.root().join("calls.log");
    let wrapper = bin.join("tesseract");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    (path, log)
}

/// The calls of a `logging_tesseract` log that read an image (not
/// `--version`).
fn image_reads(calls: &str) -> usize {
    calls
        .lines()
        .filter(|l| !l.starts_with("--version"))
        .count()
}
