//! Fake online catalogues answering from a corpus' `truth.json`, for
//! measuring what `--online` does to a corpus without the internet:
//!
//! ```sh
//! cargo run --example fake_catalogue -- ../shared/corpus/truth.json > env.sh &
//! . env.sh; colophon run --online --json
//! ```
//!
//! Starts one server per source on 127.0.0.1 (`colophon::fixtures::fake_catalogue`),
//! each knowing every document of the truth file under its ISBNs, DOI and
//! LCCN, prints the `export ONLINE_*_URL=...` lines to use them, and serves
//! until killed.

use colophon::fixtures::fake_catalogue::{Api, Book, FakeCatalogue};

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus/truth.json".into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let truth: Vec<serde_json::Value> = serde_json::from_str(&text).expect("truth.json is a list");
    let mut books: Vec<Book> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for doc in &truth {
        let id = doc["doc"].as_str().unwrap_or_default().to_string();
        if !seen.insert(id) {
            continue;
        }
        let t = &doc["truth"];
        let s = |k: &str| t[k].as_str().map(str::to_string);
        let strings = |k: &str| -> Vec<String> {
            t[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        books.push(Book {
            isbns: strings("isbn"),
            doi: s("doi"),
            lccn: s("loc"),
            title: s("title").unwrap_or_default(),
            subtitle: s("subtitle"),
            authors: strings("authors"),
            publisher: s("publisher"),
            year: t["year"].as_i64().map(|y| y as i32),
            edition: s("edition"),
        });
    }
    let servers = [
        (
            "ONLINE_OPENLIBRARY_URL",
            FakeCatalogue::serving(Api::OpenLibrary, books.clone()),
        ),
        (
            "ONLINE_DOI_URL",
            FakeCatalogue::serving(Api::Doi, books.clone()),
        ),
        (
            "ONLINE_CROSSREF_URL",
            FakeCatalogue::serving(Api::Crossref, books.clone()),
        ),
        ("ONLINE_LOC_URL", FakeCatalogue::serving(Api::Loc, books)),
    ];
    for (key, s) in &servers {
        println!("export {key}={}", s.base_url());
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let mut told = 0;
    loop {
        std::thread::sleep(std::time::Duration::from_secs(5));
        let asked: usize = servers.iter().map(|(_, s)| s.count()).sum();
        if asked != told {
            eprintln!("fake catalogues: {asked} requests so far");
            told = asked;
        }
    }
}
