//! The review page: `cache/runs/<id>/review.html`, one self-contained
//! page (inline CSS and script, the records inline as JSON, no fetches)
//! that a person opens before `--write`: per PDF the current and proposed
//! name, the fields coloured by confidence with their source page, a
//! thumbnail of each source page (a click shows it large enough to read
//! a title page), warnings; filters, search, ticks, and decisions per
//! value (reject one, type the right one, or accept an unsure one), which
//! become an approvals file for `colophon run --write --approved`
//! ([`approvals`]).
//!
//! Rows are drawn a page of 100 at a time, so 10,000 PDFs cost the
//! browser no more than 100; thumbnails load lazily. They are PNG files
//! in `cache/thumbs/`, named by content hash and page, rendered by the
//! pdfium worker processes (never in the coordinator: pdfium is not
//! thread-safe, see `inspect::pool`) at the end of every run, for its
//! records, and by `colophon review` for any still missing. They are kept
//! like every stage's result: a page once drawn is never drawn again (a
//! warm rerun opens no PDF for them), and every run's page shows the
//! thumbnails already there.

pub mod approvals;

use crate::model::{Record, Status};
use anyhow::{Context, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The page's file name in a run folder.
pub const PAGE_FILE: &str = "review.html";

/// Bump when the thumbnails' size or format changes: they live in a
/// folder of this version, so old ones are never shown.
pub const THUMB_VERSION: u32 = 2;

/// Thumbnail resolution: a US-letter page is 816 x 1056 pixels, so the
/// page shown large on a click reads like print (10-point text is 13
/// pixels high); the row shows it scaled down. Grey PNG, drawn once per
/// content and page.
const THUMB_DPI: u32 = 96;

/// The fields shown, in order, and the ones whose source page gets a
/// thumbnail.
const SHOWN: [(&str, bool); 9] = [
    ("title", true),
    ("subtitle", false),
    ("authors", true),
    ("publisher", true),
    ("year", true),
    ("edition", false),
    ("isbn", true),
    ("doi", true),
    ("loc", false),
];

/// One row of the page, as its script reads it.
#[derive(Debug, Serialize)]
struct Row<'a> {
    path: &'a str,
    blake3: Option<&'a str>,
    status: &'static str,
    error: Option<&'a str>,
    proposed: Option<&'a str>,
    /// The proposed name differs from the current one.
    changed: bool,
    /// A `--write` would write it (complete, with a name): ticked at first.
    approvable: bool,
    /// Read (not an error): its values can be decided, and it can be
    /// ticked once the decided values hold a title and an author.
    editable: bool,
    fields: Vec<FieldView>,
    warnings: &'a [String],
    thumbs: Vec<Thumb>,
}

#[derive(Debug, Serialize)]
struct FieldView {
    name: &'static str,
    value: String,
    /// The values one by one, each decided on its own: one per author,
    /// else the value alone.
    items: Vec<String>,
    /// At or above `MIN_CONFIDENCE` (written); unsure values are shown only.
    sure: bool,
    /// "p. 3, text, 0.98".
    source: String,
}

#[derive(Debug, Serialize)]
struct Thumb {
    /// Page number as shown (following `PAGE_NUM_OFFSET`).
    page: u32,
    /// The fields read on that page.
    fields: String,
    /// Relative to the run folder.
    src: String,
}

/// The thumbnail of page `index` (0-based) of the document with hash
/// `blake3`, relative to the cache folder.
pub fn thumb_rel(blake3: &str, index: u32) -> PathBuf {
    PathBuf::from(format!("thumbs/v{THUMB_VERSION}/{blake3}-{index}.png"))
}

fn items_of(m: &crate::model::Metadata, field: &str) -> Option<Vec<String>> {
    if field == "authors" {
        return (!m.authors.is_empty()).then(|| m.authors.clone());
    }
    one_value_of(m, field).map(|v| vec![v])
}

fn one_value_of(m: &crate::model::Metadata, field: &str) -> Option<String> {
    match field {
        "title" => m.title.clone(),
        "subtitle" => m.subtitle.clone(),
        "publisher" => m.publisher.clone(),
        "year" => m.year.map(|y| y.to_string()),
        "edition" => m.edition.clone(),
        "isbn" => m.isbn.clone(),
        "doi" => m.doi.clone(),
        "loc" => m.loc.clone(),
        _ => None,
    }
}

fn row(r: &Record, offset: u32) -> Row<'_> {
    let status = r.status.as_str();
    let current = Path::new(&r.path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let changed = r.proposed_filename.is_some() && r.proposed_filename != current;
    let mut fields = Vec::new();
    // page index → the fields read there
    let mut pages: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for (name, thumb) in SHOWN {
        let (items, sure) = match (items_of(&r.metadata, name), items_of(&r.unsure, name)) {
            (Some(v), _) => (v, true),
            (None, Some(v)) => (v, false),
            (None, None) => continue,
        };
        let value = items.join("; ");
        let src = r.sources.get(name);
        let source = src
            .map(|s| {
                let mut parts = Vec::new();
                if let Some(p) = s.page {
                    parts.push(format!("p. {p}"));
                }
                parts.push(s.via.as_str().to_string());
                if let Some(c) = s.confidence {
                    parts.push(format!("{c:.2}"));
                }
                parts.join(", ")
            })
            .unwrap_or_default();
        if let (true, Some(page)) = (thumb, src.and_then(|s| s.page)) {
            pages.entry(page).or_default().push(name);
        }
        fields.push(FieldView {
            name,
            value,
            items,
            sure,
            source,
        });
    }
    let thumbs = match &r.blake3 {
        Some(hash) if r.status != Status::Error => pages
            .into_iter()
            .filter(|(page, _)| *page >= offset)
            .map(|(page, names)| Thumb {
                page,
                fields: names.join(", "),
                src: format!("../../{}", thumb_rel(hash, page - offset).to_string_lossy()),
            })
            .collect(),
        _ => Vec::new(),
    };
    Row {
        path: &r.path,
        blake3: r.blake3.as_deref(),
        status,
        error: r.error.as_deref(),
        proposed: r.proposed_filename.as_deref(),
        changed,
        approvable: r.status == Status::Complete && r.proposed_filename.is_some(),
        editable: r.status != Status::Error,
        fields,
        warnings: &r.warnings,
        thumbs,
    }
}

/// The page for the records of run `run_id`.
pub fn render(run_id: &str, records: &[Record], page_num_offset: u32) -> Result<String> {
    #[derive(Serialize)]
    struct Data<'a> {
        run: &'a str,
        records: Vec<Row<'a>>,
    }
    let data = Data {
        run: run_id,
        records: records.iter().map(|r| row(r, page_num_offset)).collect(),
    };
    // Inside <script>, "</script" ends the element and "<!--" followed by
    // "<script" makes the parser look for two ends: the page's own script
    // would be swallowed. A `<` can only stand inside a JSON string, where
    // `\u003c` means the same: none is left for the HTML parser to see.
    let json = serde_json::to_string(&data)?.replace('<', "\\u003c");
    let id = crate::util::xml::escape(run_id);
    Ok(include_str!("page.html")
        .replace("__RUN_ID__", &id)
        .replacen("__DATA__", &json, 1))
}

/// Writes `review.html` into `run_dir` from its `records.jsonl`.
pub fn write_page(run_dir: &Path, page_num_offset: u32) -> Result<PathBuf> {
    let records = crate::export::read_records(run_dir)?;
    let run_id = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let html = render(&run_id, &records, page_num_offset)?;
    let path = run_dir.join(PAGE_FILE);
    fs::write(&path, html).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// What [`make_thumbnails`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ThumbCounts {
    pub made: usize,
    pub cached: usize,
    /// Files gone or changed since the run, or pages that did not render.
    pub failed: usize,
}

/// The thumbnails one record's review row shows: the document, its
/// content hash, and the 0-based pages whose PNG is not made yet.
#[derive(Debug, Clone)]
pub struct ThumbJob {
    pub path: PathBuf,
    pub hash: crate::model::DocHash,
    pub missing: Vec<u32>,
    /// Thumbnails of the row already there.
    pub cached: usize,
}

/// What `r`'s row needs drawn (`None`: nothing, or no content hash).
pub fn thumb_job(
    cache_dir: &Path,
    data_dir: &Path,
    r: &Record,
    page_num_offset: u32,
) -> Option<ThumbJob> {
    let hash = r.blake3.as_deref().and_then(parse_hash)?;
    // A path that leaves the data folder is never opened.
    let path = crate::export::current_path(r, data_dir).ok()?;
    let wanted: Vec<u32> = row(r, page_num_offset)
        .thumbs
        .iter()
        .map(|t| t.page - page_num_offset)
        .collect();
    let total = wanted.len();
    let missing: Vec<u32> = wanted
        .into_iter()
        .filter(|&i| !cache_dir.join(thumb_rel(&hash.hex(), i)).exists())
        .collect();
    (total > 0).then(|| ThumbJob {
        path,
        hash,
        cached: total - missing.len(),
        missing,
    })
}

fn parse_hash(hex: &str) -> Option<crate::model::DocHash> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        out[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(crate::model::DocHash(out))
}

/// Renders the missing thumbnails of `jobs` into `cache/thumbs/` with the
/// pdfium worker processes of `sessions`, `threads` documents at once
/// (copies of one content, one hash, drawn once). A file that changed
/// since its record (another hash: the worker refuses it) or is gone gets
/// none.
pub fn make_thumbnails(
    sessions: &dyn crate::inspect::session::SessionSource,
    cache_dir: &Path,
    jobs: &[ThumbJob],
    threads: usize,
) -> ThumbCounts {
    let mut seen = std::collections::HashSet::new();
    let jobs: Vec<&ThumbJob> = jobs.iter().filter(|j| seen.insert(j.hash.0)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let counts = std::sync::Mutex::new(ThumbCounts::default());
    let add = |c: ThumbCounts| {
        let mut all = counts.lock().unwrap_or_else(|p| p.into_inner());
        all.made += c.made;
        all.cached += c.cached;
        all.failed += c.failed;
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1).min(jobs.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    add(draw(sessions, cache_dir, job));
                }
            });
        }
    });
    counts.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// One document's missing thumbnails, through one worker.
fn draw(
    sessions: &dyn crate::inspect::session::SessionSource,
    cache_dir: &Path,
    job: &ThumbJob,
) -> ThumbCounts {
    let mut counts = ThumbCounts {
        cached: job.cached,
        ..ThumbCounts::default()
    };
    if job.missing.is_empty() {
        return counts;
    }
    let opened = sessions.session().and_then(|mut s| {
        s.open(&job.path, &job.hash)?;
        Ok(s)
    });
    let Ok(mut session) = opened else {
        counts.failed += job.missing.len();
        return counts;
    };
    let hex = job.hash.hex();
    for &index in &job.missing {
        let made = session
            .render(index, THUMB_DPI)
            .ok()
            .and_then(|img| save_png(&img, &cache_dir.join(thumb_rel(&hex, index))).ok());
        match made {
            Some(()) => counts.made += 1,
            None => counts.failed += 1,
        }
    }
    counts
}

/// Written under a temporary name and renamed: a reader never sees half a
/// PNG, and an interrupted run leaves no broken thumbnail behind.
fn save_png(img: &image::GrayImage, dest: &Path) -> Result<()> {
    let dir = dest.parent().context("thumbnail folder")?;
    fs::create_dir_all(dir)?;
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )?;
    let tmp = dir.join(format!(
        ".{}.{}",
        dest.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, dest)?;
    Ok(())
}

/// `colophon review`: makes the missing thumbnails of the run (the latest
/// by default) with `sessions`' worker processes, writes its page again
/// and opens it with `browser` (`BROWSER`; empty: `xdg-open`), or says
/// where it is. Returns the page's path.
pub fn command(
    sessions: &dyn crate::inspect::session::SessionSource,
    threads: usize,
    cache_dir: &Path,
    data_dir: &Path,
    page_num_offset: u32,
    run_id: Option<&str>,
    browser: Option<&str>,
) -> Result<PathBuf> {
    let run_dir = crate::runs::RunDir::find(cache_dir, run_id)?.path;
    let records = crate::export::read_records(&run_dir)?;
    let jobs: Vec<ThumbJob> = records
        .iter()
        .filter_map(|r| thumb_job(cache_dir, data_dir, r, page_num_offset))
        .collect();
    let counts = make_thumbnails(sessions, cache_dir, &jobs, threads);
    eprintln!(
        "colophon: thumbnails: {} made, {} already there, {} could not be made (file gone or changed)",
        counts.made, counts.cached, counts.failed
    );
    let page = write_page(&run_dir, page_num_offset)?;
    let page = page.canonicalize().unwrap_or(page);
    println!("{}", page.display());
    if let Some(browser) = browser {
        let opener = Some(browser.trim())
            .filter(|b| !b.is_empty())
            .unwrap_or("xdg-open");
        let started = std::process::Command::new(opener)
            .arg(&page)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if started.is_err() {
            eprintln!(
                "colophon: no browser found ({}); open file://{} in one",
                opener,
                page.display()
            );
        }
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Metadata, Source, Via};

    fn record() -> Record {
        let mut r = Record::error(
            "books/a</script>.pdf".into(),
            Some("ff".repeat(32)),
            String::new(),
        );
        r.status = Status::Complete;
        r.error = None;
        r.metadata = Metadata {
            title: Some("Weaving".into()),
            authors: vec!["Agnes Thornquist".into()],
            year: Some(1972),
            ..Metadata::default()
        };
        r.unsure.publisher = Some("Millbrook".into());
        r.proposed_filename = Some("Thornquist - Weaving (1972).pdf".into());
        for (f, page) in [("title", 2), ("authors", 2), ("year", 3), ("publisher", 3)] {
            r.sources.insert(
                f.into(),
                Source {
                    page: Some(page),
                    via: Via::Text,
                    confidence: Some(0.95),
                },
            );
        }
        r
    }

    #[test]
    fn rows_carry_fields_by_confidence_and_one_thumbnail_per_source_page() {
        let r = record();
        let row = row(&r, 1);
        assert!(row.changed && row.approvable);
        let view: Vec<(&str, &str, bool)> = row
            .fields
            .iter()
            .map(|f| (f.name, f.value.as_str(), f.sure))
            .collect();
        assert_eq!(
            view,
            [
                ("title", "Weaving", true),
                ("authors", "Agnes Thornquist", true),
                ("publisher", "Millbrook", false),
                ("year", "1972", true),
            ]
        );
        assert_eq!(row.fields[0].source, "p. 2, text, 0.95");
        let thumbs: Vec<(u32, &str, &str)> = row
            .thumbs
            .iter()
            .map(|t| (t.page, t.fields.as_str(), t.src.as_str()))
            .collect();
        let hash = "ff".repeat(32);
        assert_eq!(
            thumbs,
            [
                (
                    2,
                    "title, authors",
                    format!("../../thumbs/v2/{hash}-1.png").as_str()
                ),
                (
                    3,
                    "publisher, year",
                    format!("../../thumbs/v2/{hash}-2.png").as_str()
                ),
            ]
        );
    }

    #[test]
    fn the_page_is_self_contained_and_its_data_cannot_close_the_script() {
        let mut r = record();
        r.metadata.title = Some("Weaving <!--<script> and </script> looms".into());
        let html = render("20260101-000000-1", &[r], 1).unwrap();
        let data_at = html.find("id=\"data\">").unwrap();
        let script_at = html[data_at..].find("</script>").unwrap() + data_at;
        assert!(
            !html[data_at + 10..script_at].contains('<'),
            "no `<` in the data block: no <!--, <script or </ for the HTML parser"
        );
        assert!(!html.contains("__DATA__") && !html.contains("__RUN_ID__"));
        assert!(!html.contains("a</script>.pdf"), "the path is escaped");
        assert!(html.contains("a\\u003c/script>.pdf"));
        // No fetches: no external URL, script or font.
        for bad in [
            "http://",
            "https://",
            "<link",
            "src=\"http",
            "@import",
            "fetch(",
        ] {
            assert!(!html.contains(bad), "{bad}");
        }
        let data_start = html.find("id=\"data\">").unwrap() + "id=\"data\">".len();
        let data_end = html[data_start..].find("</script>").unwrap() + data_start;
        let data: serde_json::Value = serde_json::from_str(&html[data_start..data_end]).unwrap();
        assert_eq!(data["run"], "20260101-000000-1");
        assert_eq!(data["records"][0]["path"], "books/a</script>.pdf");
        assert_eq!(
            data["records"][0]["fields"][0]["value"],
            "Weaving <!--<script> and </script> looms"
        );
    }
}
