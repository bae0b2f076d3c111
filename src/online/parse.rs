//! Readers of the catalogues' answers, each a pure function from the body
//! of a `200` answer to the catalogue's [`Metadata`] about the identifier:
//! `Ok(None)` when the answer says the catalogue has no record, `Err` when
//! the body is not what the service sends (garbage, an error page): such
//! an answer is a failure, never cached.
//!
//! Every value is normalised to the SPEC 7 form the page values have, so
//! `decide::catalogue` compares like with like: names as "First Last",
//! years as integers, editions as "2" or "revised", ISBN-13 digits,
//! lower-case DOIs, normalised LCCNs.
//!
//! Response forms (checked against the services' documentation):
//! - Open Library Books API, `GET /api/books?bibkeys=ISBN:<isbn>&jscmd=data&format=json`:
//!   an object keyed by the bibkey (`{}` when unknown) holding `title`,
//!   `subtitle`, `authors: [{name}]`, `publishers: [{name}]`,
//!   `publish_date` (free text), `identifiers: {isbn_13, isbn_10, lccn}`.
//! - DOI content negotiation, `Accept: application/vnd.citationstyles.csl+json`:
//!   one CSL-JSON item (`title`, `author: [{given, family} | {literal}]`,
//!   `publisher`, `issued: {date-parts: [[y, m, d]]}`, `ISBN`, `DOI`,
//!   `edition`); `title` and `ISBN` may be a string or a list.
//! - Crossref REST, `GET /works/<doi>`: `{"status": "ok", "message": <work>}`
//!   where the work has the same keys with `title`/`subtitle` as lists.
//! - loc.gov JSON API, `GET /item/<lccn>/?fo=json`: `{"item": {...}}` with
//!   `title` (MARC style "Title : subtitle / by ..."), `contributor_names`
//!   ("Last, First, 1950-"), `date`, `created_published` ("Place :
//!   Publisher, 1998."), `number_lccn`.

use crate::extract::{doi, isbn, lccn};
use crate::model::Metadata;
use serde_json::Value;

/// Open Library's Books API answer for `isbn` (13 digits).
pub fn open_library(body: &str, isbn13: &str) -> Result<Option<Metadata>, String> {
    let v = json(body)?;
    let obj = v.as_object().ok_or("not a JSON object")?;
    // The key is the bibkey as asked; accept any ISBN key so that a mirror
    // that answers under the ISBN-10 form is read too.
    let Some(book) = obj.get(&format!("ISBN:{isbn13}")).or_else(|| {
        obj.iter()
            .find(|(k, _)| k.starts_with("ISBN:"))
            .map(|(_, v)| v)
    }) else {
        return Ok(None);
    };
    let book = book.as_object().ok_or("the book is not an object")?;
    let mut m = Metadata {
        title: text(book.get("title")),
        subtitle: text(book.get("subtitle")),
        authors: list(book.get("authors"))
            .iter()
            .filter_map(|a| text(a.get("name")))
            .map(|n| person(&n))
            .filter(|n| !n.is_empty())
            .collect(),
        publisher: list(book.get("publishers"))
            .iter()
            .find_map(|p| text(p.get("name")).or_else(|| text(Some(p)))),
        year: text(book.get("publish_date")).and_then(|d| year_in(&d)),
        edition: text(book.get("edition_name")).and_then(|e| edition(&e)),
        ..Metadata::default()
    };
    let ids = book.get("identifiers");
    let ids = |k: &str| -> Vec<String> {
        list(ids.and_then(|i| i.get(k)))
            .iter()
            .filter_map(|v| text(Some(v)))
            .collect()
    };
    // The record is the one filed under the ISBN asked.
    m.isbn = Some(isbn13.to_string());
    m.loc = ids("lccn").iter().find_map(|l| lccn::normalize(l));
    if m.title.is_none() && m.authors.is_empty() {
        return Err("the record has neither title nor authors".into());
    }
    Ok(Some(m))
}

/// A CSL-JSON item (DOI content negotiation).
pub fn csl(body: &str) -> Result<Option<Metadata>, String> {
    let v = json(body)?;
    // Content negotiation answers one item; a list of one is read too.
    let item = match &v {
        Value::Array(items) => items.first().ok_or("an empty list")?,
        other => other,
    };
    work(item).map(Some)
}

/// Crossref's REST answer about one work.
pub fn crossref(body: &str) -> Result<Option<Metadata>, String> {
    let v = json(body)?;
    if v.get("status").and_then(Value::as_str) != Some("ok") {
        return Err("status is not \"ok\"".into());
    }
    work(v.get("message").ok_or("no message")?).map(Some)
}

/// The fields of a CSL item or a Crossref work (same keys).
fn work(w: &Value) -> Result<Metadata, String> {
    if !w.is_object() {
        return Err("the work is not an object".into());
    }
    let names = |key: &str| -> Vec<String> {
        list(w.get(key))
            .iter()
            .filter_map(|a| {
                let given = text(a.get("given"));
                let family = text(a.get("family"));
                match (given, family) {
                    (Some(g), Some(f)) => Some(format!("{g} {f}")),
                    (None, Some(f)) => Some(f),
                    _ => text(a.get("literal")).or_else(|| text(a.get("name"))),
                }
            })
            .map(|n| person(&n))
            .filter(|n| !n.is_empty())
            .collect()
    };
    let mut authors = names("author");
    if authors.is_empty() {
        // An edited volume: its editors are what a title page names.
        authors = names("editor");
    }
    let year = [
        "issued",
        "published-print",
        "published",
        "published-online",
        "created",
    ]
    .iter()
    .find_map(|k| date_year(w.get(*k)));
    let m = Metadata {
        title: first_text(w.get("title")),
        subtitle: first_text(w.get("subtitle")),
        authors,
        publisher: text(w.get("publisher")),
        year,
        edition: first_text(w.get("edition"))
            .or_else(|| first_text(w.get("edition-number")))
            .and_then(|e| edition(&e)),
        isbn: list_or_one(w.get("ISBN"))
            .iter()
            .find_map(|i| isbn::to_isbn13(i)),
        doi: text(w.get("DOI")).and_then(|d| doi::normalize(&d)),
        loc: None,
    };
    if m.title.is_none() && m.authors.is_empty() {
        return Err("the record has neither title nor authors".into());
    }
    Ok(m)
}

/// loc.gov's item answer.
pub fn loc(body: &str) -> Result<Option<Metadata>, String> {
    let v = json(body)?;
    let Some(item) = v.get("item") else {
        return Ok(None);
    };
    if !item.is_object() {
        return Err("the item is not an object".into());
    }
    let (title, subtitle) = match first_text(item.get("title")) {
        Some(t) => marc_title(&t),
        None => (None, None),
    };
    let mut names: Vec<Value> = list(item.get("contributor_names")).to_vec();
    if names.is_empty() {
        names = list(item.get("contributors")).to_vec();
    }
    let created = first_text(item.get("created_published"));
    let m = Metadata {
        title,
        subtitle,
        authors: names
            .iter()
            .filter_map(|n| text(Some(n)))
            .map(|n| inverted_name(&n))
            .filter(|n| !n.is_empty())
            .collect(),
        publisher: first_text(item.get("publisher"))
            .or_else(|| created.as_deref().and_then(imprint_publisher)),
        year: first_text(item.get("date"))
            .and_then(|d| year_in(&d))
            .or_else(|| created.as_deref().and_then(year_in)),
        edition: first_text(item.get("edition")).and_then(|e| edition(&e)),
        isbn: list_or_one(item.get("isbn"))
            .iter()
            .find_map(|i| isbn::to_isbn13(i)),
        doi: None,
        loc: first_text(item.get("number_lccn"))
            .or_else(|| text(item.get("library_of_congress_control_number")))
            .and_then(|l| lccn::normalize(&l)),
    };
    if m.title.is_none() && m.authors.is_empty() {
        return Err("the record has neither title nor authors".into());
    }
    Ok(Some(m))
}

fn json(body: &str) -> Result<Value, String> {
    serde_json::from_str(body).map_err(|e| format!("not JSON ({e})"))
}

/// A non-empty trimmed string (numbers as text too), whitespace collapsed.
fn text(v: Option<&Value>) -> Option<String> {
    let s = match v? {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

/// The value itself, or the first string of a list.
fn first_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Array(items) => items.iter().find_map(|i| text(Some(i))),
        other => text(Some(other)),
    }
}

fn list(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

fn list_or_one(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(|i| text(Some(i))).collect(),
        other => text(other).into_iter().collect(),
    }
}

/// `{"date-parts": [[2004, 3, 1]]}` → 2004.
fn date_year(v: Option<&Value>) -> Option<i32> {
    let y = v?.get("date-parts")?.get(0)?.get(0)?;
    let y = match y {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    plausible_year(y)
}

/// The first plausible four-digit year in free text ("March 2004", "c1998.").
fn year_in(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(3)).find_map(|i| {
        let window = &b[i..i + 4];
        let bounded = (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 4).is_none_or(|c| !c.is_ascii_digit());
        if bounded && window.iter().all(u8::is_ascii_digit) {
            plausible_year(std::str::from_utf8(window).ok()?.parse().ok()?)
        } else {
            None
        }
    })
}

fn plausible_year(y: i64) -> Option<i32> {
    (1400..=2100).contains(&y).then_some(y as i32)
}

/// "2nd ed." → "2", "Rev. ed." → "revised"; anything else is not an
/// edition this reader knows and is left out.
fn edition(s: &str) -> Option<String> {
    let lower = s.to_lowercase();
    for word in lower.split(|c: char| c.is_whitespace() || c == ',') {
        if let Some(n) = crate::extract::edition::ordinal(word) {
            return Some(n.to_string());
        }
    }
    lower.contains("rev").then(|| "revised".to_string())
}

/// A name as "First Last": an inverted "Last, First" is turned round.
fn person(s: &str) -> String {
    if s.contains(',') {
        inverted_name(s)
    } else {
        s.trim().trim_end_matches(['.', ',']).trim().to_string()
    }
}

/// "Hofstadter, Douglas R., 1945-" → "Douglas R. Hofstadter".
fn inverted_name(s: &str) -> String {
    let parts: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .filter(|p| !p.chars().any(|c| c.is_ascii_digit()))
        .filter(|p| {
            !matches!(
                p.to_lowercase().as_str(),
                "author" | "editor" | "ed." | "joint author"
            )
        })
        .collect();
    let name = match parts.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [last, first, ..] => format!("{first} {last}"),
    };
    name.trim_end_matches(['.', ',']).trim().to_string()
}

/// "The quiet field : a history / by Mara Quill." → ("The quiet field",
/// "a history").
fn marc_title(s: &str) -> (Option<String>, Option<String>) {
    let main = s.split(" / ").next().unwrap_or(s);
    let main = main.trim().trim_end_matches(['.', '/', ' ']).trim();
    let (title, subtitle) = match main.split_once(" : ") {
        Some((t, sub)) => (t.trim(), Some(sub.trim())),
        None => (main, None),
    };
    let clean = |x: &str| {
        let x = x
            .trim_end_matches(['.', ',', ';', ':', ' '])
            .trim()
            .to_string();
        (!x.is_empty()).then_some(x)
    };
    (clean(title), subtitle.and_then(clean))
}

/// "New York : Foo Press, 1998." → "Foo Press".
fn imprint_publisher(s: &str) -> Option<String> {
    let after = s.split_once(" : ").map_or(s, |(_, p)| p);
    let name = match after.rfind(',') {
        Some(i) if after[i..].chars().any(|c| c.is_ascii_digit()) => &after[..i],
        _ => after,
    };
    let name = name
        .trim()
        .trim_end_matches(['.', ',', ';', '[', ']'])
        .trim();
    (!name.is_empty() && !name.chars().all(|c| c.is_ascii_digit() || c == ' '))
        .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_library_books_api() {
        let body = r#"{"ISBN:9781915862402": {
            "url": "https://openlibrary.org/books/OL1M/x", "key": "/books/OL1M",
            "title": "The Quiet Field", "subtitle": "A History of Commons",
            "authors": [{"url": "https://openlibrary.org/authors/OL1A", "name": "Mara Quill"},
                        {"name": "Quill, Ode"}],
            "publishers": [{"name": "Harrow & Finch"}],
            "publish_date": "March 2021",
            "identifiers": {"isbn_13": ["9781915862402"], "lccn": ["2021038846"]}
        }}"#;
        let m = open_library(body, "9781915862402").unwrap().unwrap();
        assert_eq!(m.title.as_deref(), Some("The Quiet Field"));
        assert_eq!(m.subtitle.as_deref(), Some("A History of Commons"));
        assert_eq!(m.authors, ["Mara Quill", "Ode Quill"]);
        assert_eq!(m.publisher.as_deref(), Some("Harrow & Finch"));
        assert_eq!(m.year, Some(2021));
        assert_eq!(m.isbn.as_deref(), Some("9781915862402"));
        assert_eq!(m.loc.as_deref(), Some("2021038846"));
        // Unknown ISBN: an empty object.
        assert_eq!(open_library("{}", "9781915862402").unwrap(), None);
        // Garbage and error pages are failures, not "not found".
        assert!(open_library("<html>502</html>", "9781915862402").is_err());
        assert!(open_library("[1,2]", "9781915862402").is_err());
        assert!(
            open_library(
                r#"{"ISBN:9781915862402": {"publish_date": "1999"}}"#,
                "9781915862402"
            )
            .is_err()
        );
    }

    #[test]
    fn csl_and_crossref_works() {
        let csl_body = r#"{"type": "article-journal", "title": "Flexible Self-Organizing Maps",
            "author": [{"given": "Ron", "family": "Wehrens"}, {"literal": "Kohonen Group"}],
            "publisher": "Foundation for Open Access Statistics",
            "issued": {"date-parts": [[2018, 10]]}, "DOI": "10.18637/JSS.V087.I07"}"#;
        let m = csl(csl_body).unwrap().unwrap();
        assert_eq!(m.authors, ["Ron Wehrens", "Kohonen Group"]);
        assert_eq!(m.year, Some(2018));
        assert_eq!(m.doi.as_deref(), Some("10.18637/jss.v087.i07"));
        let cr = r#"{"status": "ok", "message-type": "work", "message": {
            "title": ["Ledgers of Salt"], "subtitle": ["Trade and Tide"],
            "author": [{"given": "Ines", "family": "Marwick", "sequence": "first"}],
            "publisher": "Northgate", "published-print": {"date-parts": [["2019"]]},
            "ISBN": ["978-1-83729-512-8"], "edition-number": "2"}}"#;
        let m = crossref(cr).unwrap().unwrap();
        assert_eq!(m.title.as_deref(), Some("Ledgers of Salt"));
        assert_eq!(m.subtitle.as_deref(), Some("Trade and Tide"));
        assert_eq!(m.year, Some(2019));
        assert_eq!(m.isbn.as_deref(), Some("9781837295128"));
        assert_eq!(m.edition.as_deref(), Some("2"));
        assert!(crossref(r#"{"status": "failed", "message": "nope"}"#).is_err());
        assert!(csl("null").is_err());
        assert!(csl("{\"title\": 5.5e400}").is_err());
    }

    #[test]
    fn loc_item() {
        let body = r#"{"item": {"title": "The harbour ledger : a history / by Mara Quill.",
            "contributor_names": ["Quill, Mara, 1950-", "Finch, O. (Ode)"],
            "date": "1972", "created_published": ["New York : Harrow Press, 1972."],
            "number_lccn": ["72081345"]}}"#;
        let m = loc(body).unwrap().unwrap();
        assert_eq!(m.title.as_deref(), Some("The harbour ledger"));
        assert_eq!(m.subtitle.as_deref(), Some("a history"));
        assert_eq!(m.authors, ["Mara Quill", "O. (Ode) Finch"]);
        assert_eq!(m.publisher.as_deref(), Some("Harrow Press"));
        assert_eq!(m.year, Some(1972));
        assert_eq!(m.loc.as_deref(), Some("72081345"));
        assert_eq!(loc(r#"{"status": 404}"#).unwrap(), None);
    }

    #[test]
    fn small_readers() {
        assert_eq!(year_in("c1998."), Some(1998));
        assert_eq!(year_in("12345 and 2004"), Some(2004));
        assert_eq!(year_in("n.d."), None);
        assert_eq!(edition("2nd ed."), Some("2".into()));
        assert_eq!(edition("Rev. ed."), Some("revised".into()));
        assert_eq!(edition("Deluxe"), None);
        assert_eq!(
            imprint_publisher("London : Foo & Sons, [1999]"),
            Some("Foo & Sons".into())
        );
    }
}
