//! Reading what the vision backend said: first the HTTP body (one JSON
//! object, or Ollama's stream of one JSON object per line) into the model's
//! text, then that text into an [`Answer`], then validated
//! [`Candidate`]s with `via = Vision`.
//!
//! Models do not follow the requested format reliably, so the text reader
//! accepts the shapes seen in practice: `Title: ...` lines, markdown
//! (`**Title:** ...`, `- Author(s): a, b`, numbered lists), a label alone on
//! a line with the value (or a bullet list of authors) below, and JSON,
//! bare or inside a fenced code block. `Not visible` in any case or
//! punctuation, and its usual paraphrases (`N/A`, `unknown`, `none`), mean
//! no value.

use crate::extract::names::{self, SUFFIXES};
use crate::extract::{doi, isbn, lccn};
use crate::model::{Candidate, Field, Value, Via};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// Score of a vision candidate. A model reads the page as a person would, so
/// it is good at telling title from series and author from blurb, but it can
/// misread or invent: below a labelled text-layer find, above positional
/// guesses. `decide` adds agreement bonuses when text or OCR agree.
pub const VISION_SCORE: f32 = 0.7;

/// The model's answer about one page, cleaned but not validated: `None`
/// (or no authors) where the model said `Not visible` or gave nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub title: Option<String>,
    pub subtitle: Option<String>,
    pub authors: Vec<String>,
    pub publisher: Option<String>,
    pub edition: Option<String>,
    pub year: Option<String>,
    pub isbn: Option<String>,
    pub doi: Option<String>,
    pub loc: Option<String>,
}

impl Answer {
    /// No field has a value.
    pub fn is_empty(&self) -> bool {
        *self == Answer::default()
    }

    /// Reads the model's text (see the module docs for the shapes accepted).
    pub fn parse(text: &str) -> Answer {
        if let Some(answer) = json_answer(text) {
            return answer;
        }
        line_answer(text)
    }

    /// Candidates for `decide`, one per field with a valid value (one per
    /// valid ISBN), page `page_index` (0-based). Identifiers go through the
    /// same validators as text finds: an ISBN must pass
    /// [`isbn::to_isbn13`], a DOI [`doi::normalize`], an LCCN
    /// [`lccn::normalize`]; a year must be a plausible 4-digit year.
    pub fn candidates(&self, page_index: u32) -> Vec<Candidate> {
        let mut out = Vec::new();
        let mut push = |field: Field, value: Value, why: &str| {
            out.push(Candidate {
                field,
                value,
                score: VISION_SCORE,
                page: Some(page_index),
                via: Via::Vision,
                why: why.to_string(),
            });
        };
        if let Some(t) = &self.title {
            push(Field::Title, Value::Text(t.clone()), "vision answer: title");
        }
        if let Some(t) = &self.subtitle {
            push(
                Field::Subtitle,
                Value::Text(t.clone()),
                "vision answer: subtitle",
            );
        }
        if !self.authors.is_empty() {
            push(
                Field::Authors,
                Value::Names(self.authors.clone()),
                "vision answer: authors",
            );
        }
        if let Some(t) = &self.publisher {
            push(
                Field::Publisher,
                Value::Text(t.clone()),
                "vision answer: publisher",
            );
        }
        if let Some(y) = self.year.as_deref().and_then(parse_year) {
            push(Field::Year, Value::Number(y), "vision answer: year");
        }
        if let Some(e) = self.edition.as_deref().and_then(normalize_edition) {
            push(Field::Edition, Value::Text(e), "vision answer: edition");
        }
        if let Some(raw) = &self.isbn {
            let mut seen = Vec::new();
            for isbn13 in isbn_candidates(raw).filter_map(|s| isbn::to_isbn13(&s)) {
                if !seen.contains(&isbn13) {
                    seen.push(isbn13.clone());
                    push(Field::Isbn, Value::Text(isbn13), "vision answer: isbn");
                }
            }
        }
        if let Some(d) = self.doi.as_deref().and_then(validate_doi) {
            push(Field::Doi, Value::Text(d), "vision answer: doi");
        }
        if let Some(l) = self.loc.as_deref().and_then(validate_lccn) {
            push(Field::Loc, Value::Text(l), "vision answer: loc");
        }
        out
    }
}

/// The fields of the prompt, as labels are mapped onto them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Title,
    Subtitle,
    Authors,
    Publisher,
    Edition,
    Year,
    Isbn,
    Doi,
    Loc,
}

/// Maps a label as models write it ("Author(s)", "ISBN-13", "Publication
/// year", "Library of Congress Control Number") onto a field.
fn slot_for(label: &str) -> Option<Slot> {
    let key: String = label
        .to_lowercase()
        .replace("(s)", "s")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    Some(match key.as_str() {
        "title" | "maintitle" | "booktitle" | "fulltitle" => Slot::Title,
        "subtitle" | "subtitles" => Slot::Subtitle,
        "author" | "authors" | "authorname" | "authornames" | "creator" | "creators" | "editor"
        | "editors" | "authorseditors" | "authoreditor" | "authorsandeditors" => Slot::Authors,
        "publisher" | "publishers" | "publishername" | "imprint" => Slot::Publisher,
        "edition" | "editions" => Slot::Edition,
        "year" | "publicationyear" | "yearofpublication" | "date" | "publicationdate"
        | "copyrightyear" | "published" => Slot::Year,
        "isbn" | "isbns" | "isbn13" | "isbn10" | "isbnnumber" | "isbnnumbers" => Slot::Isbn,
        "doi" | "dois" => Slot::Doi,
        "loc"
        | "lccn"
        | "libraryofcongress"
        | "libraryofcongresscontrolnumber"
        | "libraryofcongressnumber"
        | "libraryofcongresscontrolno"
        | "lccnno"
        | "loccontrolnumber"
        | "locnumber"
        | "lccontrolnumber"
        | "loclccn"
        | "lclccn"
        | "libraryofcongresslccn" => Slot::Loc,
        _ => return None,
    })
}

/// Fills the slot with one raw value (authors accumulate; a second value for
/// a single field is ignored, the first line is the one the model meant).
fn fill(answer: &mut Answer, slot: Slot, raw: &str) {
    let Some(value) = clean_value(raw) else {
        return;
    };
    let single = |target: &mut Option<String>| {
        if target.is_none() {
            *target = Some(value.clone());
        }
    };
    match slot {
        Slot::Title => single(&mut answer.title),
        Slot::Subtitle => single(&mut answer.subtitle),
        Slot::Publisher => single(&mut answer.publisher),
        Slot::Edition => single(&mut answer.edition),
        Slot::Year => single(&mut answer.year),
        Slot::Isbn => match &mut answer.isbn {
            // Several ISBNs may come one per line: keep them all.
            Some(existing) => {
                existing.push_str("; ");
                existing.push_str(&value);
            }
            None => answer.isbn = Some(value),
        },
        Slot::Doi => single(&mut answer.doi),
        Slot::Loc => single(&mut answer.loc),
        Slot::Authors => {
            for name in split_names(&value) {
                if !answer.authors.contains(&name) {
                    answer.authors.push(name);
                }
            }
        }
    }
}

/// `Label: value` with optional list marker, markdown emphasis or quotes
/// around the label, and emphasis around the value.
static LABEL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^\s*(?:[-*•+]\s+|\d{1,2}[.)]\s+|#{1,6}\s+)?(?:\*\*|__|\*|")?\s*([A-Za-z][A-Za-z0-9 ()/&.\-]{0,48}?)\s*(?:\*\*|__|\*|")?\s*[:：]\s*(?:\*\*|__|\*|")?\s*(.*?)\s*$"#,
    )
    .expect("label regex")
});

fn line_answer(text: &str) -> Answer {
    let mut answer = Answer::default();
    // A label with an empty value claims the following unlabeled lines
    // (a bullet list of authors, a value on the next line).
    let mut open: Option<Slot> = None;
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with("```") {
            continue;
        }
        // A URL ("https://...") is a value, not a label.
        let labelled = LABEL_LINE
            .captures(line)
            .filter(|c| !c[2].starts_with("//"))
            .map(|c| (slot_for(&c[1]), c[2].to_string()));
        match labelled {
            Some((Some(slot), value)) => {
                let bare = value.trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
                if bare.is_empty() {
                    open = Some(slot);
                } else {
                    open = None;
                    fill(&mut answer, slot, &value);
                }
            }
            // An unknown label ("Series: ...") ends any open list.
            Some((None, _)) => open = None,
            None => {
                if let Some(slot) = open {
                    fill(&mut answer, slot, strip_list_marker(line));
                    if slot != Slot::Authors && slot != Slot::Isbn {
                        open = None;
                    }
                }
            }
        }
    }
    answer
}

fn strip_list_marker(line: &str) -> &str {
    static MARKER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*(?:[-*•+]\s+|\d{1,2}[.)]\s+)").expect("marker regex"));
    match MARKER.find(line) {
        Some(m) => &line[m.end()..],
        None => line,
    }
}

/// The JSON object in the text, bare or in a ```json fence, read into an
/// Answer; `None` when the text holds no parseable object with a known key.
fn json_answer(text: &str) -> Option<Answer> {
    let body = match text.find("```") {
        Some(start) => {
            let after = &text[start + 3..];
            let after = after
                .strip_prefix("json")
                .or_else(|| after.strip_prefix("JSON"))
                .unwrap_or(after);
            let end = after.find("```").unwrap_or(after.len());
            &after[..end]
        }
        None => text,
    };
    let open = body.find('{')?;
    let close = body.rfind('}')?;
    if close < open {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(&body[open..=close]).ok()?;
    let mut object = value.as_object()?;
    // Some models wrap the fields: {"metadata": {...}} or {"book": {...}}.
    if !object.keys().any(|k| slot_for(k).is_some()) {
        let inner: Vec<_> = object.values().filter_map(|v| v.as_object()).collect();
        if inner.len() == 1 {
            object = inner[0];
        }
    }
    let mut answer = Answer::default();
    let mut known = false;
    for (key, value) in object {
        let Some(slot) = slot_for(key) else {
            continue;
        };
        known = true;
        match value {
            serde_json::Value::String(s) => fill(&mut answer, slot, s),
            serde_json::Value::Number(n) => fill(&mut answer, slot, &n.to_string()),
            serde_json::Value::Array(items) => {
                for item in items {
                    match item {
                        serde_json::Value::String(s) => fill(&mut answer, slot, s),
                        serde_json::Value::Number(n) => fill(&mut answer, slot, &n.to_string()),
                        serde_json::Value::Object(o) => {
                            // [{"name": "Ada Lovelace"}]
                            if let Some(s) = o.get("name").and_then(|n| n.as_str()) {
                                fill(&mut answer, slot, s);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    known.then_some(answer)
}

/// True for "Not visible" and the ways models paraphrase "no value".
pub fn is_not_visible(raw: &str) -> bool {
    let s: String = raw
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '/')
        .to_lowercase();
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    const NONE: [&str; 22] = [
        "",
        "not visible",
        "n/a",
        "na",
        "n.a",
        "none",
        "null",
        "nil",
        "unknown",
        "not found",
        "not available",
        "not provided",
        "not given",
        "not shown",
        "not present",
        "not specified",
        "not stated",
        "not applicable",
        "not listed",
        "not mentioned",
        "no",
        "-",
    ];
    NONE.contains(&s.as_str()) || s.starts_with("not visible") || s.starts_with("none visible")
}

/// Strips markdown emphasis, quotes and trailing commas (from JSON-ish
/// lines), collapses whitespace; `None` for empty or `Not visible`.
fn clean_value(raw: &str) -> Option<String> {
    let mut s = raw.trim();
    loop {
        let before = s;
        for wrap in ["**", "__", "*", "`", "\"", "“", "”", "'"] {
            s = s.strip_prefix(wrap).unwrap_or(s).trim();
            s = s.strip_suffix(wrap).unwrap_or(s).trim();
        }
        s = s.trim_end_matches(',').trim();
        if s == before {
            break;
        }
    }
    if is_not_visible(s) {
        return None;
    }
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

/// Splits an author answer into names: on `;`, ` and `, `&`, and commas
/// between full names; "Last, First" is turned around; roles ("(ed.)",
/// "edited by"), degrees and "et al." are dropped.
pub fn split_names(raw: &str) -> Vec<String> {
    static ROLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\((?:[^)]*\b(?:ed|eds|editor|editors|author|authors|trans|translator|translated|illustrator|compiler)\b[^)]*)\)|\bet\s+al\b\.?")
            .expect("role regex")
    });
    static LEAD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:(?:written|edited|compiled|translated)\s+)?by\s+|^(?:editors?|eds?\.|authors?)\s*[:\-]\s*")
            .expect("lead regex")
    });
    static SEP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\s*(?:;|\||\n|&|\band\b|\bwith\b)\s*").expect("separator regex")
    });
    let cleaned = ROLE.replace_all(raw, " ");
    let mut names = Vec::new();
    for piece in SEP.split(&cleaned) {
        let piece = LEAD.replace(piece.trim(), "");
        let parts: Vec<&str> = piece
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty() && !is_degree(p))
            .collect();
        match parts.as_slice() {
            [] => {}
            // "Knuth, Donald E." -> "Donald E. Knuth": a one-word part
            // before the comma is a surname, not a whole name.
            [last, first] if word_count(last) == 1 && !is_suffix(first) => {
                push_name(&mut names, &format!("{first} {last}"));
            }
            [name, suffix] if is_suffix(suffix) => {
                push_name(&mut names, &format!("{name} {suffix}"));
            }
            _ => {
                for p in parts {
                    push_name(&mut names, p);
                }
            }
        }
    }
    names
}

fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// "Jr.", "III": one of the extract finders' suffixes (a trailing full
/// stop aside).
fn is_suffix(s: &str) -> bool {
    SUFFIXES.contains(&s.trim_end_matches('.').to_lowercase().as_str())
}

fn is_degree(s: &str) -> bool {
    matches!(
        s.replace('.', "").to_lowercase().as_str(),
        "phd" | "md" | "msc" | "ma" | "ba" | "bsc" | "dphil" | "frs" | "mba"
    )
}

fn push_name(names: &mut Vec<String>, raw: &str) {
    static TITLES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:dr|prof|professor|mr|mrs|ms|sir)\.?\s+").expect("titles regex")
    });
    let Some(name) = clean_value(raw) else {
        return;
    };
    let mut name = TITLES
        .replace(&name, "")
        .trim_matches(|c: char| c == ',' || c.is_whitespace())
        .to_string();
    // Keep the dot of an initial or "Jr." ("Donald E.", "King Jr."), drop
    // a sentence's full stop after a surname ("Knuth.").
    if name
        .rsplit(' ')
        .next()
        .is_some_and(|w| w.ends_with('.') && w.chars().count() > 4)
    {
        name.pop();
    }
    if name.chars().filter(|c| c.is_alphabetic()).count() < 2 {
        return;
    }
    let name = if name.chars().any(|c| c.is_lowercase()) {
        name
    } else {
        title_case(&name)
    };
    if !names.contains(&name) {
        names.push(name);
    }
}

/// "DONALD E. KNUTH" -> "Donald E. Knuth" (names printed in capitals on
/// covers), word by word as the author finder sets them
/// ([`names::title_case`]), so that both give one form of a name.
fn title_case(s: &str) -> String {
    s.split(' ')
        .map(names::title_case)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The most recent plausible year in the answer ("1998, 2004" -> 2004: a
/// copyright line lists earlier editions first).
fn parse_year(raw: &str) -> Option<i32> {
    static YEAR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^0-9])(1[4-9][0-9]{2}|20[0-9]{2})(?:$|[^0-9])").expect("year regex")
    });
    YEAR.captures_iter(raw)
        .filter_map(|c| c[1].parse::<i32>().ok())
        .filter(|y| (1450..=2100).contains(y))
        .max()
}

/// Short normalised edition (SPEC 7): "2nd edition" / "Second Edition" ->
/// "2", "Revised edition" -> "revised". Anything else that is short is kept
/// lower-cased without the word "edition"; long text is not an edition.
pub fn normalize_edition(raw: &str) -> Option<String> {
    static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b([0-9]{1,2})\s*(?:st|nd|rd|th|e|\.)?(?:\s|$)").expect("edition regex")
    });
    let lower = raw.to_lowercase();
    // A sentence ("This edition first published in 2004 by ...") is not an
    // edition statement; "Second edition, revised and expanded" is.
    if lower.split_whitespace().count() > 6 {
        return None;
    }
    const WORDS: [(&str, &str); 12] = [
        ("first", "1"),
        ("second", "2"),
        ("third", "3"),
        ("fourth", "4"),
        ("fifth", "5"),
        ("sixth", "6"),
        ("seventh", "7"),
        ("eighth", "8"),
        ("ninth", "9"),
        ("tenth", "10"),
        ("eleventh", "11"),
        ("twelfth", "12"),
    ];
    for (word, n) in WORDS {
        if lower.split(|c: char| !c.is_alphabetic()).any(|w| w == word) {
            return Some(n.to_string());
        }
    }
    if let Some(c) = NUMBER.captures(&lower) {
        return Some(c[1].trim_start_matches('0').to_string()).filter(|s| !s.is_empty());
    }
    if lower.contains("revised") {
        return Some("revised".to_string());
    }
    let rest = lower
        .replace("edition", " ")
        .replace("ed.", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!rest.is_empty() && rest.chars().count() <= 20).then_some(rest)
}

/// Every ISBN-looking run of digits (with hyphens/spaces, final X) in the
/// answer; validation is left to `isbn::to_isbn13`.
fn isbn_candidates(raw: &str) -> impl Iterator<Item = String> + '_ {
    static ISBN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[0-9][0-9\- ]{8,16}[0-9Xx]\b").expect("isbn regex"));
    ISBN.find_iter(raw).map(|m| m.as_str().to_string())
}

fn validate_doi(raw: &str) -> Option<String> {
    static DOI: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"10\.[0-9]{4,9}/\S+").expect("doi regex"));
    doi::normalize(raw).or_else(|| DOI.find(raw).and_then(|m| doi::normalize(m.as_str())))
}

fn validate_lccn(raw: &str) -> Option<String> {
    lccn::normalize(raw).or_else(|| {
        raw.split(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == ';')
            .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
            .find_map(lccn::normalize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::client::{VisionError, response_text};

    const PLAIN: &str = "Title: The Art of Computer Programming\n\
        Subtitle: Fundamental Algorithms\n\
        Author: Donald E. Knuth\n\
        Publisher: Addison-Wesley\n\
        Edition: Third Edition\n\
        Year: 1997\n\
        ISBN: 0-201-89683-4\n\
        DOI: Not visible\n\
        LOC: Not visible";

    #[test]
    fn plain_lines() {
        let a = Answer::parse(PLAIN);
        assert_eq!(a.title.as_deref(), Some("The Art of Computer Programming"));
        assert_eq!(a.subtitle.as_deref(), Some("Fundamental Algorithms"));
        assert_eq!(a.authors, vec!["Donald E. Knuth"]);
        assert_eq!(a.publisher.as_deref(), Some("Addison-Wesley"));
        assert_eq!(a.edition.as_deref(), Some("Third Edition"));
        assert_eq!(a.year.as_deref(), Some("1997"));
        assert_eq!(a.isbn.as_deref(), Some("0-201-89683-4"));
        assert_eq!(a.doi, None);
        assert_eq!(a.loc, None);
    }

    #[test]
    fn markdown_lines() {
        let text = "Here is what I can see:\n\n\
            **Title:** Structure and Interpretation of Computer Programs\n\
            **Subtitle**: Not visible.\n\
            - **Author(s):** Harold Abelson, Gerald Jay Sussman\n\
            * Publisher: *The MIT Press*\n\
            3. Year: © 1996\n\
            **ISBN**: not visible\n";
        let a = Answer::parse(text);
        assert_eq!(
            a.title.as_deref(),
            Some("Structure and Interpretation of Computer Programs")
        );
        assert_eq!(a.subtitle, None);
        assert_eq!(a.authors, vec!["Harold Abelson", "Gerald Jay Sussman"]);
        assert_eq!(a.publisher.as_deref(), Some("The MIT Press"));
        assert_eq!(a.year.as_deref(), Some("© 1996"));
        assert_eq!(a.isbn, None);
    }

    #[test]
    fn long_labels() {
        let a = Answer::parse(
            "Library of Congress Control No.: 2004012345\nISBN-13: 978-0-262-03384-8\nPublication year: 2009",
        );
        assert_eq!(a.loc.as_deref(), Some("2004012345"));
        assert_eq!(a.isbn.as_deref(), Some("978-0-262-03384-8"));
        assert_eq!(a.year.as_deref(), Some("2009"));
    }

    #[test]
    fn label_alone_then_bullet_list() {
        let text = "Title: Deep Learning\nAuthors:\n- Ian Goodfellow\n- Yoshua Bengio\n- Aaron Courville\nPublisher: MIT Press\n";
        let a = Answer::parse(text);
        assert_eq!(
            a.authors,
            vec!["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"]
        );
        assert_eq!(a.publisher.as_deref(), Some("MIT Press"));
    }

    #[test]
    fn json_in_fence() {
        let text = "```json\n{\"title\": \"Gödel, Escher, Bach\", \"subtitle\": \"An Eternal Golden Braid\", \
            \"author\": [\"Douglas R. Hofstadter\"], \"publisher\": \"Basic Books\", \"edition\": \"Not visible\", \
            \"year\": 1979, \"isbn\": null, \"doi\": \"N/A\", \"loc\": \"Not Visible\"}\n```";
        let a = Answer::parse(text);
        assert_eq!(a.title.as_deref(), Some("Gödel, Escher, Bach"));
        assert_eq!(a.subtitle.as_deref(), Some("An Eternal Golden Braid"));
        assert_eq!(a.authors, vec!["Douglas R. Hofstadter"]);
        assert_eq!(a.year.as_deref(), Some("1979"));
        assert_eq!(a.edition, None);
        assert_eq!(a.isbn, None);
        assert_eq!(a.doi, None);
        assert_eq!(a.loc, None);
    }

    #[test]
    fn bare_json_with_wrapper_object() {
        let a = Answer::parse(r#"Sure! {"book": {"Title": "Dune", "Authors": "Frank Herbert"}}"#);
        assert_eq!(a.title.as_deref(), Some("Dune"));
        assert_eq!(a.authors, vec!["Frank Herbert"]);
    }

    #[test]
    fn json_that_does_not_parse_falls_back_to_lines() {
        let text =
            "{\n  \"title\": \"Dune\",\n  \"author\": \"Frank Herbert\",\n  \"year\": \"1965\"\n"; // no closing brace
        let a = Answer::parse(text);
        assert_eq!(a.title.as_deref(), Some("Dune"));
        assert_eq!(a.authors, vec!["Frank Herbert"]);
        assert_eq!(a.year.as_deref(), Some("1965"));
    }

    #[test]
    fn not_visible_everywhere_is_empty() {
        let text = "Title: Not visible\nSubtitle: not visible.\nAuthor: NOT VISIBLE\nPublisher: N/A\n\
            Edition: Not visible on this page\nYear: unknown\nISBN: None\nDOI: -\nLOC: **Not visible**";
        let a = Answer::parse(text);
        assert!(a.is_empty(), "{a:?}");
        assert!(a.candidates(0).is_empty());
    }

    #[test]
    fn not_visible_variants() {
        for s in [
            "Not visible",
            "not visible.",
            "NOT VISIBLE!",
            "(Not visible)",
            "N/A",
            "n/a.",
            "Unknown",
            "none",
            "",
        ] {
            assert!(is_not_visible(s), "{s:?}");
        }
        for s in ["Nova", "Visible Light", "Nothing to Envy", "No Logo"] {
            assert!(!is_not_visible(s), "{s:?}");
        }
    }

    #[test]
    fn unknown_label_closes_an_open_list() {
        let text = "Authors:\n- Ada Lovelace\nSeries: Lecture Notes\n- stray\nTitle: Notes";
        let a = Answer::parse(text);
        assert_eq!(a.authors, vec!["Ada Lovelace"]);
        assert_eq!(a.title.as_deref(), Some("Notes"));
    }

    #[test]
    fn author_splitting() {
        assert_eq!(split_names("Knuth, Donald E."), vec!["Donald E. Knuth"]);
        assert_eq!(
            split_names("Brian W. Kernighan and Dennis M. Ritchie"),
            vec!["Brian W. Kernighan", "Dennis M. Ritchie"]
        );
        assert_eq!(
            split_names("Abelson, Harold; Sussman, Gerald Jay"),
            vec!["Harold Abelson", "Gerald Jay Sussman"]
        );
        assert_eq!(
            split_names("Erich Gamma, Richard Helm, Ralph Johnson & John Vlissides"),
            vec![
                "Erich Gamma",
                "Richard Helm",
                "Ralph Johnson",
                "John Vlissides"
            ]
        );
        assert_eq!(
            split_names("edited by Jane Smith (ed.)"),
            vec!["Jane Smith"]
        );
        assert_eq!(
            split_names("Martin Luther King, Jr."),
            vec!["Martin Luther King Jr."]
        );
        assert_eq!(split_names("Dr. Alan Turing, PhD"), vec!["Alan Turing"]);
        assert_eq!(split_names("JEAN-PAUL SARTRE"), vec!["Jean-Paul Sartre"]);
        assert_eq!(split_names("A. Smith et al."), vec!["A. Smith"]);
    }

    #[test]
    fn names_in_capitals_take_the_author_finders_form() {
        // Capitals after an apostrophe of either kind, a hyphen and the
        // dots of initials, as the page-text finder sets them.
        for caps in ["SEAN O’BRIEN", "MARY O'NEILL", "JEAN-PAUL SARTRE"] {
            assert_eq!(
                split_names(caps),
                crate::extract::names::parse_names(caps).names,
                "{caps}"
            );
        }
        assert_eq!(split_names("SEAN O’BRIEN"), vec!["Sean O’Brien"]);
        assert_eq!(split_names("J.R.R. TOLKIEN"), vec!["J.R.R. Tolkien"]);
    }

    #[test]
    fn years() {
        assert_eq!(parse_year("1997"), Some(1997));
        assert_eq!(parse_year("© 1998, 2004 by the author"), Some(2004));
        assert_eq!(parse_year("ISBN 9780201896831"), None);
        assert_eq!(parse_year("Not a year 123"), None);
    }

    #[test]
    fn editions() {
        assert_eq!(normalize_edition("Third Edition").as_deref(), Some("3"));
        assert_eq!(normalize_edition("2nd ed.").as_deref(), Some("2"));
        assert_eq!(normalize_edition("12th edition").as_deref(), Some("12"));
        assert_eq!(
            normalize_edition("Revised Edition").as_deref(),
            Some("revised")
        );
        assert_eq!(
            normalize_edition("Anniversary Edition").as_deref(),
            Some("anniversary")
        );
        assert_eq!(
            normalize_edition("Second edition, revised and expanded").as_deref(),
            Some("2")
        );
        assert_eq!(
            normalize_edition("This edition first published in the United Kingdom by Penguin"),
            None
        );
    }

    #[test]
    fn candidates_carry_page_and_via() {
        let a = Answer::parse(PLAIN);
        let c = a.candidates(3);
        assert!(c.iter().all(|c| c.via == Via::Vision && c.page == Some(3)));
        let get = |f: Field| c.iter().find(|c| c.field == f).map(|c| c.value.clone());
        assert_eq!(
            get(Field::Title),
            Some(Value::Text("The Art of Computer Programming".into()))
        );
        assert_eq!(
            get(Field::Authors),
            Some(Value::Names(vec!["Donald E. Knuth".into()]))
        );
        assert_eq!(get(Field::Year), Some(Value::Number(1997)));
        assert_eq!(get(Field::Edition), Some(Value::Text("3".into())));
        assert_eq!(get(Field::Doi), None);
        assert_eq!(get(Field::Loc), None);
        // Identifiers depend on the validators of `extract`; while those are
        // stubs (returning None for everything) only check what they allow.
        if isbn::to_isbn13("0-201-89683-4").is_some() {
            assert_eq!(get(Field::Isbn), Some(Value::Text("9780201896831".into())));
        } else {
            assert_eq!(get(Field::Isbn), None);
        }
    }

    #[test]
    fn identifiers_are_validated() {
        let a = Answer::parse(
            "ISBN: 978-0-13-110362-7; 0-13-110362-8\nISBN: 123-4\nDOI: https://doi.org/10.1145/359576.359579.\nLOC: 77-28983",
        );
        assert_eq!(
            a.isbn.as_deref(),
            Some("978-0-13-110362-7; 0-13-110362-8; 123-4")
        );
        let got: Vec<_> = isbn_candidates(a.isbn.as_deref().unwrap()).collect();
        assert_eq!(got, vec!["978-0-13-110362-7", "0-13-110362-8"]);
        let c = a.candidates(0);
        let isbns: Vec<_> = c.iter().filter(|c| c.field == Field::Isbn).collect();
        if isbn::to_isbn13("0-13-110362-8").is_some() {
            // Both spellings are the same book: one candidate.
            assert_eq!(isbns.len(), 1);
            assert_eq!(isbns[0].value, Value::Text("9780131103627".into()));
        } else {
            assert!(isbns.is_empty());
        }
        let dois: Vec<_> = c.iter().filter(|c| c.field == Field::Doi).collect();
        if doi::normalize("10.1145/359576.359579").is_some() {
            assert_eq!(dois[0].value, Value::Text("10.1145/359576.359579".into()));
        } else {
            assert!(dois.is_empty());
        }
        let locs: Vec<_> = c.iter().filter(|c| c.field == Field::Loc).collect();
        if lccn::normalize("77-28983").is_some() {
            assert_eq!(locs[0].value, Value::Text("77028983".into()));
        } else {
            assert!(locs.is_empty());
        }
    }

    #[test]
    fn body_single_object() {
        let body = r#"{"model":"m","created_at":"x","message":{"role":"assistant","content":"Title: A"},"done":true}"#;
        assert_eq!(response_text(body).unwrap(), "Title: A");
    }

    #[test]
    fn body_ndjson_stream() {
        let body = "{\"message\":{\"role\":\"assistant\",\"content\":\"Tit\"},\"done\":false}\n\
            {\"message\":{\"role\":\"assistant\",\"content\":\"le: A\"},\"done\":false}\n\
            {\"done\":true,\"total_duration\":5}\n";
        assert_eq!(response_text(body).unwrap(), "Title: A");
    }

    #[test]
    fn body_errors() {
        assert!(matches!(
            response_text("<html>oops</html>"),
            Err(VisionError::BadBody(_))
        ));
        assert!(matches!(response_text(""), Err(VisionError::BadBody(_))));
        assert!(matches!(
            response_text(r#"{"done":true}"#),
            Err(VisionError::BadBody(_))
        ));
        let e = response_text(r#"{"error":"model 'x' not found"}"#).unwrap_err();
        assert!(e.to_string().contains("model 'x' not found"), "{e}");
    }
}
