//! End-to-end online lookups (issue 14): the built binary against one fake
//! catalogue per source on 127.0.0.1 (`colophon::fixtures::fake_catalogue`),
//! answering in the real APIs' shape with invented books. Every test points
//! all four base URLs at local servers (or a closed port), so nothing here
//! can reach the internet.

use crate::fake_catalogue::{Api, Book, FakeCatalogue, Reply, closed_port_url};
use crate::util::{TestProject, record_for, stderr};
use std::process::{Command, Output};
use std::time::Duration;

/// One fake server per source.
struct Catalogues {
    ol: FakeCatalogue,
    doi: FakeCatalogue,
    crossref: FakeCatalogue,
    loc: FakeCatalogue,
}

impl Catalogues {
    fn serving(books: Vec<Book>) -> Catalogues {
        Catalogues {
            ol: FakeCatalogue::serving(Api::OpenLibrary, books.clone()),
            doi: FakeCatalogue::serving(Api::Doi, books.clone()),
            crossref: FakeCatalogue::serving(Api::Crossref, books.clone()),
            loc: FakeCatalogue::serving(Api::Loc, books),
        }
    }

    fn all(&self) -> [&FakeCatalogue; 4] {
        [&self.ol, &self.doi, &self.crossref, &self.loc]
    }

    fn urls(&self) -> [String; 4] {
        self.all().map(FakeCatalogue::base_url)
    }

    fn requests(&self) -> usize {
        self.all().iter().map(|c| c.count()).sum()
    }
}

/// `colophon <args>` with every source at the given base URLs, a contact,
/// short timeouts and rate limits a test need not wait for.
fn online_cmd(p: &TestProject, urls: &[String; 4], args: &[&str]) -> Command {
    let mut c = p.cmd();
    for (key, url) in [
        "ONLINE_OPENLIBRARY_URL",
        "ONLINE_DOI_URL",
        "ONLINE_CROSSREF_URL",
        "ONLINE_LOC_URL",
    ]
    .iter()
    .zip(urls)
    {
        c.env(key, url);
    }
    c.env("ONLINE_CONTACT", "librarian@example.org")
        .env("ONLINE_TIMEOUT", "2")
        .env(
            "ONLINE_RATE_LIMITS",
            r#"{"openlibrary": 100, "doi": 100, "crossref": 100, "loc": 100}"#,
        )
        .args(args);
    c
}

/// Base URLs for `online_cmd`: the given servers, a closed port for `None`.
fn urls(servers: [Option<&FakeCatalogue>; 4]) -> [String; 4] {
    servers.map(|s| s.map_or_else(closed_port_url, FakeCatalogue::base_url))
}

/// `run` that must exit 0.
fn run_ok(c: Command) -> Vec<serde_json::Value> {
    let (out, records) = run(c);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    records
}

/// Runs and parses `--json` records (stderr kept: no `-q`).
fn run(mut c: Command) -> (Output, Vec<serde_json::Value>) {
    let out = c.arg("--json").output().expect("running colophon");
    let records = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    (out, records)
}

/// A one-page PDF with Helvetica lines `(size, text)` from the top.
fn text_pdf(lines: &[(u32, &str)]) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.4");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let mut ops = String::new();
    let mut y = 700;
    for (size, text) in lines {
        ops.push_str(&format!("BT /F1 {size} Tf 72 {y} Td ({text}) Tj ET\n"));
        y -= (*size as i32) * 2 + 10;
    }
    let content = doc.add_object(Stream::new(dictionary! {}, ops.into_bytes()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Contents" => content,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font_id } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![Object::Reference(page)], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// An invented book filed under the ISBN 978-1-915862-40-2.
fn lantern_book() -> Book {
    Book {
        isbns: vec!["9781915862402".into()],
        title: "The Lantern Keepers".into(),
        subtitle: Some("A History of Coastal Lights".into()),
        authors: vec!["Mirela Castellanos".into(), "Ode Winterbourne".into()],
        publisher: Some("Harwick & Lowe".into()),
        year: Some(2022),
        ..Book::default()
    }
}

#[test]
fn a_scanned_book_whose_only_clean_text_is_its_isbn_gets_title_authors_publisher_and_year() {
    let cat = Catalogues::serving(vec![lantern_book()]);
    let p = TestProject::new();
    // A page image (no text layer) on which OCR can read the ISBN alone.
    let source = p.root().join("source.pdf");
    std::fs::write(&source, text_pdf(&[(16, "ISBN 978-1-915862-40-2")])).unwrap();
    crate::util::image_only_copy(&source, &[0], 300, &p.data().join("scan.pdf"));

    // Offline: nothing to name the file by.
    let (_, offline) = p.run_json(&["run"]);
    let r = record_for(&offline, "scan.pdf");
    assert_eq!(r["metadata"]["isbn"], "9781915862402", "{r:#}");
    assert_eq!(r["status"], "incomplete");

    let records = run_ok(online_cmd(&p, &cat.urls(), &["run", "--online"]));
    let r = record_for(&records, "scan.pdf");
    let m = &r["metadata"];
    assert_eq!(m["title"], "The Lantern Keepers", "{r:#}");
    assert_eq!(m["subtitle"], "A History of Coastal Lights");
    assert_eq!(
        m["authors"],
        serde_json::json!(["Mirela Castellanos", "Ode Winterbourne"])
    );
    assert_eq!(m["publisher"], "Harwick & Lowe");
    assert_eq!(m["year"], 2022);
    assert_eq!(r["status"], "complete");
    assert_eq!(
        r["proposed_filename"],
        "Castellanos, Winterbourne - The Lantern Keepers (2022).pdf"
    );
    // Marked as the catalogue's, and the ISBN as the page's.
    assert_eq!(r["sources"]["title"]["via"], "online:openlibrary");
    assert_eq!(r["sources"]["isbn"]["via"], "ocr");
    let filled = r["online"]["filled"].as_array().unwrap();
    for f in ["title", "authors", "publisher", "year"] {
        assert!(
            filled.contains(&f.into()),
            "{f} not marked as filled: {r:#}"
        );
    }
    // Exactly one request, carrying the ISBN and nothing else.
    let reqs = cat.ol.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].path,
        "/api/books?bibkeys=ISBN:9781915862402&jscmd=data&format=json"
    );
    let ua = reqs[0].header("user-agent").unwrap();
    assert!(
        ua.starts_with("colophon/") && ua.contains("mailto:librarian@example.org"),
        "{ua}"
    );
    assert_eq!(cat.doi.count() + cat.crossref.count() + cat.loc.count(), 0);
}

#[test]
fn a_papers_doi_fills_its_authors_from_the_resolver() {
    let paper = Book {
        doi: Some("10.99999/jgs.v012.i03".into()),
        title: "Tidal Phase Estimation in Shallow Estuaries".into(),
        authors: vec!["Ines Marwick".into(), "Tomas Pohatu".into()],
        publisher: Some("Journal of Geodetic Software".into()),
        year: Some(2019),
        ..Book::default()
    };
    let cat = Catalogues::serving(vec![paper]);
    let p = TestProject::new();
    p.write(
        "paper.pdf",
        &text_pdf(&[
            (22, "Tidal Phase Estimation in Shallow Estuaries"),
            (10, "Journal of Geodetic Software, Volume 12, Issue 3"),
            (9, "DOI: 10.99999/jgs.v012.i03"),
        ]),
    );
    let records = run_ok(online_cmd(&p, &cat.urls(), &["run", "--online"]));
    let r = record_for(&records, "paper.pdf");
    assert_eq!(
        r["metadata"]["authors"],
        serde_json::json!(["Ines Marwick", "Tomas Pohatu"]),
        "{r:#}"
    );
    assert_eq!(r["sources"]["authors"]["via"], "online:doi");
    assert_eq!(r["status"], "complete");
    // The resolver was asked by content negotiation and answered: Crossref
    // (the second source) was not needed.
    let reqs = cat.doi.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/10.99999/jgs.v012.i03");
    assert_eq!(
        reqs[0].header("accept"),
        Some("application/vnd.citationstyles.csl+json")
    );
    assert_eq!(cat.crossref.count(), 0);
}

#[test]
fn crossref_answers_when_the_resolver_fails() {
    let paper = Book {
        doi: Some("10.99999/jgs.v012.i03".into()),
        title: "Tidal Phase Estimation in Shallow Estuaries".into(),
        authors: vec!["Ines Marwick".into()],
        ..Book::default()
    };
    let crossref = FakeCatalogue::serving(Api::Crossref, vec![paper]);
    let p = TestProject::new();
    p.write(
        "paper.pdf",
        &text_pdf(&[
            (22, "Tidal Phase Estimation in Shallow Estuaries"),
            (9, "https://doi.org/10.99999/jgs.v012.i03"),
        ]),
    );
    let records = run_ok(online_cmd(
        &p,
        &urls([None, None, Some(&crossref), None]),
        &["run", "--online"],
    ));
    let r = record_for(&records, "paper.pdf");
    assert_eq!(
        r["metadata"]["authors"],
        serde_json::json!(["Ines Marwick"]),
        "{r:#}"
    );
    assert_eq!(r["sources"]["authors"]["via"], "online:crossref");
    let path = &crossref.requests()[0].path;
    assert_eq!(
        path,
        "/works/10.99999/jgs.v012.i03?mailto=librarian@example.org"
    );
    // The resolver's failure is a warning on the record, not an error.
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("online: doi lookup of doi:10.99999/jgs.v012.i03 failed"),
        "{warnings}"
    );
}

#[test]
fn a_disagreement_is_warned_about_and_the_printed_title_stands() {
    let other = Book {
        isbns: vec!["9780876112038".into()],
        title: "Knots and Nets of the North Sea".into(),
        authors: vec!["Agnes Thornquist".into(), "Beatrice L. Hume".into()],
        publisher: Some("Millbrook Craft Books".into()),
        year: Some(1972),
        ..Book::default()
    };
    let cat = Catalogues::serving(vec![other]);
    let p = TestProject::new();
    p.add("book-p03-asis.pdf", "looms.pdf");
    let records = run_ok(online_cmd(&p, &cat.urls(), &["run", "--online"]));
    let r = record_for(&records, "looms.pdf");
    // Never silently overwritten: the printed title stands (it is very sure).
    assert_eq!(r["metadata"]["title"], "Weaving on Simple Looms", "{r:#}");
    assert_eq!(r["sources"]["title"]["via"], "text");
    let conflict = &r["online"]["conflicts"][0];
    assert_eq!(conflict["field"], "title");
    assert_eq!(conflict["catalogue"], "Knots and Nets of the North Sea");
    assert_eq!(conflict["outcome"], "page stands");
    let warning = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w.as_str().unwrap().contains("Knots and Nets"))
        .unwrap_or_else(|| panic!("no warning: {r:#}"));
    assert!(
        warning
            .as_str()
            .unwrap()
            .starts_with("online: title: the page says")
    );
    // The authors agree: confirmed, with a higher confidence than offline.
    assert!(
        r["online"]["confirmed"]
            .as_array()
            .unwrap()
            .contains(&"authors".into())
    );
    // The LCCN was asked too; loc.gov does not know it: not an error.
    assert_eq!(cat.loc.count(), 1);
    assert_eq!(r["online"]["lookups"][1]["result"], "not-found");
    let md = std::fs::read_to_string(p.root().join("cache/runs/latest/ann/looms--ann.md")).unwrap();
    assert!(md.contains("## Online catalogues"), "{md}");
    assert!(
        md.contains("Conflict on title") && md.contains("Knots and Nets of the North Sea"),
        "{md}"
    );
}

#[test]
fn retry_after_on_429_is_honoured() {
    let book = lantern_book();
    let ol = FakeCatalogue::start(move |n, r| {
        if n == 0 {
            Reply::WithHeaders(
                429,
                vec![("Retry-After".into(), "2".into())],
                "{\"error\": \"slow down\"}".into(),
            )
        } else {
            crate::fake_catalogue::answer(Api::OpenLibrary, std::slice::from_ref(&book), r)
        }
    });
    let p = TestProject::new();
    p.write("b.pdf", &text_pdf(&[(10, "ISBN 978-1-915862-40-2")]));
    let records = run_ok(online_cmd(
        &p,
        &urls([Some(&ol), None, None, None]),
        &["run", "--online"],
    ));
    let r = record_for(&records, "b.pdf");
    assert_eq!(r["metadata"]["title"], "The Lantern Keepers", "{r:#}");
    let reqs = ol.requests();
    assert_eq!(reqs.len(), 2, "one 429, one answer");
    let gap = reqs[1].at.duration_since(reqs[0].at);
    assert!(gap >= Duration::from_millis(1900), "waited only {gap:?}");
    assert!(gap < Duration::from_secs(6), "waited {gap:?}");
}

#[test]
fn a_dead_source_is_switched_off_after_five_failures_with_one_message() {
    let ol = FakeCatalogue::start(|_, _| Reply::Body(500, "{\"error\": \"down\"}".into()));
    let p = TestProject::new();
    for (i, isbn) in [
        "978-1-915862-40-2",
        "978-0-87611-203-8",
        "978-1-83729-511-1",
        "978-1-80511-017-0",
    ]
    .iter()
    .enumerate()
    {
        p.write(
            &format!("b{i}.pdf"),
            &text_pdf(&[(10, &format!("ISBN {isbn}"))]),
        );
    }
    let only_ol = urls([Some(&ol), None, None, None]);
    let (out, records) = run(online_cmd(&p, &only_ol, &["run", "--online", "-j", "1"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(records.len(), 4);
    // Off after five failed requests in a row. Lookups run concurrently
    // (one per document at most), so a request another lookup had already
    // sent when the fifth failed still counts: at most three more here.
    assert!((5..=8).contains(&ol.count()), "{} requests", ol.count());
    let err = stderr(&out);
    assert_eq!(err.matches("switched off").count(), 1, "{err}");
    assert!(
        err.contains("online: openlibrary switched off for this run after 5 failed requests"),
        "{err}"
    );
    for r in &records {
        let w = r["warnings"].to_string();
        assert!(w.contains("online: openlibrary lookup of isbn:"), "{r:#}");
    }
    // A failure is never cached: the next run asks again.
    let before = ol.count();
    let _ = run(online_cmd(&p, &only_ol, &["run", "--online"]));
    assert!(ol.count() > before);
}

#[test]
fn the_default_sends_nothing_and_a_rerun_sends_no_request() {
    let mut book = lantern_book();
    book.lccn = Some("2021038846".into());
    let cat = Catalogues::serving(vec![book]);
    let p = TestProject::new();
    p.write(
        "b.pdf",
        &text_pdf(&[(10, "ISBN 978-1-915862-40-2"), (10, "LCCN 2021038846")]),
    );
    let u = cat.urls();

    // Off by default: every source's URL is set, none is even connected to.
    let (out, records) = run(online_cmd(&p, &u, &["run"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(records[0].get("online").is_none(), "{:#}", records[0]);
    for c in cat.all() {
        assert_eq!(c.connections(), 0, "a connection to {}", c.base_url());
    }

    let (_, first) = run(online_cmd(&p, &u, &["run", "--online"]));
    assert_eq!(cat.ol.count(), 1);
    assert_eq!(cat.loc.count(), 1);
    assert_eq!(first[0]["metadata"]["title"], "The Lantern Keepers");
    assert_eq!(p.summary()["online requests"], 2);

    let (_, again) = run(online_cmd(&p, &u, &["run", "--online"]));
    assert_eq!(cat.requests(), 2, "the rerun asked again");
    assert_eq!(again[0]["metadata"], first[0]["metadata"]);
    assert_eq!(again[0]["online"]["lookups"][0]["cached"], true);
    let s = p.summary();
    assert_eq!(
        (s["online requests"], s["online answers from the cache"]),
        (0, 2)
    );

    // `cache stats` counts the answers kept; `cache clear --online` drops
    // them alone, so the next run asks again and nothing else is redone.
    let stats = online_cmd(&p, &u, &["cache", "stats"]).output().unwrap();
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(
        text.contains("online lookups kept: 2 found, 0 not found"),
        "{text}"
    );
    let clear = online_cmd(&p, &u, &["cache", "clear", "--online"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&clear.stdout).contains("cleared 2 online"));
    let (_, _) = run(online_cmd(&p, &u, &["run", "--online"]));
    assert_eq!(cat.requests(), 4);
    assert_eq!(p.summary()["records from the cache"], 1);
}

#[test]
fn bad_answers_never_fail_the_run_and_are_not_cached() {
    let ol = FakeCatalogue::start(|_, _| Reply::Body(200, "<html>Bad Gateway</html>".into()));
    let doi = FakeCatalogue::start(|_, _| Reply::Endless);
    let crossref = FakeCatalogue::start(|_, _| {
        Reply::Body(200, "{\"status\": \"ok\", \"message\": 7}".into())
    });
    let loc = FakeCatalogue::start(|_, _| {
        Reply::Delayed(
            Duration::from_secs(4),
            Box::new(Reply::Body(200, "{}".into())),
        )
    });
    let p = TestProject::new();
    p.write(
        "b.pdf",
        &text_pdf(&[
            (18, "The Lantern Keepers"),
            (10, "ISBN 978-1-915862-40-2"),
            (10, "DOI 10.99999/lk.2022.1"),
            (10, "LCCN 2021038846"),
        ]),
    );
    let u = urls([Some(&ol), Some(&doi), Some(&crossref), Some(&loc)]);
    let started = std::time::Instant::now();
    let (out, records) = run(online_cmd(&p, &u, &["run", "--online"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
    let r = record_for(&records, "b.pdf");
    let results: Vec<(&str, &str)> = r["online"]["lookups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["source"].as_str().unwrap(), l["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        [
            ("openlibrary", "failed"),
            ("doi", "failed"),
            ("crossref", "failed"),
            ("loc", "failed")
        ],
        "{r:#}"
    );
    let details = r["online"]["lookups"].to_string();
    assert!(details.contains("unreadable answer"), "{details}");
    assert!(details.contains("larger than"), "{details}");
    assert!(details.contains("ONLINE_TIMEOUT"), "{details}");
    let title = [&r["metadata"]["title"], &r["unsure"]["title"]];
    assert!(
        title.contains(&&serde_json::json!("The Lantern Keepers")),
        "{r:#}"
    );
    // Nothing was cached: a rerun asks every source again.
    let counts = |all: [&FakeCatalogue; 4]| all.map(|c| c.count());
    let before = counts([&ol, &doi, &crossref, &loc]);
    let _ = run(online_cmd(&p, &u, &["run", "--online"]));
    let after = counts([&ol, &doi, &crossref, &loc]);
    for (b, a) in before.iter().zip(after) {
        assert!(a > *b, "{before:?} -> {after:?}");
    }
}

#[test]
fn lookup_prints_the_catalogue_record() {
    let mut book = lantern_book();
    book.lccn = Some("2021038846".into());
    let cat = Catalogues::serving(vec![book]);
    let p = TestProject::new();
    let u = cat.urls();
    let out = online_cmd(
        &p,
        &u,
        &["lookup", "978-1-915862-40-2", "lccn:2021038846", "--json"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "isbn:9781915862402");
    assert_eq!(lines[0]["metadata"]["title"], "The Lantern Keepers");
    assert_eq!(lines[0]["sources"]["title"], "online:openlibrary");
    assert_eq!(lines[1]["metadata"]["authors"][0], "Mirela Castellanos");
    assert_eq!(lines[1]["sources"]["year"], "online:loc");
    // The table form, from the cache this time.
    let out = online_cmd(&p, &u, &["lookup", "9781915862402"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("title      The Lantern Keepers  (online:openlibrary)"),
        "{text}"
    );
    assert!(text.contains("from the cache"), "{text}");
    assert_eq!(cat.requests(), 2);
    // Not an identifier: a usage error, nothing asked.
    let out = online_cmd(&p, &u, &["lookup", "978-1-915862-40-3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not an ISBN"), "{}", stderr(&out));
    assert_eq!(cat.requests(), 2);
}

/// Lookups are concurrent with the run: a second document's lookup goes
/// out while the first one's answer is still awaited. The fake Open
/// Library holds each request until two are in, and answers "not found"
/// to one left alone for a minute: one lookup at a time would wait a
/// minute and leave the first book unnamed.
#[test]
fn two_documents_are_looked_up_at_once() {
    use std::sync::{Arc, Condvar, Mutex};
    let mut second = lantern_book();
    second.isbns = vec!["9781915862419".into()];
    second.title = "Harbour Lights of the North".into();
    let books = vec![lantern_book(), second];
    let arrived = Arc::new((Mutex::new(0usize), Condvar::new()));
    let ol = {
        let arrived = Arc::clone(&arrived);
        FakeCatalogue::start(move |_, r| {
            let (count, cv) = &*arrived;
            let mut n = count.lock().unwrap();
            *n += 1;
            cv.notify_all();
            let (n, _) = cv
                .wait_timeout_while(n, Duration::from_secs(60), |n| *n < 2)
                .unwrap();
            if *n >= 2 {
                crate::fake_catalogue::answer(Api::OpenLibrary, &books, r)
            } else {
                Reply::Body(404, "{}".into())
            }
        })
    };
    let p = TestProject::new();
    p.write("a.pdf", &text_pdf(&[(10, "ISBN 978-1-915862-40-2")]));
    p.write("b.pdf", &text_pdf(&[(10, "ISBN 978-1-915862-41-9")]));
    let mut c = online_cmd(
        &p,
        &urls([Some(&ol), None, None, None]),
        &["run", "--online"],
    );
    c.env("ONLINE_TIMEOUT", "120");
    let records = run_ok(c);
    assert_eq!(ol.count(), 2);
    assert_eq!(
        record_for(&records, "a.pdf")["metadata"]["title"],
        "The Lantern Keepers"
    );
    assert_eq!(
        record_for(&records, "b.pdf")["metadata"]["title"],
        "Harbour Lights of the North"
    );
}
