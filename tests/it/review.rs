//! The review page (`cache/runs/<id>/review.html`) loaded in headless
//! Chromium (Debian's `chromium-headless-shell`, installed by
//! scripts/setup.sh): its rows, colours and thumbnails on a real run, its
//! paging at 2,000 records, and the approvals it offers driving a
//! `--write --approved` that touches only the approved files.

use crate::util::{self, TestProject};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const CHROMIUM: &str = "chromium-headless-shell";

/// Runs headless Chromium on a local page with `args`; the DOM after the
/// page's script ran when `--dump-dom` is among them.
fn chromium(page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("{CHROMIUM} is needed (scripts/setup.sh installs it): {e}"));
    assert!(out.status.success(), "{CHROMIUM}: {}", util::stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// A `data-` attribute of the rendered `<body>`.
fn body_attr(dom: &str, name: &str) -> String {
    let key = format!("data-{name}=\"");
    let start = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no {key} in the DOM"))
        + key.len();
    dom[start..start + dom[start..].find('"').unwrap()].to_string()
}

fn run_folder(p: &TestProject) -> PathBuf {
    std::fs::canonicalize(p.root().join("cache/runs/latest")).unwrap()
}

/// Ten PDFs (real fixtures, some twice under other names) and a broken one.
fn real_project() -> TestProject {
    let p = TestProject::new();
    p.config(crate::export::UNSURE_PUBLISHER);
    for (fixture, rel) in [
        ("book-p03-asis.pdf", "books/weaving.pdf"),
        ("book-p02-asis.pdf", "books/galley.pdf"),
        ("paper_jss_stripped.pdf", "papers/zoo.pdf"),
        ("wild_beamer_theme_manual.pdf", "manuals/beamer.pdf"),
        ("book-p03-asis.pdf", "copies/weaving-2.pdf"),
        ("book-p02-asis.pdf", "copies/galley-2.pdf"),
        ("paper_jss_stripped.pdf", "copies/zoo-2.pdf"),
        ("book-p03-asis.pdf", "copies/weaving-3.pdf"),
        ("book-p02-asis.pdf", "copies/galley-3.pdf"),
        ("encrypted_should_fail.pdf", "broken/locked.pdf"),
    ] {
        p.add(fixture, rel);
    }
    p
}

#[test]
fn a_runs_review_page_shows_rows_colours_and_thumbnails_in_chromium() {
    let p = real_project();
    let out = p.cmd().arg("-q").output().unwrap();
    util::assert_exit(&out, 1);
    let page = run_folder(&p).join("review.html");
    assert!(page.is_file(), "every run writes its review page");

    // The run drew no thumbnail (`REVIEW_THUMBNAILS = "review"`, the
    // default): rendering a page costs as much as reading it.
    let thumbs_dir = p.root().join("cache/thumbs/v2");
    let count = || std::fs::read_dir(&thumbs_dir).map_or(0, |d| d.count());
    assert_eq!(count(), 0, "the run drew thumbnails");

    // `colophon review` draws the thumbnails of the pages the fields came
    // from (in pdfium workers, cached by content), then only what is
    // missing, and rewrites the page.
    let review = |args: &[&str]| {
        let out = p
            .cmd()
            .args(["review", "--no-open"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (stdout, stderr) = review(&[]);
    assert_eq!(stdout.trim(), page.display().to_string());
    let thumbs = count();
    assert!(thumbs >= 4, "{thumbs} thumbnails");
    // Copies share their content hash, so their pages are drawn once.
    assert!(
        stderr.contains(&format!(": {thumbs} made, 0 already there")),
        "{stderr}"
    );
    let (_, again) = review(&[]);
    assert!(again.contains(": 0 made, "), "{again}");

    // With `REVIEW_THUMBNAILS = "run"` the run draws them itself.
    std::fs::remove_dir_all(&thumbs_dir).unwrap();
    let out = p
        .cmd()
        .arg("-q")
        .env("REVIEW_THUMBNAILS", "run")
        .output()
        .unwrap();
    util::assert_exit(&out, 1);
    assert_eq!(count(), thumbs);
    // A rerun opens no PDF for them: they are all there.
    let out = p.cmd().args(["-q"]).output().unwrap();
    util::assert_exit(&out, 1);
    assert_eq!(p.summary()["documents opened"], 0);

    let dom = chromium(&page, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_eq!(body_attr(&dom, "rows"), "10");
    assert!(dom.contains("10 of 10 PDFs"), "{dom}");
    assert!(dom.contains("→ Thornquist, Hume - Weaving on Simple Looms (1972).pdf"));
    assert!(dom.contains("p. 2, text"), "source pages shown");
    assert!(
        dom.contains("the PDF is password-protected"),
        "errors shown"
    );
    assert!(dom.contains("class=\"f unsure\""), "unsure fields marked");
    // A tick on every row a --write would write (complete, with a name).
    let records = std::fs::read_to_string(run_folder(&p).join("records.jsonl")).unwrap();
    let writable = records
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["status"] == "complete" && r["proposed_filename"].is_string())
        .count();
    assert!(writable >= 6, "{records}");
    assert_eq!(
        dom.matches("type=\"checkbox\"").count(),
        4 + 9,
        "4 filters and one tick per row read (the broken one has none)"
    );
    assert_eq!(
        dom.matches("type=\"checkbox\" title=\"write this file\"")
            .count(),
        writable,
        "a row without title or author cannot be ticked"
    );

    // The screenshot: confident fields green, unsure ones yellow, and
    // thumbnails (pages drawn in grey, not the placeholder's flat grey).
    let shot = p.root().join("review.png");
    chromium(
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1400,1800",
            "--virtual-time-budget=5000",
            "--hide-scrollbars",
        ],
    );
    let img = image::open(&shot).unwrap().to_rgb8();
    let count = |rgb: [u8; 3]| img.pixels().filter(|px| px.0 == rgb).count();
    assert!(count([0xe3, 0xf5, 0xe1]) > 2000, "green (confident) fields");
    assert!(count([0xff, 0xf1, 0xc9]) > 500, "yellow (unsure) fields");
    // The thumbnails on screen are real pictures, loaded from cache/thumbs.
    let html = std::fs::read_to_string(&page).unwrap();
    let counted = page.with_file_name("counted.html");
    std::fs::write(
        &counted,
        html.replacen(
            "</body>",
            "<script>addEventListener('load', () => { document.body.dataset.loaded = \
             [...document.images].filter(i => i.complete && i.naturalWidth > 50).length; });\
             </script></body>",
            1,
        ),
    )
    .unwrap();
    let dom = chromium(
        &counted,
        &[
            "--dump-dom",
            "--virtual-time-budget=5000",
            "--window-size=1400,1800",
        ],
    );
    let loaded: usize = body_attr(&dom, "loaded").parse().unwrap();
    assert!(loaded >= 10, "{loaded} thumbnails loaded");
    if let Ok(dir) = std::env::var("COLOPHON_SCREENSHOT_DIR") {
        std::fs::copy(&shot, Path::new(&dir).join("review.png")).unwrap();
    }
}

/// A run folder with `n` records made from a real record (varied
/// statuses, paths and unsure fields), as the latest run.
fn synthetic_run(p: &TestProject, n: usize) -> PathBuf {
    let run = p.root().join("cache/runs/20260101-000000-1");
    std::fs::create_dir_all(&run).unwrap();
    let _ = std::fs::remove_file(p.root().join("cache/runs/latest"));
    std::os::unix::fs::symlink("20260101-000000-1", p.root().join("cache/runs/latest")).unwrap();
    let mut lines = String::new();
    for i in 0..n {
        let status = ["complete", "complete", "incomplete", "error"][i % 4];
        let r = json!({
            "path": format!("shelf-{}/book-{i}.pdf", i / 100),
            "blake3": format!("{i:064x}"),
            "pages": 200, "status": status,
            "error": (status == "error").then_some("the PDF is password-protected"),
            "metadata": {"title": format!("Weaving on Simple Looms, volume {i}"), "subtitle": null,
                "authors": ["Agnes Thornquist", "Beatrice L. Hume"], "publisher": null, "year": 1972,
                "edition": null, "isbn": "9780876112038", "doi": null, "loc": null},
            "unsure": {"title": null, "subtitle": null, "authors": [], "publisher": "Millbrook Craft Books",
                "year": null, "edition": null, "isbn": null, "doi": null, "loc": null},
            "sources": {"title": {"page": 2, "via": "text", "confidence": 0.99},
                "authors": {"page": 2, "via": "text", "confidence": 0.99},
                "publisher": {"page": 3, "via": "text", "confidence": 0.8}},
            "pages_read": {"front": [1, 2, 3], "back": []}, "vision": {"pages": [], "failed": []},
            "proposed_filename": (status == "complete").then(|| format!("Thornquist, Hume - Weaving {i} (1972).pdf")),
            "written": false, "warnings": []
        });
        lines.push_str(&r.to_string());
        lines.push('\n');
    }
    std::fs::write(run.join("records.jsonl"), lines).unwrap();
    let out = p.cmd().args(["review", "--no-open"]).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    run.join("review.html")
}

#[test]
fn two_thousand_records_load_paged_in_chromium() {
    let p = TestProject::new();
    let page = synthetic_run(&p, 2000);
    let started = Instant::now();
    let dom = chromium(&page, &["--dump-dom", "--virtual-time-budget=5000"]);
    let wall = started.elapsed();
    assert_eq!(body_attr(&dom, "rows"), "100", "one page of rows is drawn");
    assert!(dom.contains("2000 of 2000 PDFs"));
    assert!(dom.contains("page 1 of 20"));
    let render_ms: f64 = body_attr(&dom, "render-ms").parse().unwrap();
    eprintln!(
        "2,000 records: script {render_ms} ms, Chromium start to DOM {} ms",
        wall.as_millis()
    );
    assert!(render_ms < 2000.0, "{render_ms} ms");
}

/// The page with a script appended that acts as the reader: it unticks
/// the rows whose path contains `untick`, presses "Download approvals"
/// and puts the file's text into the DOM (headless Chromium saves no
/// downloads).
fn page_that_unticks(page: &Path, untick: &str) -> PathBuf {
    let html = std::fs::read_to_string(page).unwrap();
    let script = format!(
        r##"<script>
for (const tr of document.querySelectorAll("#rows tr")) {{
  const box = tr.querySelector("input[type=checkbox]");
  if (box && tr.textContent.includes({untick:?})) {{ box.checked = false; box.dispatchEvent(new Event("change")); }}
}}
const a = document.getElementById("approvals");
a.click = () => {{ document.body.dataset.approvals = decodeURIComponent(a.href.split(",")[1]); }};
document.getElementById("download").click();
</script></body>"##
    );
    let driven = page.with_file_name("driven.html");
    std::fs::write(&driven, html.replacen("</body>", &script, 1)).unwrap();
    driven
}

#[test]
fn approvals_from_the_page_write_only_the_approved_files() {
    let p = TestProject::new();
    p.add("book-p03-asis.pdf", "books/weaving.pdf");
    p.add("book-p02-asis.pdf", "books/galley.pdf");
    let out = p.cmd().arg("-q").output().unwrap();
    assert!(out.status.success());
    let page = run_folder(&p).join("review.html");
    let dom = chromium(
        &page_that_unticks(&page, "galley"),
        &["--dump-dom", "--virtual-time-budget=5000"],
    );
    let text = body_attr(&dom, "approvals")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let approvals: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        approvals["approved"].as_array().unwrap().len(),
        1,
        "{approvals}"
    );
    assert_eq!(approvals["approved"][0]["path"], "books/weaving.pdf");
    let file = p.root().join("approved.json");
    std::fs::write(&file, text).unwrap();

    let before = p.snapshot();
    let out = p
        .cmd()
        .args(["-q", "--json", "--write", "--approved"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let after = p.snapshot();
    let names: Vec<String> = after
        .keys()
        .map(|k| k.to_string_lossy().into_owned())
        .collect();
    assert!(
        names.contains(&"books/Thornquist, Hume - Weaving on Simple Looms (1972).pdf".into()),
        "{names:?}"
    );
    assert_eq!(
        after.get(Path::new("books/galley.pdf")),
        before.get(Path::new("books/galley.pdf")),
        "the unticked file is untouched"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let galley: Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["path"] == "books/galley.pdf")
        .unwrap();
    assert_eq!(galley["written"], false);
    assert!(
        galley["warnings"][0]
            .as_str()
            .unwrap()
            .contains("not approved"),
        "{galley}"
    );

    // A file that is not an approvals file is bad usage: nothing runs.
    std::fs::write(&file, "{}").unwrap();
    let out = p
        .cmd()
        .args(["-q", "--write", "--approved"])
        .arg(&file)
        .output()
        .unwrap();
    util::assert_exit(&out, 2);
}

/// The page with `actions` (a script run after the page's own) and a
/// capture of "Download approvals" into `data-approvals` of the body
/// (headless Chromium saves no downloads). The script may use `item(row,
/// field, text)`, the value `<span>` of a row (by text in it) whose text
/// contains `text`, and `press(span, label)`, which clicks its button.
fn driven_page(page: &Path, name: &str, actions: &str) -> PathBuf {
    let html = std::fs::read_to_string(page).unwrap();
    let script = format!(
        r##"<script>
const rowOf = text => [...document.querySelectorAll("#rows tr")].find(tr => tr.textContent.includes(text));
const item = (row, field, text) => [...rowOf(row).querySelectorAll(`span.v[data-field=${{field}}]`)].find(s => s.textContent.includes(text));
const press = (span, label) => [...span.querySelectorAll("button")].find(b => b.textContent === label).click();
const untick = row => {{ const box = rowOf(row).querySelector("input[type=checkbox]"); box.checked = false; box.dispatchEvent(new Event("change")); }};
const a = document.getElementById("approvals");
a.click = () => {{ document.body.dataset.approvals = decodeURIComponent(a.href.split(",")[1]); }};
{actions}
</script></body>"##
    );
    let driven = page.with_file_name(name);
    std::fs::write(&driven, html.replacen("</body>", &script, 1)).unwrap();
    driven
}

/// The approvals the driven page offered for download.
fn approvals_of(dom: &str) -> String {
    body_attr(dom, "approvals")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

/// The Info dictionary's /Author of a PDF.
fn info_author(pdf: &Path) -> String {
    let doc = lopdf::Document::load(pdf).unwrap();
    let info = doc.trailer.get(b"Info").unwrap().as_reference().unwrap();
    let bytes = doc
        .get_dictionary(info)
        .unwrap()
        .get(b"Author")
        .unwrap()
        .as_str()
        .unwrap()
        .to_vec();
    match bytes.strip_prefix(&[0xfe, 0xff]) {
        Some(utf16) => String::from_utf16(
            &utf16
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect::<Vec<_>>(),
        )
        .unwrap(),
        None => bytes.iter().map(|&b| b as char).collect(),
    }
}

#[test]
fn values_decided_on_the_page_are_exactly_what_is_written() {
    let p = TestProject::new();
    p.add("book-p03-asis.pdf", "books/weaving.pdf");
    p.add("book-p02-asis.pdf", "books/galley.pdf");
    let out = p.cmd().arg("-q").output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let page = run_folder(&p).join("review.html");
    // One author typed anew, the other rejected; the rest of the row
    // kept; the other file left unticked.
    let dom = chromium(
        &driven_page(
            &page,
            "decided.html",
            r#"press(item("weaving.pdf", "authors", "Agnes Thornquist"), "✎");
const input = rowOf("weaving.pdf").querySelector("span.v input");
input.value = "Agnes M. Thornquist";
input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
press(item("weaving.pdf", "authors", "Hume"), "✗");
untick("galley.pdf");
document.body.dataset.edited = document.querySelectorAll("span.v.edited").length;
document.body.dataset.rejected = document.querySelectorAll("span.v.rejected").length;
document.getElementById("download").click();"#,
        ),
        &["--dump-dom", "--virtual-time-budget=5000"],
    );
    assert_eq!(body_attr(&dom, "edited"), "1");
    assert_eq!(body_attr(&dom, "rejected"), "1");
    assert!(
        dom.contains("(was Agnes Thornquist)"),
        "the old value shown"
    );
    let text = approvals_of(&dom);
    let approvals: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(approvals["colophon_approvals"], 2);
    assert_eq!(
        approvals["approved"],
        json!([{"path": "books/weaving.pdf", "blake3": approvals["approved"][0]["blake3"],
            "fields": {"authors": ["Agnes M. Thornquist"]}}]),
        "only the decided field, only the ticked file"
    );
    let file = p.root().join("approved.json");
    std::fs::write(&file, &text).unwrap();

    // Without --write it is a dry run, and says so.
    let out = p.cmd().arg("--approved").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    assert!(
        util::stderr(&out)
            .contains("--approved applies to writes; this is a dry run (add --write)"),
        "{}",
        util::stderr(&out)
    );

    let before = p.snapshot();
    let out = p
        .cmd()
        .args(["--write", "--approved"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    // The table and the summary say which file was not approved.
    let table = util::stdout(&out);
    let galley_row = table.lines().find(|l| l.contains("galley.pdf")).unwrap();
    assert!(galley_row.contains("[not approved]"), "{table}");
    assert!(
        util::stderr(&out).contains(", 1 not approved (not written)"),
        "{}",
        util::stderr(&out)
    );
    assert_eq!(p.summary()["not approved"], 1);
    // The approved file carries the decided author, and only that one:
    // in its name, its record and its Info dictionary.
    let written = p
        .data()
        .join("books/Thornquist - Weaving on Simple Looms (1972).pdf");
    assert!(written.is_file(), "{:?}", p.snapshot().keys());
    assert_eq!(info_author(&written), "Agnes M. Thornquist");
    let records = std::fs::read_to_string(run_folder(&p).join("records.jsonl")).unwrap();
    let weaving: Value = records
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["path"] == "books/weaving.pdf")
        .unwrap();
    assert_eq!(
        weaving["metadata"]["authors"],
        json!(["Agnes M. Thornquist"])
    );
    assert_eq!(
        weaving["metadata"]["title"], "Weaving on Simple Looms",
        "kept"
    );
    assert_eq!(weaving["written"], true);
    assert!(
        weaving["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().ends_with(": authors set")),
        "{weaving}"
    );
    assert_eq!(
        p.snapshot().get(Path::new("books/galley.pdf")),
        before.get(Path::new("books/galley.pdf")),
        "the unticked file is untouched"
    );
}

#[test]
fn a_title_opening_a_comment_and_a_script_leaves_the_page_working() {
    let p = TestProject::new();
    let page = synthetic_run(&p, 3);
    let html = std::fs::read_to_string(&page).unwrap();
    // The same records with hostile titles, as a run would write them.
    let run = page.parent().unwrap();
    let records = std::fs::read_to_string(run.join("records.jsonl")).unwrap();
    let hostile = records.replace(
        "Weaving on Simple Looms",
        "Looms <!--<script> and </script><script>document.body.dataset.owned=1</script>",
    );
    std::fs::write(run.join("records.jsonl"), hostile).unwrap();
    let out = p.cmd().args(["review", "--no-open"]).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    assert_ne!(std::fs::read_to_string(&page).unwrap(), html);
    let dom = chromium(&page, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_eq!(body_attr(&dom, "rows"), "3", "every row drawn: {dom}");
    assert!(!dom.contains("data-owned"), "no script of a title ran");
    assert!(
        dom.contains("Looms &lt;!--&lt;script&gt; and"),
        "shown as text"
    );
}

/// A project after `colophon review` (thumbnails drawn) and its page.
fn reviewed_project() -> (TestProject, PathBuf) {
    let p = TestProject::new();
    p.add("book-p03-asis.pdf", "books/weaving.pdf");
    let out = p.cmd().arg("-q").output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let out = p.cmd().args(["review", "--no-open"]).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let page = run_folder(&p).join("review.html");
    (p, page)
}

#[test]
fn a_click_on_a_thumbnail_shows_the_page_large_enough_to_read() {
    let (_p, page) = reviewed_project();
    let dom = chromium(
        &driven_page(
            &page,
            "zoomed.html",
            r#"addEventListener("load", () => {
  const thumb = document.querySelector("img.thumb");
  document.body.dataset.thumbWidth = Math.round(thumb.getBoundingClientRect().width);
  thumb.click();
  const big = document.getElementById("zoom-img");
  const done = () => {
    document.body.dataset.open = document.getElementById("zoom").classList.contains("open");
    document.body.dataset.natural = big.naturalWidth;
    document.body.dataset.shown = Math.round(big.getBoundingClientRect().width);
  };
  if (big.complete) done(); else big.addEventListener("load", done);
});"#,
        ),
        &[
            "--dump-dom",
            "--virtual-time-budget=5000",
            "--window-size=1400,1800",
        ],
    );
    let thumb: u32 = body_attr(&dom, "thumb-width").parse().unwrap();
    let natural: u32 = body_attr(&dom, "natural").parse().unwrap();
    let shown: u32 = body_attr(&dom, "shown").parse().unwrap();
    assert_eq!(body_attr(&dom, "open"), "true");
    assert!(thumb < 100, "the row shows it small: {thumb} px");
    // 96 dpi: a 6-inch page is 576 px wide, where 10-point text is 13 px.
    assert!(natural >= 500, "{natural} px drawn");
    assert_eq!(shown, natural, "shown at its own size in a 1400 px window");
}

/// The screenshot in docs/review-edit.png: the review page with one
/// author being typed anew and another rejected. Written to
/// `COLOPHON_SCREENSHOT_DIR` when set.
#[test]
fn a_screenshot_shows_one_author_being_edited() {
    let (p, page) = reviewed_project();
    let driven = driven_page(
        &page,
        "editing.html",
        r#"press(item("weaving.pdf", "authors", "Hume"), "✗");
press(item("weaving.pdf", "authors", "Agnes Thornquist"), "✎");
const input = rowOf("weaving.pdf").querySelector("span.v input");
input.value = "Agnes M. Thornquist";
document.body.dataset.editing = input.value;"#,
    );
    let dom = chromium(&driven, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_eq!(body_attr(&dom, "editing"), "Agnes M. Thornquist");
    let shot = p.root().join("review-edit.png");
    chromium(
        &driven,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1300,420",
            "--virtual-time-budget=5000",
            "--hide-scrollbars",
        ],
    );
    let img = image::open(&shot).unwrap().to_rgb8();
    let count = |rgb: [u8; 3]| img.pixels().filter(|px| px.0 == rgb).count();
    assert!(count([0xe3, 0xf5, 0xe1]) > 1000, "green (confident) fields");
    if let Ok(dir) = std::env::var("COLOPHON_SCREENSHOT_DIR") {
        std::fs::copy(&shot, Path::new(&dir).join("review-edit.png")).unwrap();
    }
}
