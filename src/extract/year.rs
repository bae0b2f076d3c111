//! Finder for `year` candidates: the year of this edition, from the
//! copyright line, the printing history, the CIP block, a legal-deposit
//! line, or a date printed on the title page or in a paper's header.
//!
//! Rules, in the order a line segment is tried:
//! - a reprint / printing / impression line ("Reprinted 2023", "第1次印刷")
//!   gives only a near-zero candidate: a reprint is not a new edition;
//! - an edition statement with its year ("Second edition published 2022",
//!   "4., durchgesehene Auflage 2019", "2021 年 3 月第 3 版"): the highest
//!   edition of the document wins, earlier ones are history;
//! - "This edition published ...", "First published (in) ... YYYY" (the
//!   latter loses to a later edition statement);
//! - "Dépôt légal : août 2019";
//! - a copyright notice ("© 2015, 2022 Name", "Copyright © 1983–2021",
//!   "Copyright c 2004-23", TeX's "c Name, 2002, 2012"): its latest year; an
//!   older copyright year than the document's latest is weak;
//! - "published (in) YYYY";
//! - the CIP imprint "Place : Publisher, YYYY" / "出版社，2021";
//! - a date line ("October 2018", "2020-03-21", "Revised 14 March 2021",
//!   "30. 11. 2012", a bare "2014" or "Brno – léto 2002, podzim 2012") on
//!   the title page, the first page's header, or the first few pages.
//!
//! Years in reference lists, citations ("(2005)"), also-by lists, contents
//! and index pages, and in running prose are not taken.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: the copyright year or the edition's year on the copyright
//!   page; report it.
//! - `0.5 ..< 0.8`: confident enough to report alone: first-published,
//!   CIP, legal deposit, a date on the title page or a paper's first page.
//! - `0.2 ..< 0.5`: weak: older copyright years, dates in the back matter,
//!   "published" in prose, superseded first-edition years.
//! - `< 0.2`: reprint years and dates labelled submitted/accepted/typeset;
//!   never report.

use super::pattern::Pattern;
use crate::extract::context::{self, Band, PageCtx, PageKind, Part};
use crate::extract::edition::{self, Edition};
use crate::model::{Candidate, DocText, Field, Value, Via};
use std::sync::LazyLock;

/// Every `year` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let mut hits: Vec<Hit> = Vec::new();
    for p in pages {
        // Of a contents page, only what stands above its heading.
        let lines = match p.kind {
            PageKind::Index | PageKind::AlsoBy => continue,
            PageKind::Contents => p.contents_head.unwrap_or(0),
            _ => p.len(),
        };
        for i in 0..lines {
            // (A page's header and footer are not in its reference list,
            // though they follow it: a short paper's first page ends with
            // its references and a footer that names its venue and year.)
            if (p.in_references(i) && p.band(i) == Band::Body) || p.in_also_by(i) {
                continue;
            }
            let t = p.digits(i);
            if context::citation_like(t) {
                continue;
            }
            for seg in segments(t) {
                if let Some(h) = scan(p, i, seg) {
                    hits.push(h);
                }
            }
        }
    }
    adjust(&mut hits);
    let mut out: Vec<Candidate> = Vec::new();
    for h in hits {
        let value = Value::Number(h.year);
        match out
            .iter_mut()
            .find(|c| c.value == value && c.page == Some(h.page))
        {
            Some(c) if c.score >= h.score => {}
            Some(c) => {
                c.score = h.score;
                c.why = h.why;
            }
            None => out.push(Candidate {
                field: Field::Year,
                value,
                score: h.score,
                page: Some(h.page),
                via: h.via,
                why: h.why,
            }),
        }
    }
    out
}

/// What kind of printed statement a year came from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Reprint,
    /// Year of the numbered edition.
    EditionOf(u32),
    ThisEdition,
    FirstPublished,
    Deposit,
    Copyright,
    Published,
    Cip,
    Date,
}

#[derive(Debug, Clone)]
struct Hit {
    year: i32,
    score: f32,
    page: u32,
    via: Via,
    why: String,
    kind: Kind,
}

/// A four-digit year with its byte span.
#[derive(Debug, Clone, Copy)]
struct Year {
    year: i32,
    start: usize,
    end: usize,
}

/// Plausible publication years: 1450 (printing) to 2099.
fn plausible(y: i32) -> bool {
    (1450..=2099).contains(&y)
}

/// Every year in `s`, with the ends of ranges ("2004-23", "1983–2021")
/// expanded; ISO dates ("2020-03-21") are not read as ranges.
fn years_in(s: &str) -> Vec<Year> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i - start != 4 {
            continue;
        }
        // Not part of a decimal number or identifier ("1.2007", "978-..."),
        // unless it ends a day.month.year date ("19.02.2023").
        let before = s[..start].chars().next_back();
        if before.is_some_and(|c| c == '.' && start >= 2 && b[start - 2].is_ascii_digit())
            && !DOTTED_DAY_MONTH.is_match(&s[..start])
        {
            continue;
        }
        // Nor a report or standard number ("TR-2009-35", "ISO-8601").
        if before == Some('-') && start >= 2 && b[start - 2].is_ascii_uppercase() {
            if let Some(c) = RANGE_END.captures(&s[i..]) {
                i += c.get(0).unwrap().end();
            }
            continue;
        }
        let Ok(y) = s[start..i].parse::<i32>() else {
            continue;
        };
        if !plausible(y) {
            continue;
        }
        out.push(Year {
            year: y,
            start,
            end: i,
        });
        if let Some(c) = RANGE_END.captures(&s[i..]) {
            let whole = c.get(0).unwrap();
            if ISO_REST.is_match(&s[i..]) {
                continue;
            }
            let e = &c[1];
            let end_year = if e.len() == 2 {
                y / 100 * 100 + e.parse::<i32>().unwrap_or(0)
            } else {
                e.parse().unwrap_or(0)
            };
            if end_year > y && plausible(end_year) {
                out.push(Year {
                    year: end_year,
                    start: i,
                    end: i + whole.end(),
                });
                i += whole.end();
            }
        }
    }
    out
}

/// The day and month before the year of a dotted date ("19.02.").
static DOTTED_DAY_MONTH: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?:^|[^\d.])\d{1,2}\.\s?\d{1,2}\.$").unwrap());
static RANGE_END: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^\s*[-–—]\s*(\d{4}|\d{2})(?:[^\d]|$)").unwrap());
/// The end of a span of years in full: "–1925" of "1868–1925".
static PERIOD_END: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^\s*[-–—]\s*(\d{4})(?:[^\d-]|$)").unwrap());
static ISO_REST: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"^-\d{2}-\d{2}").unwrap());

static REPRINT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:reprint(?:ed)?|re-?issued|printing|impression|nachdruck|réimpression|réimprimé|ristampa|tirage)\b|印\s*次|次印刷")
        .unwrap()
});
static THIS_EDITION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\bthis\s+edition\b|\bcette\s+[ée]dition\b|\bdiese\s+ausgabe\b|настоящее\s+издание|\bэто\s+издание")
        .unwrap()
});
static FIRST_PUBLISHED: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:first|originally)\s+published\b|\berstmals\s+erschienen\b|\bpremière\s+publication\b|первое\s+издание|впервые\s+опубликован")
        .unwrap()
});
static DEPOSIT: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)\bd[ée]p[ôo]t\s+l[ée]gal\b").unwrap());
static COPYRIGHT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)(?:©|\(c\)|\bcopyright\b|\bcopr\.|^\s*c\s+(?:\p{Lu}|\d))").unwrap()
});
/// What follows "Copyright" when it is not a notice ("Copyright, Designs
/// and Patents Act 1988", "copyright law").
static NOT_NOTICE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:,|act\b|law\b|laws\b|notice\b|holder|page\b|information\b|and\b|designs\b|office\b|protection\b|clearance\b)").unwrap()
});
static PUBLISHED: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\bpublished\b|\bpublication\s+date\b|\berschienen\b|\bparu\b|\bpubli[ée]\b")
        .unwrap()
});
static CIP: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?:\s:\s*[^:;|]{2,60}?,\s*\[?c?(\d{4})\b|(?:出版社|出版公司|书局|印书馆)\s*[，,]\s*(\d{4}))")
        .unwrap()
});
/// Lines carrying identifiers or addresses are not date lines.
static IDENTIFIER: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)isbn|issn|doi|https?:|www\.|@").unwrap());

static LABELLED_OTHER: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:submitted|accepted|received|run through|typeset on|compiled|generated|last modified|printed on|downloaded|accessed|retrieved)\b")
        .unwrap()
});

const MONTHS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|spring|summer|autumn|fall|winter";

static DATE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(&format!(
        r"(?i)(?:\b(?:{MONTHS})\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–]\s*\d{{1,2}})?,?\s+)?\d{{4}}\b|\b\d{{1,2}}\.?\s+(?:{MONTHS})\.?\s+\d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{4}}/\d{{1,2}}/\d{{1,2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{4}}\b|\b\d{{1,2}}\.\s?\d{{1,2}}\.\s?\d{{4}}\b|\d{{4}}\s*年\s*\d{{1,2}}\s*月)"
    ))
    .unwrap()
});

/// Splits a line into statements: at `|` and `;` (CIP fields), and at a
/// full stop followed by a capitalised word unless the stop ends a short
/// ordinal number ("2. Auflage") or an initial.
fn segments(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = t.char_indices().collect();
    for (k, &(b, c)) in chars.iter().enumerate() {
        let cut = match c {
            '|' | ';' => true,
            '.' => {
                let next_upper = chars.get(k + 1).is_some_and(|x| x.1 == ' ')
                    && chars.get(k + 2).is_some_and(|x| x.1.is_uppercase());
                // Length of the word before the stop.
                let word: Vec<char> = chars[..k]
                    .iter()
                    .rev()
                    .take_while(|x| x.1.is_alphanumeric())
                    .map(|x| x.1)
                    .collect();
                let ordinal =
                    !word.is_empty() && word.len() <= 2 && word.iter().all(|c| c.is_ascii_digit());
                // "J.", "Dr.", "RNDr.", "Ltd.": initials and abbreviations.
                let abbrev = !word.is_empty()
                    && word.len() <= 4
                    && word.iter().any(|c| c.is_uppercase())
                    && word.iter().all(|c| c.is_alphabetic());
                next_upper && !ordinal && !abbrev
            }
            _ => false,
        };
        if cut {
            out.push(&t[start..b]);
            start = b + c.len_utf8();
        }
    }
    out.push(&t[start..]);
    out
}

/// (edition number, year) pairs printed together in a segment.
fn edition_years(seg: &str) -> Vec<(u32, i32)> {
    let mut out = Vec::new();
    for c in CJK_EDITION.captures_iter(seg) {
        if let (Ok(y), Some(n)) = (c[1].parse::<i32>(), edition::ordinal(&c[2])) {
            if plausible(y) {
                out.push((n, y));
            }
        }
    }
    if !out.is_empty() {
        return out;
    }
    for st in edition::statements(seg) {
        if let Edition::Number(n) = st.edition {
            // "Second edition published 2022", or a printing history with
            // the date first: "May 2005: Second Edition".
            let before = || {
                years_in(seg)
                    .into_iter()
                    .rev()
                    .find(|y| y.end <= st.start && st.start - y.end <= 4)
                    .map(|y| y.year)
            };
            if let Some(y) = year_after(seg, st.end, 40).or_else(before) {
                out.push((n, y));
            }
        }
    }
    out
}

static CJK_EDITION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(\d{4})\s*年\s*(?:\d{1,2}\s*月\s*)?(?:\d{1,2}\s*日\s*)?第\s*([0-9一二三四五六七八九十]{1,3})\s*版")
        .unwrap()
});

/// First year at or after byte `from` within `window` bytes, with no other
/// number in between except a day of the month.
fn year_after(seg: &str, from: usize, window: usize) -> Option<i32> {
    years_in(seg)
        .into_iter()
        .find(|y| y.start >= from)
        .filter(|y| y.start - from <= window)
        .filter(|y| {
            seg[from..y.start]
                .split(|c: char| !c.is_ascii_digit())
                .all(|run| run.len() <= 2)
        })
        .map(|y| y.year)
}

/// The year of line `i` of page `p` (its segment `seg`), by the first
/// reading that finds one: a statement, a notice, else a date line.
fn scan(p: &PageCtx, i: usize, seg: &str) -> Option<Hit> {
    let years = years_in(seg);
    if years.is_empty() {
        return None;
    }
    let front_ish = matches!(
        p.kind,
        PageKind::Imprint | PageKind::Title | PageKind::HalfTitle
    ) || (p.part == Part::Front && p.index() <= 4);
    let hit = |(year, score, kind, why): (i32, f32, Kind, &str)| Hit {
        year,
        score,
        page: p.index(),
        via: p.via(),
        why: format!("{why} (p{})", p.index()),
        kind,
    };
    if let Some(found) = edition_year(p, seg, &years, front_ish) {
        return Some(hit(found));
    }
    if let Some(found) = notice_year(p, seg, &years, front_ish) {
        return Some(hit(found));
    }
    date_line(p, i, seg, &years).map(|(y, s, why)| hit((y, s, Kind::Date, why)))
}

/// A year found by a reading: the year, its score, its kind and why.
type YearReading = (i32, f32, Kind, &'static str);

/// The year of a statement about the edition: a reprint, a numbered
/// edition, this edition, the first publication, the legal deposit.
fn edition_year(p: &PageCtx, seg: &str, years: &[Year], front_ish: bool) -> Option<YearReading> {
    let max_year = years.iter().map(|y| y.year).max()?;
    if REPRINT.is_match(seg) {
        return Some((max_year, 0.05, Kind::Reprint, "reprint/printing year"));
    }
    // Edition statement with its year ("2. Auflage 2012", "2021 年 3 月第
    // 3 版"); in a line of several, the highest edition.
    if let Some((n, y)) = edition_years(seg).into_iter().max_by_key(|e| e.0) {
        let s = if matches!(
            p.kind,
            PageKind::Imprint | PageKind::Title | PageKind::HalfTitle
        ) {
            0.8
        } else {
            0.3
        };
        return Some((y, s, Kind::EditionOf(n), "year of a numbered edition"));
    }
    if let Some(m) = THIS_EDITION.find(seg) {
        if let Some(y) = year_after(seg, m.end(), 40) {
            return Some((y, 0.85, Kind::ThisEdition, "this edition's year"));
        }
    }
    if let Some(m) = FIRST_PUBLISHED.find(seg) {
        if let Some(y) = year_after(seg, m.end(), 40) {
            let s = if front_ish || p.kind == PageKind::Imprint {
                0.75
            } else {
                0.3
            };
            return Some((y, s, Kind::FirstPublished, "first-published year"));
        }
    }
    if let Some(m) = DEPOSIT.find(seg) {
        if let Some(y) = year_after(seg, m.end(), 30) {
            return Some((y, 0.65, Kind::Deposit, "legal deposit year"));
        }
    }
    None
}

/// The year of a notice: a copyright line, a "published" label, a CIP
/// imprint.
fn notice_year(p: &PageCtx, seg: &str, years: &[Year], front_ish: bool) -> Option<YearReading> {
    if let Some(m) = COPYRIGHT.find(seg) {
        let after = &seg[m.end()..];
        if !NOT_NOTICE.is_match(after) {
            if let Some(y) = years
                .iter()
                .filter(|y| y.start >= m.start())
                .map(|y| y.year)
                .max()
            {
                let s = match (p.kind, p.part) {
                    (_, Part::Front) if front_ish => 0.8,
                    (_, Part::Front) => 0.6,
                    (PageKind::Imprint, Part::Back) => 0.5,
                    _ => 0.35,
                };
                return Some((y, s, Kind::Copyright, "copyright year"));
            }
        }
    }
    if let Some(m) = PUBLISHED.find(seg) {
        if let Some(y) = year_after(seg, m.end(), 40) {
            // "Published: 12 July 2019" / "Published online ..." heading a
            // paper's first page is its date; "published" in prose is not.
            let labelled =
                context::words(&seg[..m.start()]) <= 1 && p.part == Part::Front && p.index() <= 1;
            let s = match p.kind {
                PageKind::Imprint => 0.7,
                _ if labelled => 0.6,
                PageKind::Title | PageKind::HalfTitle => 0.55,
                _ => 0.2,
            };
            return Some((y, s, Kind::Published, "published year"));
        }
    }
    if p.kind == PageKind::Imprint {
        if let Some(c) = CIP.captures(seg) {
            let y = c.get(1).or(c.get(2)).and_then(|m| m.as_str().parse().ok());
            if let Some(y) = y.filter(|y| plausible(*y)) {
                return Some((y, 0.75, Kind::Cip, "CIP imprint year"));
            }
        }
    }
    None
}

/// A date printed on its own (short) line near the start or end of the
/// document: title-page dates, journal issue lines, revision dates.
fn date_line(p: &PageCtx, i: usize, seg: &str, years: &[Year]) -> Option<(i32, f32, &'static str)> {
    let line = p.text(i).trim();
    let words = context::words(line);
    if words > 12 || line.chars().count() > 90 {
        return None;
    }
    let dated = DATE.is_match(seg);
    let titleish = matches!(
        p.kind,
        PageKind::Title | PageKind::HalfTitle | PageKind::Imprint
    );
    // Off title pages a date line is short: a date in a sentence is prose.
    if !titleish && words > 6 {
        return None;
    }
    if IDENTIFIER.is_match(line) {
        return None;
    }
    let margin = p.band(i) != Band::Body || p.rel_top(i) < 0.22 || p.rel_top(i) > 0.85;
    // A year standing alone, or in a short place/date line, counts on title
    // pages; a year in parentheses is a citation, not a date line.
    // The title itself ("The Campaign of 1812") is no date line.
    let largest = p.page.lines.iter().map(|l| l.size).fold(0.0, f32::max);
    let is_title = p.page.lines[i].size >= largest && p.rel_size(i) > 1.2;
    let bare = !dated
        && !is_title
        && words <= 8
        && !line.contains('(')
        && (titleish || (p.index() == 0 && margin))
        && years.iter().all(|y| {
            let after = seg[y.end..].trim_start();
            // Not a number run ("2014 365") nor an open life span
            // ("Hart, Cornelius P., 1967–"), as catalogue headings print.
            let open_span = after.starts_with(['-', '–', '—'])
                && !after[after.chars().next().map_or(0, char::len_utf8)..]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit());
            !after.starts_with(|c: char| c.is_ascii_digit()) && !open_span
        });
    if (!dated && !bare) || names_period(seg, years, words) {
        return None;
    }
    let y = years.iter().map(|y| y.year).max()?;
    if LABELLED_OTHER.is_match(line) {
        return Some((y, 0.1, "date labelled as submission/typesetting"));
    }
    date_line_score(p, dated, titleish, margin).map(|(s, why)| (y, s, why))
}

/// Whether a line of `words` words names a span of years, the period a
/// book is about ("A History of Trade, 1868–1925"), not when it was
/// printed. Both years in full and in order: "2016-08-15" is a date, not
/// a span.
fn names_period(seg: &str, years: &[Year], words: usize) -> bool {
    words >= 3
        && years.iter().any(|y| {
            seg[..y.start].chars().any(char::is_alphabetic)
                && PERIOD_END
                    .captures(&seg[y.end..])
                    .and_then(|c| c[1].parse::<i32>().ok())
                    .is_some_and(|end| end > y.year)
        })
}

/// The score of a date line by where it is in the document (`dated`: it
/// is a full date; `margin`: it is set in the page's margin or edges).
fn date_line_score(
    p: &PageCtx,
    dated: bool,
    titleish: bool,
    margin: bool,
) -> Option<(f32, &'static str)> {
    match p.part {
        Part::Front if p.index() <= 3 => {
            if titleish || (p.index() == 0 && margin) {
                Some((
                    if dated { 0.6 } else { 0.5 },
                    "date on the title page or first page",
                ))
            } else if p.kind != PageKind::Body || margin {
                Some((0.5, "date line in the front matter"))
            } else if dated {
                // A short dated line inside a front page's text (a manual's
                // "Released 2022/07/08" under its title): weak, the ranker
                // weighs its position.
                Some((0.3, "date line on a front page"))
            } else {
                None
            }
        }
        Part::Front => None,
        Part::Back if p.from_end <= 1 => Some((0.25, "date in the back matter")),
        Part::Back => None,
    }
}

/// Document-level rules: the latest copyright year is this edition's; the
/// highest numbered edition's year beats the earlier ones; a first-published
/// year loses to a later edition.
fn adjust(hits: &mut [Hit]) {
    let cmax = hits
        .iter()
        .filter(|h| h.kind == Kind::Copyright && h.score >= 0.6)
        .map(|h| h.year)
        .max();
    let nmax = hits
        .iter()
        .filter(|h| h.score >= 0.5)
        .filter_map(|h| match h.kind {
            Kind::EditionOf(n) => Some(n),
            _ => None,
        })
        .max();
    let later_edition =
        nmax.is_some_and(|n| n >= 2) || hits.iter().any(|h| h.kind == Kind::ThisEdition);
    for h in hits.iter_mut() {
        match h.kind {
            Kind::Copyright if cmax.is_some_and(|m| h.year < m) => {
                h.score = h.score.min(0.35);
                h.why.push_str(", older than the latest copyright year");
            }
            Kind::EditionOf(n) if h.score >= 0.5 => {
                if nmax.is_some_and(|m| n < m) {
                    h.score = 0.3;
                    h.why.push_str(", an earlier edition");
                } else if n == 1 {
                    h.score = 0.6;
                }
            }
            Kind::FirstPublished if later_edition => {
                h.score = h.score.min(0.3);
                h.why.push_str(", superseded by a later edition");
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::context::testutil::*;
    use crate::model::PageText;

    fn run(pages: &[PageText], count: u32) -> Vec<Candidate> {
        find(&DocText {
            pages,
            page_count: count,
        })
    }

    fn best(c: &[Candidate]) -> Option<(i32, f32)> {
        c.iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|c| match &c.value {
                Value::Number(n) => (*n, c.score),
                _ => unreachable!(),
            })
    }

    fn score_of(c: &[Candidate], y: i32) -> f32 {
        c.iter()
            .filter(|c| c.value == Value::Number(y))
            .map(|c| c.score)
            .fold(-1.0, f32::max)
    }

    #[test]
    fn ranges_and_iso_dates() {
        let ys = |s: &str| years_in(s).iter().map(|y| y.year).collect::<Vec<_>>();
        assert_eq!(ys("Copyright c 2004-23 Greg"), vec![2004, 2023]);
        assert_eq!(ys("© 1983–2021 Cornelius"), vec![1983, 2021]);
        assert_eq!(ys("2020-03-21"), vec![2020]);
        assert_eq!(ys("2008-09-15"), vec![2008]);
        assert_eq!(ys("ISBN 978-1-85237-713-7 and 10010"), Vec::<i32>::new());
        assert_eq!(ys("version 1.2007"), Vec::<i32>::new());
        assert_eq!(ys("Research Report TR-2009-35"), Vec::<i32>::new());
        assert_eq!(ys("issue 12-2009"), vec![2009]);
    }

    #[test]
    fn this_edition_in_french_and_russian() {
        let cases = [
            (
                [
                    "Première publication 1977",
                    "Cette édition 1993",
                    "Tous droits réservés.",
                ],
                1993,
            ),
            (
                [
                    "Первое издание 1995",
                    "Настоящее издание 1999",
                    "Все права защищены.",
                ],
                1999,
            ),
        ];
        for (lines, want) in cases {
            let c = run(&[body(3, 300.0, &lines)], 12);
            assert_eq!(best(&c).unwrap().0, want, "{lines:?}");
        }
    }

    #[test]
    fn a_span_of_years_in_a_subtitle_is_no_date() {
        let title = page(
            0,
            &[
                ("A History of Tidal Mills", 24.0, 140.0),
                ("Water in Harrowfield, 1868–1925", 14.0, 180.0),
                ("Orla Penhallow", 12.0, 260.0),
                ("Ashdown & Pryce", 10.0, 520.0),
            ],
        );
        let imprint = body(1, 300.0, &["© 1995 Orla Penhallow", "First published 1995"]);
        let c = run(&[title.clone(), imprint], 12);
        assert_eq!(best(&c).unwrap().0, 1995);
        assert!(score_of(&run(&[title], 12), 1925) < 0.0);
        // A date in ISO form in a line of words is still a date.
        let iso = page(
            0,
            &[
                ("A History of Tidal Mills", 24.0, 140.0),
                ("Date 2022-06-23 — Version 0.3", 10.0, 520.0),
            ],
        );
        assert_eq!(best(&run(&[iso], 12)).unwrap().0, 2022);
        // A year alone under the title is still a date.
        let dated = page(
            0,
            &[
                ("A History of Tidal Mills", 24.0, 140.0),
                ("Orla Penhallow", 12.0, 260.0),
                ("1995", 10.0, 520.0),
            ],
        );
        assert_eq!(best(&run(&[dated], 12)).unwrap().0, 1995);
    }

    #[test]
    fn second_edition_year_beats_first_and_reprint() {
        let p = body(
            4,
            300.0,
            &[
                "Second edition published 2022",
                "by Ashdown & Pryce",
                "First edition published 2015",
                "Reprinted 2023",
                "© 2015, 2022 Rosalind Ashcombe",
                "The right of Rosalind Ashcombe to be identified as author of this work has been asserted in",
                "accordance with sections 77 and 78 of the Copyright, Designs and Patents Act 1988.",
                "Description: Second edition. | London ; New York : Ashdown & Pryce, 2022. | Includes",
            ],
        );
        let c = run(&[p], 16);
        let (y, s) = best(&c).unwrap();
        assert_eq!(y, 2022);
        assert!(s >= 0.8);
        assert!(score_of(&c, 2015) < 0.5);
        assert!(score_of(&c, 2023) < 0.2);
        assert!(score_of(&c, 1988) < 0.0, "the Act's year is no candidate");
    }

    #[test]
    fn first_published_and_copyright_agree() {
        let p = body(
            1,
            300.0,
            &[
                "First published in 2020 by Heron Quay Books",
                "31 Kestrel Mews, London SE5 8RB",
                "Copyright © Liisa Harjunen 2020",
                "ISBN 978-1-906342-77-7 (paperback)",
            ],
        );
        let c = run(&[p], 17);
        assert_eq!(best(&c).unwrap().0, 2020);
        assert!(c.iter().all(|c| c.value == Value::Number(2020)));
    }

    #[test]
    fn german_list_and_french_deposit() {
        let de = body(
            2,
            300.0,
            &[
                "1. Auflage 2009",
                "2. Auflage 2012",
                "3., erweiterte Auflage 2016",
                "4., durchgesehene Auflage 2019",
                "ISBN 978-1-80466-211-3",
                "© Rabenau Fachverlag GmbH, Leipzig 2009, 2019",
            ],
        );
        let c = run(&[de], 15);
        assert_eq!(best(&c).unwrap().0, 2019);
        assert!(score_of(&c, 2016) < 0.5);
        let fr = body(
            2,
            300.0,
            &[
                "© Éditions Varène & Cie, Paris, 2008, 2013, 2019",
                "Toute reproduction ou représentation intégrale ou partielle est illicite.",
                "ISBN : 978-1-85237-902-5",
                "Dépôt légal : août 2019",
            ],
        );
        let c = run(&[fr], 16);
        assert_eq!(best(&c).unwrap().0, 2019);
        assert!(score_of(&c, 2013) < 0.5);
    }

    #[test]
    fn chinese_edition_history() {
        let p = body(
            1,
            200.0,
            &[
                "图书在版编目（CIP）数据",
                "纸本保护方法 / 刘雨桐编著. —3 版. —苏州：青峦大学出版社，2021.3",
                "中国版本图书馆 CIP 数据核字（2021）第 052846 号",
                "版     次：2011 年 5 月第 1 版          2021 年 3 月第 3 版",
                "印     次：2021 年 3 月第 1 次印刷",
            ],
        );
        let c = run(&[p], 16);
        let (y, s) = best(&c).unwrap();
        assert_eq!(y, 2021);
        assert!(s >= 0.8);
        assert!(score_of(&c, 2011) < 0.5);
    }

    #[test]
    fn paper_header_and_title_page_dates() {
        let mut lines = vec![
            ("Journal of Modelling Software", 27.9, 96.4),
            ("October 2018, Volume 64, Issue 4.", 10.0, 130.0),
            ("doi: 10.20746/jms.v064.i04", 10.0, 130.0),
        ];
        lines.extend((0..30).map(|k| (PROSE, 10.9, 300.0 + 13.0 * k as f32)));
        let c = run(&[page(0, &lines)], 18);
        assert_eq!(best(&c).unwrap().0, 2018);
        assert!(best(&c).unwrap().1 >= 0.5);

        let manual = page(
            0,
            &[
                ("The Pyxis Markov Toolbox", 24.0, 150.0),
                ("Builder's Guide, Edition 1 for release 1.2.7", 14.0, 190.0),
                ("2020-03-21", 12.0, 210.0),
                ("Fabio Cervellin", 14.0, 600.0),
            ],
        );
        let copy = body(
            1,
            100.0,
            &[
                "Copyright c 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2016, 2018, 2020 Fabio Cervellin",
                "Permission is granted to make and distribute verbatim copies of this manual.",
            ],
        );
        let c = run(&[manual, copy], 101);
        assert_eq!(best(&c).unwrap().0, 2020);

        let czech = page(
            0,
            &[
                ("Návod k QZTEXu", 22.6, 195.0),
                ("Pavel Kročák", 22.6, 279.0),
                ("Vlčnov, Lhotka, Brno – léto 2002, podzim 2012", 10.9, 623.0),
            ],
        );
        let c = run(&[czech], 48);
        assert_eq!(best(&c).unwrap().0, 2012);
        assert!(best(&c).unwrap().1 >= 0.5);
    }

    #[test]
    fn release_date_under_a_manuals_title_in_running_text() {
        let mut lines = vec![
            ("The quillwork package", 17.2, 120.0),
            ("Ada Lindqvist", 12.0, 150.0),
            ("Released 2021/05/04", 12.0, 215.0),
        ];
        lines.extend((0..30).map(|k| (PROSE, 10.0, 260.0 + 13.0 * k as f32)));
        let c = run(&[page(0, &lines)], 12);
        assert_eq!(best(&c).map(|b| b.0), Some(2021));
    }

    #[test]
    fn printing_history_with_dates_first() {
        let p = body(
            3,
            300.0,
            &[
                "Printing History:",
                "March 2001: First Edition.",
                "May 2005: Second Edition.",
                "ISBN: 978-0-596-00797-3",
            ],
        );
        let c = run(&[p], 400);
        let (y, s) = best(&c).unwrap();
        assert_eq!(y, 2005);
        assert!(s >= 0.8);
        assert!(score_of(&c, 2001) < 0.5);
    }

    #[test]
    fn paper_published_label_and_conference_dates() {
        let mut lines: Vec<(&str, f32, f32)> = vec![
            ("A Study of Something Important", 18.0, 80.0),
            ("Received: 3 May 2019; Accepted: 10 June 2019", 8.0, 600.0),
            ("Published: 12 July 2019", 8.0, 610.0),
        ];
        lines.extend((0..20).map(|k| (PROSE, 10.0, 150.0 + 12.0 * k as f32)));
        let c = run(&[page(0, &lines)], 14);
        let (y, s) = best(&c).unwrap();
        assert_eq!(y, 2019);
        assert!(s >= 0.5);

        let mut lines: Vec<(&str, f32, f32)> =
            vec![("ICSE ’19, May 25–31, 2019, Montréal", 7.0, 740.0)];
        lines.extend((0..20).map(|k| (PROSE, 10.0, 150.0 + 12.0 * k as f32)));
        let c = run(&[page(0, &lines)], 14);
        assert_eq!(best(&c).unwrap().0, 2019);
    }

    #[test]
    fn dotted_dates_and_a_venue_footer_under_the_references() {
        // A date under the byline, day first with dots.
        let mut lines: Vec<(&str, f32, f32)> = vec![
            ("A Study of River Sediments", 18.0, 80.0),
            ("Greta Almsfeld", 11.0, 110.0),
            ("19.02.2023", 10.0, 130.0),
        ];
        lines.extend((0..20).map(|k| (PROSE, 10.0, 150.0 + 12.0 * k as f32)));
        let c = run(&[page(0, &lines)], 14);
        assert_eq!(best(&c).unwrap().0, 2023);
        assert!(years_in("version 1.2007 of").is_empty(), "a decimal number");

        // A two-page paper: its first page ends with references and a
        // footer naming the venue.
        let mut lines: Vec<(&str, f32, f32)> = vec![("A Short Note on Tides", 18.0, 80.0)];
        lines.extend((0..20).map(|k| (PROSE, 10.0, 110.0 + 12.0 * k as f32)));
        lines.push(("References", 12.0, 380.0));
        lines.push((
            "[1] A. Berg. Tides. Journal of Tides, 3(2), 1–9, 1998.",
            9.0,
            400.0,
        ));
        lines.push((
            "[2] B. Lund. More tides. In Proc. Tide Days, 2003.",
            9.0,
            412.0,
        ));
        lines.push(("TIDES ’16, Kiel, 2016", 7.0, 760.0));
        let c = run(&[page(0, &lines)], 2);
        assert_eq!(best(&c).unwrap().0, 2016);
        assert!(score_of(&c, 1998) < 0.0 && score_of(&c, 2003) < 0.0);
    }

    #[test]
    fn year_in_the_title_is_not_the_date() {
        let p = page(
            2,
            &[
                ("The Campaign of 1812", 24.0, 150.0),
                ("A Military History", 16.0, 190.0),
                ("John Smith", 14.0, 300.0),
                ("Thistledown Craft Books", 11.0, 600.0),
                ("New York", 11.0, 615.0),
            ],
        );
        assert!(run(&[p], 300).is_empty());
    }

    #[test]
    fn life_dates_are_not_years_and_abbreviations_do_not_split() {
        let p = body(
            1,
            100.0,
            &[
                "Cornelius P. Hart, 1967–.",
                "Foundations of Numerical Geometry.",
                "c RNDr. Pavel Kročák, 2002, 2012",
            ],
        );
        let c = run(&[p], 800);
        assert_eq!(best(&c).unwrap().0, 2012);
        assert!(best(&c).unwrap().1 >= 0.8);
        assert!(score_of(&c, 1967) < 0.0);
    }

    #[test]
    fn date_above_the_contents_of_a_manuals_first_page() {
        let mut lines = vec![
            "The quillpen Package",
            "Marginal Notes for Manuscripts",
            "Ilse Varnholt",
            "2021-09-14",
            "Contents",
        ];
        let entries: Vec<String> = (1..9)
            .map(|n| format!("{n} Section number {n} . . . . . . . . . . {}", n * 3))
            .collect();
        lines.extend(entries.iter().map(String::as_str));
        lines.push("7 Changes in 2019 . . . . . . . . . . 30");
        let c = run(&[body(0, 300.0, &lines)], 30);
        assert_eq!(best(&c).map(|b| b.0), Some(2021), "{c:?}");
        assert!(score_of(&c, 2019) < 0.0, "contents entries are no dates");
    }

    #[test]
    fn cited_years_are_not_document_years() {
        let mut lines: Vec<(&str, f32, f32)> = vec![
            (
                "kite: An S4 Class and Methods for Irregularly Spaced Sequential Measurements",
                17.0,
                100.0,
            ),
            ("Bernd Altmoser", 12.0, 140.0),
            (
                "A previous version to this introduction has been published as",
                10.0,
                200.0,
            ),
            (
                "Altmoser and Vereczkey (2005) in the Journal of Modelling Software.",
                10.0,
                212.0,
            ),
            (
                "package tsx (Ashby 2009, archived on CRAN) and the S3 class",
                10.0,
                224.0,
            ),
        ];
        lines.extend((0..30).map(|k| (PROSE, 10.0, 300.0 + 12.0 * k as f32)));
        let first = page(0, &lines);
        let back = body(
            29,
            100.0,
            &[
                "References",
                "Altmoser B, Vereczkey T (2005). “kite: S4 Infrastructure for Regular and Irregular Time",
                "Series.” Journal of Modelling Software, 14(6), 1–27.",
            ],
        );
        let c = run(&[first, back], 30);
        assert!(c.iter().all(|c| c.score < 0.5), "{c:?}");
    }

    #[test]
    fn typeset_dates_in_back_matter_are_weak() {
        let p = body(
            96,
            500.0,
            &["Patient Intro 1.1 run through TEX on January 21, 2002 at 4:49 P.M."],
        );
        let c = run(&[p], 97);
        assert!(c.iter().all(|c| c.score < 0.5));
    }

    #[test]
    fn ocr_copyright_year() {
        let p = ocr(body(
            2,
            100.0,
            &[
                "Copyright © l972 by Mildred Halvorsen",
                "All rights reserved.",
                "ISBN 0-91423-103-0",
            ],
        ));
        assert_eq!(best(&run(&[p], 15)).unwrap().0, 1972);
    }
}
