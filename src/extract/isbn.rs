//! Finder for `isbn` candidates: every ISBN printed in the page text, each
//! scored by how it is printed (labelled or merely ISBN-shaped) and where
//! (copyright page, title page, back cover, or an "also by" list, a
//! reference list, a citation, a price list).
//!
//! A number is only an ISBN candidate when it validates (check digit; an
//! ISBN-13 must start with 978 or 979) *and* is either labelled (`ISBN`,
//! `ISBN-13:`, `eISBN`, `书号：ISBN`, a list after one label joined by `or`
//! or commas) or formatted like an ISBN (hyphenated groups, a 13-digit
//! 978/979 barcode line). A bare 10-digit number is never taken: it could
//! be anything (`2147483648` passes the ISBN-10 checksum), and a number
//! under an LCCN, ISSN or phone label is skipped. ISBN-10s are converted to
//! ISBN-13. OCR pages are read with digit confusions repaired.
//!
//! When a book lists several ISBNs (hardback, paperback, ebook, volumes,
//! set) each is a candidate; the first listed scores a little higher, and a
//! volume ISBN for a different volume than the one the title page names
//! scores lower.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: labelled on the copyright/imprint page or the title page;
//!   report it.
//! - `0.5 ..< 0.8`: confident enough to report alone: labelled on a back
//!   cover, a colophon, a paper's cover sheet or other front page.
//! - `0.2 ..< 0.5`: weak: unlabelled but ISBN-formatted, or labelled in
//!   running text; use only when corroborated or nothing better exists.
//! - `< 0.2`: almost surely another book's (also-by list, reference list,
//!   citation, price list); kept for diagnostics, never report.

use super::pattern::Pattern;
use crate::extract::context::{self, PageCtx, PageKind, Part};
use crate::model::{Candidate, DocText, Field, Value};
use std::sync::LazyLock;

/// Every `isbn` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let volume = doc_volume(pages);
    let mut out = Vec::new();
    for p in pages {
        let mut found = Vec::new();
        for i in 0..p.len() {
            scan_line(p, i, &mut found);
        }
        if found.is_empty() {
            continue;
        }
        let mut distinct: Vec<&str> = Vec::new();
        for f in &found {
            if !distinct.contains(&f.isbn.as_str()) {
                distinct.push(&f.isbn);
            }
        }
        // Outside the imprint, a page with several books' ISBNs is a list
        // of other books (series page, catalogue, price list); on the
        // imprint they are this book's bindings.
        let price_list = p.kind != PageKind::Imprint
            && (distinct.len() >= 3
                || (distinct.len() >= 2 && (0..p.len()).any(|i| context::has_price(p.text(i)))));
        let mut page_out: Vec<Candidate> = Vec::new();
        for f in &found {
            let rank = distinct.iter().position(|d| *d == f.isbn).unwrap_or(0);
            let (score, why) = score(p, f, volume.as_deref(), rank, price_list);
            match page_out
                .iter_mut()
                .find(|c| c.value == Value::Text(f.isbn.clone()))
            {
                Some(c) if c.score >= score => {}
                Some(c) => {
                    c.score = score;
                    c.why = why;
                }
                None => page_out.push(Candidate {
                    field: Field::Isbn,
                    value: Value::Text(f.isbn.clone()),
                    score,
                    page: Some(p.index()),
                    via: p.via(),
                    why,
                }),
            }
        }
        out.extend(page_out);
    }
    out
}

/// Validates an ISBN-10 or ISBN-13 written in any usual way and returns the
/// 13 digits, or `None` when it is not a valid ISBN.
pub fn to_isbn13(s: &str) -> Option<String> {
    let s = s.trim();
    let s = LABEL_PREFIX
        .find(s)
        .map_or(s, |m| &s[m.end()..])
        .trim_start_matches([':', '：', '#', ' ']);
    let mut digits = String::new();
    for c in s.chars() {
        match c {
            '0'..='9' => digits.push(c),
            'X' | 'x' => digits.push('X'),
            '-' | '‐' | '‑' | '–' | ' ' | '\u{a0}' | '.' => {}
            _ => return None,
        }
    }
    if digits[..digits.len().saturating_sub(1)].contains('X') {
        return None;
    }
    match digits.len() {
        13 if !digits.contains('X')
            && (digits.starts_with("978") || digits.starts_with("979"))
            && check13(&digits[..12]) == digits.as_bytes()[12] - b'0' =>
        {
            Some(digits)
        }
        10 => {
            let sum: u32 = digits
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    let v = if c == 'X' { 10 } else { c as u32 - '0' as u32 };
                    v * (10 - i as u32)
                })
                .sum();
            if sum % 11 != 0 {
                return None;
            }
            let body = format!("978{}", &digits[..9]);
            let check = check13(&body);
            Some(format!("{body}{check}"))
        }
        _ => None,
    }
}

/// ISBN-13 / EAN-13 check digit of 12 digits.
fn check13(d12: &str) -> u8 {
    let sum: u32 = d12
        .bytes()
        .enumerate()
        .map(|(i, b)| (b - b'0') as u32 * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

/// How the number was printed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// After an ISBN label.
    Labelled,
    /// `978-1-85237-713-7` without a label.
    Hyphen13,
    /// `9781914673405` / `9 781914 673405` (barcode line) without a label.
    Bare13,
    /// `0-91423-103-0` without a label.
    Hyphen10,
}

#[derive(Debug, Clone)]
struct Found {
    isbn: String,
    line: usize,
    shape: Shape,
    /// Words around the number that say what it is for ("hardback",
    /// "volume 2", "ebook"), lower case.
    qualifier: String,
    /// The label is inside parentheses: "Title (ISBN ...)".
    paren: bool,
    /// The label (or number) is preceded on its line by citation-like text.
    cited: bool,
}

static LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)(?:\b[ep]?-?[i1l|]sbn(?:[-‐]?1[03])?\b|international\s+standard\s+book\s+number|书\s*号)",
    )
    .unwrap()
});

static LABEL_PREFIX: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)^(?:[ep]-?)?[i1l|]sbn(?:[-‐]?1[03])?").unwrap());

/// Between a label and its number: an optional "(hbk)" and punctuation.
static AFTER_LABEL: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^\s*(?:\(([^)]{1,30})\))?\s*[:：#.]?\s*").unwrap());

/// After a number: an optional "(paperback)" qualifier.
static QUALIFIER: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^\s*[\(\[]([^)\]]{1,40})[\)\]]").unwrap());

/// A joiner to a further number under the same label.
static CHAIN: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:,|;|/|\bor\b|\boder\b|\bou\b|\band\b|\bund\b|\bo\b)\s*").unwrap()
});

/// Labels of other numbers that look like ISBN-10s.
static OTHER_LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)(?:lccn|control\s+n(?:umber|o)|card\s+n(?:umber|o)|issn|doi|tel\b|tel\.|phone|fax|call\s+n|\+\s*$|catalog(?:ue)?\s+n)")
        .unwrap()
});

static YEAR: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"\b(?:1[5-9]|20)\d{2}\b").unwrap());

static VOLUME: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:volume|vol\.|band|bd\.|tome|tomo|part)\s+(\d{1,2}|[ivx]{1,4}|one|two|three|four)\b")
        .unwrap()
});

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '‐' | '‑' | '–' | ' ' | '\u{a0}')
}

fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '‐' | '‑' | '–')
}

/// Reads an ISBN-shaped number at the start of `s`: digit groups joined by
/// single hyphens or spaces, 10 digits (the last may be X) or 13 digits.
/// Returns the byte length read, the ISBN-13 and the count of hyphens.
fn read_number(s: &str) -> Option<(usize, String, usize)> {
    if !s.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut digits = String::new();
    let mut hyphens = 0;
    // (end byte, digit count, hyphens so far)
    let mut ends: Vec<(usize, usize, usize)> = Vec::new();
    let mut prev_sep = false;
    for (i, c) in s.char_indices() {
        let next = s[i + c.len_utf8()..].chars().next();
        if c.is_ascii_digit() || ((c == 'X' || c == 'x') && digits.len() == 9) {
            digits.push(c.to_ascii_uppercase());
            prev_sep = false;
            let end = i + c.len_utf8();
            if c == 'X' || c == 'x' {
                if !next.is_some_and(|n| n.is_alphanumeric()) {
                    ends.push((end, 10, hyphens));
                }
                break;
            }
            if digits.len() > 13 {
                break;
            }
            if !next.is_some_and(|n| n.is_alphanumeric())
                && (digits.len() == 10 || digits.len() == 13)
            {
                ends.push((end, digits.len(), hyphens));
            }
        } else if is_sep(c) && !prev_sep {
            let ok = next.is_some_and(|n| {
                n.is_ascii_digit() || ((n == 'X' || n == 'x') && digits.len() == 9)
            });
            if !ok {
                break;
            }
            if is_hyphen(c) {
                hyphens += 1;
            }
            prev_sep = true;
        } else {
            break;
        }
    }
    // Prefer a valid ISBN-13; an ISBN-10 only when the number does not go
    // on with a hyphen (then it is part of something longer).
    for &(end, n, h) in ends.iter().rev() {
        let raw: String = digits.chars().take(n).collect();
        if n == 10 {
            let cont = s[end..].chars().next().is_some_and(is_hyphen);
            if cont {
                continue;
            }
        }
        if let Some(isbn) = to_isbn13(&raw) {
            return Some((end, isbn, h));
        }
    }
    None
}

/// The ISBNs on line `i` of a page onto `found`: labelled ones, then bare
/// ISBN-shaped numbers elsewhere on the line.
fn scan_line(p: &PageCtx, i: usize, found: &mut Vec<Found>) {
    let t = p.digits(i);
    let line_cited = context::citation_like(t);
    let taken = labelled_numbers(t, i, line_cited, found);
    unlabelled_numbers(t, i, line_cited, &taken, found);
}

/// The numbers after an ISBN label on line `i` (text `t`), with the
/// label's qualifier words, onto `found`. Returns the spans of `t` so
/// read, from each label to the end of its numbers.
fn labelled_numbers(
    t: &str,
    i: usize,
    line_cited: bool,
    found: &mut Vec<Found>,
) -> Vec<(usize, usize)> {
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for m in LABEL.find_iter(t) {
        let prefix = &t[..m.start()];
        let paren = prefix.trim_end().ends_with('(');
        let cited = line_cited || cited_prefix(prefix);
        let mut q = String::new();
        // Qualifier words right before the label ("Paperback ISBN").
        let before: Vec<&str> = prefix.split_whitespace().rev().take(2).collect();
        for w in before.iter().rev() {
            q.push_str(&w.to_lowercase());
            q.push(' ');
        }
        q.push_str(&m.as_str().to_lowercase());
        let mut pos = m.end();
        let Some(a) = AFTER_LABEL.captures(&t[pos..]) else {
            continue;
        };
        if let Some(x) = a.get(1) {
            q.push(' ');
            q.push_str(&x.as_str().to_lowercase());
        }
        pos += a.get(0).map_or(0, |x| x.end());
        let start = pos;
        // A chain of numbers after one label ("ISBN 0-... (pbk.), 0-...").
        while let Some((len, isbn, _)) = read_number(&t[pos..]) {
            pos += len;
            let mut qual = q.clone();
            if let Some(c) = QUALIFIER.captures(&t[pos..]) {
                qual.push(' ');
                qual.push_str(&c[1].to_lowercase());
                pos += c.get(0).map_or(0, |x| x.end());
            }
            found.push(Found {
                isbn,
                line: i,
                shape: Shape::Labelled,
                qualifier: qual,
                paren,
                cited,
            });
            match CHAIN.find(&t[pos..]) {
                Some(c) if t[pos + c.end()..].starts_with(|ch: char| ch.is_ascii_digit()) => {
                    pos += c.end();
                }
                _ => break,
            }
        }
        taken.push((m.start(), pos.max(start)));
    }
    taken
}

/// ISBN-shaped numbers without a label on line `i` (text `t`), outside
/// the `taken` spans, onto `found`.
fn unlabelled_numbers(
    t: &str,
    i: usize,
    line_cited: bool,
    taken: &[(usize, usize)],
    found: &mut Vec<Found>,
) {
    // Moves past the run of digits at `idx`.
    let skip_digits = |mut idx: usize| {
        while idx < t.len() && t[idx..].starts_with(|ch: char| ch.is_ascii_digit()) {
            idx += 1;
        }
        idx
    };
    let mut idx = 0;
    while idx < t.len() {
        let c = t[idx..].chars().next().unwrap_or(' ');
        let clen = c.len_utf8();
        if !c.is_ascii_digit() || taken.iter().any(|&(a, b)| idx >= a && idx < b) {
            idx += clen;
            continue;
        }
        let prev = t[..idx].chars().next_back();
        if prev.is_some_and(|pc| pc.is_alphanumeric() || "/._:-‐‑–".contains(pc)) {
            // Inside a DOI, a URL, a longer number or a word: skip the run.
            idx = skip_digits(idx + clen);
            continue;
        }
        let Some((len, isbn, hyphens)) = read_number(&t[idx..]) else {
            idx = skip_digits(idx + clen);
            continue;
        };
        let raw = &t[idx..idx + len];
        let ndigits = raw.chars().filter(|ch| ch.is_ascii_alphanumeric()).count();
        let shape = match (ndigits, hyphens) {
            (13, h) if h >= 3 => Some(Shape::Hyphen13),
            (13, _) => Some(Shape::Bare13),
            (10, 3) => Some(Shape::Hyphen10),
            _ => None,
        };
        let window_start = t[..idx].char_indices().rev().nth(29).map_or(0, |(b, _)| b);
        let other = OTHER_LABEL.is_match(&t[window_start..idx]);
        if let (Some(shape), false) = (shape, other) {
            let prefix = &t[..idx];
            found.push(Found {
                isbn,
                line: i,
                shape,
                qualifier: String::new(),
                paren: prefix.trim_end().ends_with('('),
                cited: line_cited || cited_prefix(prefix),
            });
        }
        idx += len;
    }
}

/// Text before an ISBN that reads like a citation: words with a year
/// ("Feldmann-Verlag 1993 (ISBN ...") or a comma-separated publisher and
/// place ("Addison-Wesley, Reading, Massachusetts, 1984, ISBN ...").
fn cited_prefix(prefix: &str) -> bool {
    // A CIP line strings several identifiers with `|`: only the text since
    // the last bar belongs to this label.
    let prefix = prefix.rsplit('|').next().unwrap_or(prefix);
    let words = context::words(prefix);
    (words >= 1 && YEAR.is_match(prefix)) || (words >= 3 && prefix.matches(',').count() >= 2)
}

/// The volume number the title pages name ("Volume 2"), if any.
fn doc_volume(pages: &[PageCtx]) -> Option<String> {
    pages
        .iter()
        .filter(|p| {
            p.part == Part::Front && matches!(p.kind, PageKind::Title | PageKind::HalfTitle)
        })
        .flat_map(|p| (0..p.len()).map(move |i| p.text(i)))
        .filter(|t| !t.to_lowercase().contains("isbn"))
        .find_map(|t| VOLUME.captures(t).map(|c| volume_number(&c[1])))
}

fn volume_number(s: &str) -> String {
    match s.to_lowercase().as_str() {
        "i" | "one" => "1".into(),
        "ii" | "two" => "2".into(),
        "iii" | "three" => "3".into(),
        "iv" | "four" => "4".into(),
        "v" => "5".into(),
        other => other.to_string(),
    }
}

fn score(
    p: &PageCtx,
    f: &Found,
    volume: Option<&str>,
    rank: usize,
    price_list: bool,
) -> (f32, String) {
    let (mut s, shape) = match f.shape {
        Shape::Labelled => (0.85, "ISBN label"),
        Shape::Hyphen13 => (0.45, "hyphenated ISBN-13, no label"),
        Shape::Bare13 => (0.35, "978/979 number, no label"),
        Shape::Hyphen10 => (0.25, "hyphenated ISBN-10, no label"),
    };
    let labelled = f.shape == Shape::Labelled;
    let (factor, place) = if p.in_references(f.line) {
        (0.1, "in a reference list")
    } else if p.in_also_by(f.line) {
        (0.1, "in an also-by list")
    } else {
        match p.kind {
            // An ISBN-shaped number on a copyright page is this book's even
            // when OCR lost its label.
            PageKind::Imprint => (if labelled { 1.06 } else { 1.2 }, "on the imprint page"),
            PageKind::Title | PageKind::HalfTitle => (0.95, "on a title page"),
            PageKind::BackCover => (0.8, "on the back cover"),
            PageKind::AboutAuthor => (0.5, "on an about-the-author page"),
            PageKind::Contents => (0.5, "on a contents page"),
            PageKind::Index => (0.3, "in the index"),
            PageKind::AlsoBy => (0.1, "on an also-by page"),
            PageKind::References | PageKind::Body => match p.part {
                Part::Front => (0.7, "in front-matter text"),
                Part::Back => (0.6, "in back-matter text"),
            },
        }
    };
    s *= factor;
    let mut why = format!("{shape} {place} (p{})", p.index());
    if f.cited {
        s *= 0.2;
        why.push_str(", in a citation");
    }
    if f.paren {
        s *= 0.6;
        why.push_str(", in parentheses after a title");
    }
    if price_list {
        s *= 0.3;
        why.push_str(", on a page listing several books");
    }
    if let Some(c) = VOLUME.captures(&f.qualifier) {
        let n = volume_number(&c[1]);
        match volume {
            Some(v) if v == n => {
                s += 0.03;
                why.push_str(", for this volume");
            }
            Some(_) => {
                s *= 0.5;
                why.push_str(", for another volume");
            }
            None => {}
        }
    } else if f.qualifier.contains("set") {
        s *= 0.95;
        why.push_str(", for the set");
    }
    if !f.qualifier.is_empty() {
        let q = f.qualifier.trim();
        if q.len() > 4 {
            why.push_str(&format!(" [{q}]"));
        }
    }
    s -= 0.01 * rank.min(5) as f32;
    (s.clamp(0.0, 1.0), why)
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

    fn best(c: &[Candidate]) -> Option<(String, f32)> {
        c.iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|c| match &c.value {
                Value::Text(s) => (s.clone(), c.score),
                _ => unreachable!(),
            })
    }

    fn score_of(c: &[Candidate], isbn: &str) -> f32 {
        c.iter()
            .filter(|c| c.value == Value::Text(isbn.into()))
            .map(|c| c.score)
            .fold(-1.0, f32::max)
    }

    #[test]
    fn validates_and_converts() {
        assert_eq!(
            to_isbn13("978-1-914673-40-5").as_deref(),
            Some("9781914673405")
        );
        assert_eq!(to_isbn13("0-91423-103-0").as_deref(), Some("9780914231035"));
        assert_eq!(
            to_isbn13("ISBN 0-8044-2957-X").as_deref(),
            Some("9780804429573")
        );
        assert_eq!(
            to_isbn13("ISBN-13: 979-8-41736-662-8").as_deref(),
            Some("9798417366628")
        );
        assert_eq!(to_isbn13("978-1-914673-40-6"), None, "bad check digit");
        assert_eq!(
            to_isbn13("977-1-914673-40-5"),
            None,
            "not a Bookland prefix"
        );
        assert_eq!(to_isbn13("0-91423-103-1"), None);
        assert_eq!(to_isbn13("12345"), None);
        assert_eq!(to_isbn13("0-87X11-203-3"), None);
    }

    #[test]
    fn also_by_lists_in_other_languages_are_traps() {
        for head in [
            "Другие книги автора",
            "Ebenfalls von Ottilie Marwenau",
            "Ouvrages du même auteur",
        ] {
            let also = body(
                1,
                100.0,
                &[head, "Основы статистики", "1981 : ISBN 5-994211-59-1"],
            );
            let colophon = body(9, 500.0, &["Тираж 1000 экз.", "ISBN 5-994211-29-X"]);
            let c = run(&[also, colophon], 10);
            assert!(score_of(&c, "9785994211595") < 0.2, "{head}");
        }
    }

    #[test]
    fn copyright_page_beats_also_by_page() {
        let also = body(
            1,
            100.0,
            &[
                "Also by Rosalind Ashcombe",
                "Ink and Ledger: Bookkeeping in Late Georgian Bristol",
                "(ISBN 978-1-85237-713-7)",
                "Tending the Sick: Hospital Wards and Their Registers, 1702–1861",
                "(ISBN 978-1-85237-758-8)",
            ],
        );
        let copy = body(
            4,
            80.0,
            &[
                "Second edition published 2022",
                "by Ashdown & Pryce",
                "© 2015, 2022 Rosalind Ashcombe",
                "Library of Congress Cataloging-in-Publication Data",
                "Identifiers: LCCN 2019047312 (print) | LCCN 2019047313 (ebook) | ISBN 9781914673405",
                "(hardback) | ISBN 9781914673412 (paperback) | ISBN 9781914673429 (ebook)",
                "LC record available at https://lccn.loc.gov/2019047312",
                "ISBN: 978-1-914673-40-5 (hbk)",
                "ISBN: 978-1-914673-41-2 (pbk)",
                "ISBN: 978-1-914673-42-9 (ebk)",
            ],
        );
        let c = run(&[also, copy], 200);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "9781914673405");
        assert!(s >= 0.8, "{s}");
        assert!(score_of(&c, "9781852377137") < 0.2);
        assert!(score_of(&c, "9781852377588") < 0.2);
        assert!(score_of(&c, "9781914673429") >= 0.8);
        // LCCNs are not read as ISBN-10s.
        assert!(
            c.iter()
                .all(|c| c.value != Value::Text("9782019047313".into()))
        );
        assert!(c.iter().all(|c| match &c.value {
            Value::Text(s) => s.starts_with("978"),
            _ => false,
        }));
    }

    #[test]
    fn unlabelled_ten_digit_numbers_are_not_isbns() {
        let p = body(
            2,
            100.0,
            &[
                "The counter wraps at 2147483648 and then at 4294967296.",
                "Call 0123456789 for orders.",
            ],
        );
        assert!(run(&[p], 100).is_empty());
    }

    #[test]
    fn labelled_isbn10_and_lccn_on_old_copyright_page() {
        let p = body(
            2,
            100.0,
            &[
                "Copyright © 1972 by Mildred Halvorsen and Dorothy K. Pell",
                "All rights reserved.",
                "Library of Congress Catalog Card Number: 68-74219",
                "ISBN 0-91423-103-0",
                "Published by Thistledown Craft Books, 220 East 23rd Street, New York, N.Y. 10010",
            ],
        );
        let c = run(&[p], 15);
        assert_eq!(c.len(), 1);
        assert_eq!(best(&c).unwrap().0, "9780914231035");
        assert!(c[0].score >= 0.8);
    }

    #[test]
    fn citation_isbn_loses() {
        let mut lines: Vec<&str> = std::iter::repeat_n(PROSE, 25).collect();
        lines.push("1 Addison-Wesley, Reading,Massachusetts, 1984, ISBN 0-201-13448-9");
        let p = body(2, 80.0, &lines);
        let c = run(&[p], 97);
        assert_eq!(c.len(), 1);
        assert!(c[0].score < 0.2, "{}", c[0].score);
    }

    #[test]
    fn reference_list_isbns_lose() {
        let p = body(
            47,
            80.0,
            &[
                "Literatura",
                "[4] Donald Knuth. The TEXbook. Addison Wesley Publishing Company. Eleventh prin-",
                "ting, revised, May 1991, ISBN 0-201-13447-0",
                "[5] Pavel Kročák. Typografický systém TEX. Konvoj, Brno 2000, ISBN 80-85615-91-6",
            ],
        );
        let c = run(&[p], 48);
        assert!(!c.is_empty());
        assert!(c.iter().all(|c| c.score < 0.2));
    }

    #[test]
    fn back_cover_and_colophon_isbn() {
        let colophon = body(
            15,
            300.0,
            &[
                "Letters from a Slow Boat was published in 2019 by Quiet Harbour",
                "Press, Halifax, Nova Scotia.",
                "ISBN 978-1-7731943-6-3",
                "Set in Palatino. Printed on recycled paper.",
            ],
        );
        let cover = body(
            16,
            500.0,
            &[
                "Eleven essays written on slow boats across three continents.",
                "QUIET HARBOUR PRESS",
                "CAD $19.95",
                "ISBN 978-1-7731943-6-3",
                "9 781773 194363",
            ],
        );
        let c = run(&[colophon, cover], 17);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "9781773194363");
        assert!(s >= 0.8);
        let on_cover: Vec<_> = c.iter().filter(|c| c.page == Some(16)).collect();
        assert_eq!(on_cover.len(), 1, "barcode line merges with the label");
        assert!(on_cover[0].score >= 0.5);
    }

    #[test]
    fn price_list_loses() {
        let p = body(
            14,
            100.0,
            &[
                PROSE,
                PROSE,
                PROSE,
                PROSE,
                "More from the same house:",
                "Ink and Ledger  ISBN 978-1-85237-713-7  $24.95",
                "Tending the Sick  ISBN 978-1-85237-758-8  $29.95",
                "Découverte  ISBN 978-1-85237-902-5  $19.95",
            ],
        );
        let c = run(&[p], 17);
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|c| c.score < 0.2), "{c:?}");
    }

    #[test]
    fn series_page_isbns_lose() {
        let p = page(
            2,
            &[
                ("Studies in Quantitative Archaeology", 14.0, 100.0),
                ("Series editor: Mary Wren", 10.0, 130.0),
                ("1. Tending the Sick  ISBN 978-1-85237-758-8", 10.0, 160.0),
                ("2. Ink and Ledger  ISBN 978-1-85237-713-7", 10.0, 175.0),
                ("3. Découverte  ISBN 978-1-85237-902-5", 10.0, 190.0),
            ],
        );
        let c = run(&[p], 200);
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|c| c.score < 0.5), "{c:?}");
    }

    #[test]
    fn volume_isbn_preferred_over_other_volume() {
        let title = page(
            1,
            &[
                ("Catalogue of the Bequest", 20.0, 100.0),
                ("Volume 2: Maps and Deeds", 14.0, 200.0),
                ("compiled by", 10.0, 300.0),
                ("Harriet Coombe", 12.0, 320.0),
            ],
        );
        let copy = body(
            2,
            100.0,
            &[
                "Published by Ashworth College Library, Kendal",
                "© Ashworth College and Harriet Coombe 2014",
                "ISBN 978-1-9137157-1-7 (volume 1)",
                "ISBN 978-1-9137157-0-0 (volume 2)",
                "ISBN 978-1-9137157-2-4 (set of two volumes)",
            ],
        );
        let c = run(&[title, copy], 15);
        assert_eq!(best(&c).unwrap().0, "9781913715700");
        assert!(score_of(&c, "9781913715717") < 0.5);
        assert!(score_of(&c, "9781913715724") >= 0.5);
    }

    #[test]
    fn chained_and_foreign_labels() {
        let p = body(
            2,
            100.0,
            &[
                "图书在版编目（CIP）数据",
                "书     号：ISBN 978-1-63179-512-1",
                "ISBN : 978-1-85237-902-5",
                "Feldmann-Verlag 1993 (ISBN 3-541-72941-4 or 0-388-72941-4).",
                "eISBN 978-1-80466-212-0",
            ],
        );
        let c = run(&[p], 16);
        for v in [
            "9781631795121",
            "9781852379025",
            "9783541729418",
            "9780388729410",
            "9781804662120",
        ] {
            assert!(score_of(&c, v) > 0.0, "{v} missing: {c:?}");
        }
        assert!(score_of(&c, "9780388729410") < 0.2, "cited");
    }

    #[test]
    fn ocr_isbn_with_confusions_and_spaces() {
        let p = ocr(body(
            3,
            100.0,
            &[
                "Copyright © 2O22 Rosalind Ashcombe",
                "All rights reserved.",
                "ISBN 978 l 9l4673 4O 5 (hbk)",
            ],
        ));
        let c = run(&[p], 16);
        assert_eq!(best(&c).unwrap().0, "9781914673405");
    }

    #[test]
    fn ocr_misread_label_and_lost_label() {
        let p = ocr(body(
            3,
            100.0,
            &[
                "Copyright © 2022 Rosalind Ashcombe",
                "All rights reserved.",
                "lSBN 978-1-914673-41-2",
            ],
        ));
        let c = run(&[p], 16);
        assert_eq!(best(&c).unwrap().0, "9781914673412");
        assert!(best(&c).unwrap().1 >= 0.8);
        let p = ocr(body(
            3,
            100.0,
            &[
                "Copyright © 2022 Rosalind Ashcombe",
                "All rights reserved.",
                "978-1-914673-41-2",
            ],
        ));
        let c = run(&[p], 16);
        assert!(best(&c).unwrap().1 >= 0.5);
    }

    #[test]
    fn isbn_digits_inside_a_doi_are_not_read() {
        let p = body(
            2,
            100.0,
            &["DOI 10.61529/9781804662120", "All rights reserved."],
        );
        assert!(run(&[p], 15).is_empty());
    }
}
