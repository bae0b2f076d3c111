//! End-to-end OCR tests: image-only PDFs (built by the test from rendered
//! pages, and a scanned fixture) read through Tesseract.

use crate::util::{self, TestProject, record_for};

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
