//! Finder for `publisher` candidates: the imprint as printed on the title
//! or copyright page.
//!
//! Sources, strongest first:
//! - "Published by X", "First published in 2020 by X", "X edition
//!   published 2022 / by X" (the line and the one continuing it are read
//!   together), "publié par", "erschienen bei", "出版发行：X";
//!   never the licence formula "as published by the Free Software
//!   Foundation";
//! - the CIP imprint "Place : X, 2022" and "苏州：X出版社，2021";
//! - the publisher line at the foot of the title page ("WESTERLY
//!   UNIVERSITY PRESS" above "Edinburgh");
//! - a copyright holder that is an organisation ("© Éditions Varène & Cie,
//!   Paris, 2019"), never a person;
//! - an organisation repeated in the running heads/feet of a paper
//!   ("ATLIS Association").
//!
//! Names are cut at the address, year or bracket that follows them, a
//! leading "the" is dropped, and all-capital names are title-cased.
//! Whether a name is an organisation is judged from its words (Press,
//! Books, Verlag, Éditions, University, Association, Inc., "X & Y", 出版社
//! ...); a name without such a word scores lower.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: "published by" an organisation on the copyright page, or
//!   the CIP imprint; report it.
//! - `0.5 ..< 0.8`: confident enough to report alone: the title page's
//!   publisher line, an organisation as copyright holder, a colophon or a
//!   journal's "published by" line, a publisher repeated in page footers.
//! - `0.2 ..< 0.5`: weak: "published by" a non-organisation, capitalised
//!   lines on a title page without a publisher word, "Independently
//!   published", mentions in running text or on a back cover.
//! - `< 0.2`: never report.

use super::pattern::Pattern;
use crate::extract::context::{self, Band, PageCtx, PageKind, Part};
use crate::model::{Candidate, DocText, Field, Value};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Every `publisher` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |p: &PageCtx, name: String, score: f32, why: &str| {
        let why = format!("{why} (p{})", p.index());
        context::keep_best(&mut out, Field::Publisher, p, Value::Text(name), score, why);
    };
    // Organisations in running heads/feet, by page.
    let mut margins: BTreeMap<String, Vec<usize>> = BTreeMap::new();

    for (k, p) in pages.iter().enumerate() {
        if matches!(
            p.kind,
            PageKind::AlsoBy | PageKind::Index | PageKind::Contents
        ) {
            continue;
        }
        for i in 0..p.len() {
            if p.in_references(i) || p.in_also_by(i) {
                continue;
            }
            let t = p.text(i);
            if context::citation_like(t) {
                continue;
            }
            if p.band(i) != Band::Body {
                for m in ORG_PHRASE.find_iter(t) {
                    let name = clean_name(m.as_str());
                    let pages = margins.entry(name).or_default();
                    if !pages.contains(&k) {
                        pages.push(k);
                    }
                }
            }
            line_publisher(p, i, &mut push);
        }
        if p.kind == PageKind::Title {
            for (name, s, why) in title_foot(p) {
                push(p, name, s, why);
            }
        }
        if k == 0 {
            if let Some(name) = report_issuer(p) {
                push(p, name, 0.5, "institution over or under a report number");
            }
        }
    }
    for (name, on) in margins {
        if name.is_empty() {
            continue;
        }
        let (s, why) = if on.len() >= 2 {
            (0.5, "organisation repeated in running heads/feet")
        } else {
            (0.25, "organisation in a running head/foot")
        };
        push(&pages[on[0]], name, s, why);
    }
    out
}

/// The publisher named on line `i` of page `p`, by the first reading that
/// finds one (strongest first), given to `push`.
fn line_publisher(p: &PageCtx, i: usize, push: &mut impl FnMut(&PageCtx, String, f32, &str)) {
    let t = p.text(i);
    // The line and the one continuing it, with the break kept so a name
    // is only run on when it is visibly unfinished.
    let joined = match p.continuation(i) {
        Some(j) => format!("{}\n{}", t, p.text(j).trim()),
        None => t.to_string(),
    };
    if let Some((name, s, why)) = published_by(p, i, &joined) {
        return push(p, name, s, why);
    }
    if let Some((name, s, why)) = chinese(p, t) {
        return push(p, name, s, why);
    }
    if let Some((name, s, why)) = published_in_year_then_name(p, i) {
        return push(p, name, s, why);
    }
    if let Some((name, s, why)) = imprint_of(p, t) {
        return push(p, name, s, why);
    }
    if p.kind == PageKind::Imprint {
        if let Some(name) = cip_imprint(t) {
            return push(p, name, 0.8, "CIP imprint");
        }
        if let Some(name) = bare_publisher_line(t) {
            return push(p, name, 0.6, "publisher line on the copyright page");
        }
    }
    if let Some((name, s, why)) = copyright_holder(p, t) {
        return push(p, name, s, why);
    }
    if SELF_PUBLISHED.is_match(t) && matches!(p.kind, PageKind::Imprint | PageKind::Title) {
        return push(p, "Independently published".into(), 0.3, "self-published");
    }
    if p.kind == PageKind::BackCover && is_org(t.trim()) && context::words(t) <= 6 {
        push(p, clean_name(t), 0.45, "publisher name on the back cover");
    }
}

/// A firm named after its owners: "Ashdown & Pryce", "Marwick and Sons",
/// "Ветлугин и партнёры".
const FIRM: &str = r"\p{Lu}\p{L}+\s+&\s+\p{Lu}|\p{Lu}\p{L}+\s+(?:and|und|et|и)\s+(?:partners?|associates|sons|söhne|fils|associés|партн[её]ры|сыновья)\b";

/// Words that make a name an organisation (publisher, university, society).
static ORG: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(&format!(
        r"(?i)(?:\b(?:press|presses|books|publishing|publishers?|publications|verlag|verlage|éditions|editions|edições|ediciones|edizioni|editorial|editore|editori|editora|editeurs?|éditeurs?|librairie|inc|ltd|llc|gmbh|co|company|corporation|corp|house|media|group|university|universität|université|universidad|college|library|institute|institut|association|society|foundation|project|academy|academic|sons|cie|ag|kg|plc|s\.a|b\.v)\b|verlag(?:e|s?(?:anstalt|haus|gruppe|buchhandlung))?\b|\bиздательств[оа]\b|\bиздательск(?:ий|ая|ое)\b|\bизд-во\b|出版社|书局|印书馆|出版公司|{FIRM})"
    ))
    .unwrap()
});

/// Organisation words that name publishers outright (an affiliation such
/// as "The University of Keewatin" has only the weaker kind).
static PUBLISHER_WORD: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(&format!(r"(?i)(?:\b(?:press|presses|books|publishing|publishers?|publications|verlag|éditions|editions|edições|ediciones|edizioni|editorial|editore|editora|librairie)\b|verlag(?:s?(?:anstalt|haus|gruppe|buchhandlung))?\b|\bиздательств[оа]\b|\bиздательск(?:ий|ая|ое)\b|\bизд-во\b|出版社|书局|印书馆|出版公司|{FIRM})"))
        .unwrap()
});

/// Words around an author's affiliation block.
static AFFILIATION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:department|dept\.|faculty|school\s+of|laboratory|lab\b|e-?mail)|@")
        .unwrap()
});

/// A capitalised organisation name in running heads/feet.
static ORG_PHRASE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"\b(?:\p{Lu}[\p{L}&'.-]*\s+){1,4}(?:Association|Press|Society|Institute|Foundation|Publishing|Publishers|Verlag|Books)\b")
        .unwrap()
});

static PUBLISHED_BY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)(?:\bpublished\b(?:\s+[\p{L}\d,']+){0,8}?\s+by\s+(?:(?:the\s+)?registered\s+company\s+)?|\bpubli[ée]e?s?\s+par\s+|\b[ée]dit[ée]e?s?\s+par\s+(?:les\s+)?(?:[ée]ditions\s)?|\berschienen\s+(?:\w+\s+)?(?:bei|im)\s+|\bpublicado\s+por\s+|\bpubblicato\s+da\s+|^\s*(?:verlag|publisher|[ée]diteur|издательство|издатель)\s*:\s*|\bвыпущено\s+)",
    )
    .unwrap()
});

/// A line that says only when the book was published ("First published
/// in 2024", "Publié en 2001", "Paru en 1997", "Выпуск 2025"); the
/// publisher's name is then set on the next line.
static PUBLISHED_IN_YEAR: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)^(?:(?:first\s+|originally\s+)?published|this\s+edition\s+published|publi[ée]e?|paru|édité|erschienen|veröffentlicht|erstmals\s+erschienen|выпуск|издано|опубликовано|впервые\s+опубликовано)(?:\s+(?:in|en|im|в))?(?:\s+\p{L}+)?\s+(?:1[5-9]|20)\d{2}(?:\s*г\.?)?\.?$",
    )
    .unwrap()
});

/// "X is an imprint of Y": X is the book's publisher.
static IMPRINT_OF: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)^(.{2,80}?)\s+is\s+an\s+imprint\s+of\b").unwrap());

/// "Éditions du Seuil", "Edition Text": the French and German imprints
/// that begin with the word (the edition statements "Second edition",
/// "Édition revue" do not go on with a capitalised name).
static EDITION_IMPRINT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^(?:Éditions|Editions|Edition)\s+(?:(?:du|de\s+la|des|de|d')\s*)?\p{Lu}\p{Ll}")
        .unwrap()
});

static SELF_PUBLISHED: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)\b(?:independently|self)[- ]published\b").unwrap());

static CIP: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"[^:;|]{1,40}?\s:\s*(\p{Lu}[^,:;|]{1,60}?),\s*\[?c?\d{4}").unwrap()
});

static CN_PUBLISHER: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?:出版发行|出版者|出\s*版)\s*[：:]\s*(\S{2,30})|[：:]\s*([^，,：:\s]{2,30}?(?:出版社|出版公司|书局|印书馆))\s*[，,]\s*\d{4}")
        .unwrap()
});

static COPYRIGHT: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)(?:©|\(c\)|\bcopyright\b)").unwrap());

/// Years, commas and "by" between a copyright sign and the holder.
static HOLDER_LEAD: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)^(?:\s|©|\(c\)|\bc\b|[\d,–—-]|by\b)*").unwrap());

/// Where a name stops: punctuation, brackets, a year, an address, a URL.
static NAME_END: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)(?:[,;|\[(\n]|\s{2,}|\s+https?:|\s+www\.|\b(?:1[5-9]|20)\d{2}\b|\s+in\s+\d|\s+and\s+by\b|\s+under\b|\s+for\s+the\b|\.\s|\.$|\s+\d)").unwrap()
});

/// Abbreviations whose full stop does not end the name.
const ABBREV: &[&str] = &[
    "inc", "co", "ltd", "corp", "bros", "st", "cie", "s.a", "b.v",
];

/// Cuts a name from the start of `s` and cleans it; `None` when what
/// follows is not a name.
fn read_name(s: &str) -> Option<String> {
    let s = s.trim_start();
    let mut end = s.len();
    let mut from = 0;
    while let Some(m) = NAME_END.find_at(s, from) {
        // "Ashdown & Co. Ltd": a full stop after an abbreviation goes on.
        if m.as_str().starts_with('.') {
            let word = s[..m.start()]
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_lowercase();
            if ABBREV.contains(&word.as_str()) {
                end = m.start() + 1;
                from = m.end();
                continue;
            }
        }
        end = m.start();
        break;
    }
    let name = clean_name(&s[..end.min(s.len())]);
    let words = name.split_whitespace().count();
    let first = name.chars().next()?;
    if words == 0 || words > 8 || (first.is_alphabetic() && !first.is_uppercase()) {
        return None;
    }
    if first.is_ascii_digit() || first.is_ascii_punctuation() {
        return None;
    }
    let lower = name.to_lowercase();
    if [
        "the author",
        "the authors",
        "the editor",
        "the editors",
        "author",
        "authors",
    ]
    .contains(&lower.as_str())
    {
        return None;
    }
    Some(name)
}

/// Trims punctuation and a leading "the", title-cases all-capital words of
/// a multi-word name ("WESTERLY UNIVERSITY PRESS" → "Westerly
/// University Press"; "MIT PRESS" keeps "MIT").
pub fn clean_name(s: &str) -> String {
    let s = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| ".,:;—–-/ ".contains(c))
        .to_string();
    let s = match s.split_once(' ') {
        Some((the, rest)) if the.eq_ignore_ascii_case("the") && !rest.is_empty() => {
            rest.to_string()
        }
        _ => s,
    };
    let words: Vec<&str> = s.split(' ').collect();
    let letters = |w: &str| w.chars().filter(|c| c.is_alphabetic()).count();
    let caps = |w: &str| {
        letters(w) >= 2
            && w.chars()
                .filter(|c| c.is_alphabetic())
                .all(|c| c.is_uppercase())
    };
    if words.len() >= 2 && words.iter().filter(|w| caps(w)).count() >= 2 {
        words
            .iter()
            .map(|w| {
                // Short all-capital words are acronyms ("MIT", "ACM").
                if caps(w) && letters(w) >= 4 {
                    let mut cs = w.chars();
                    let first = cs.next().map(|c| c.to_string()).unwrap_or_default();
                    first + &cs.as_str().to_lowercase()
                } else {
                    w.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        s
    }
}

/// A report's or working paper's number ("Technical Report 752",
/// "Working Paper No. 2010/089", "Forschungsbericht 12").
static REPORT_NUMBER: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)^(?:technical|research|internal|project|annual|final|interim)?\s*(?:report|working\s+paper|discussion\s+paper|technical\s+note|memorandum|memo|white\s+paper|(?:forschungs|arbeits|technischer\s+)?bericht|rapport(?:\s+technique|\s+de\s+recherche)?|document\s+de\s+travail)\s*(?:no\.?|nr\.?|n°|number|#)?\s*[A-Z]{0,6}[-/ ]?\d[\w/.-]*$",
    )
    .unwrap()
});

/// The institution that issues a report: an organisation on its own line
/// right over or under the report number on the first page.
fn report_issuer(p: &PageCtx) -> Option<String> {
    let n = p.len().min(12);
    let at = (0..n).find(|&i| REPORT_NUMBER.is_match(p.text(i).trim()))?;
    [at.checked_sub(1), Some(at + 1)]
        .into_iter()
        .flatten()
        .filter(|&j| j < p.len())
        .map(|j| p.text(j).trim())
        .find(|t| is_org(t) && context::words(t) <= 10 && !t.contains('@'))
        .map(clean_name)
}

/// The name reads like an organisation.
fn is_org(name: &str) -> bool {
    ORG.is_match(name) || edition_imprint(name)
}

/// The name says it is a publisher ("Press", "Verlag", "Librairie",
/// "Издательство", "Éditions du …").
fn is_publisher_name(name: &str) -> bool {
    PUBLISHER_WORD.is_match(name) || edition_imprint(name)
}

/// "Edition Kranich", not the heading "Edition Notice" of a manual.
fn edition_imprint(name: &str) -> bool {
    EDITION_IMPRINT.is_match(name) && !EDITION_HEADING.is_match(name)
}

static EDITION_HEADING: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^editions?\s+(?:notice|notes?|statement|history|information|details)\b")
        .unwrap()
});

/// "Published 2002" on one line and the publisher's name on the next.
fn published_in_year_then_name(p: &PageCtx, i: usize) -> Option<(String, f32, &'static str)> {
    if !PUBLISHED_IN_YEAR.is_match(p.text(i).trim()) || i + 1 >= p.len() {
        return None;
    }
    let name = read_name(p.text(i + 1))?;
    if context::words(&name) > 8 || !is_org(&name) {
        return None;
    }
    let s = match (p.kind, p.part) {
        (PageKind::Imprint, Part::Front) => 0.8,
        (PageKind::Imprint | PageKind::Title, _) => 0.6,
        _ => 0.35,
    };
    Some((name, s, "organisation under a \"published in\" line"))
}

/// "X is an imprint of Y" on the copyright page.
fn imprint_of(p: &PageCtx, t: &str) -> Option<(String, f32, &'static str)> {
    let c = IMPRINT_OF.captures(t.trim())?;
    let name = read_name(&c[1])?;
    if !is_org(&name) {
        return None;
    }
    let s = if p.kind == PageKind::Imprint {
        0.7
    } else {
        0.4
    };
    Some((name, s, "\"is an imprint of\""))
}

/// A copyright-page line that is only a publisher's name, or the name and
/// its town ("Librairie Varène, Bruxelles").
fn bare_publisher_line(t: &str) -> Option<String> {
    let t = t.trim();
    let (head, place) = match t.split_once(", ") {
        Some((h, rest)) => (h, Some(rest)),
        None => (t, None),
    };
    if let Some(place) = place {
        let place_words = context::words(place);
        let capitalised = place.chars().next().is_some_and(char::is_uppercase);
        if place_words > 3 || !capitalised || place.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let name = read_name(head)?;
    if name != clean_name(head) || context::words(&name) > 6 || !is_publisher_name(&name) {
        return None;
    }
    Some(name)
}

fn published_by(p: &PageCtx, i: usize, joined: &str) -> Option<(String, f32, &'static str)> {
    let t = p.text(i);
    let m = PUBLISHED_BY.find(joined)?;
    if m.start() >= t.len() {
        return None;
    }
    let before = joined[..m.start()].to_lowercase();
    // The GPL/GFDL formula "as published by the Free Software Foundation".
    if before.trim_end().ends_with(" as") || before.trim_end() == "as" {
        return None;
    }
    let lower = t.to_lowercase();
    if ["license", "licence"].iter().any(|w| lower.contains(w)) {
        return None;
    }
    let after = &joined[m.end()..];
    let mut name = read_name(after)?;
    // "... by Quiet Harbour" + "Press, Halifax": run on over the line break
    // when that completes an organisation name.
    let starts_on_line = m.end() < t.len();
    if starts_on_line && !is_org(&name) && after.contains('\n') {
        if let Some(longer) = read_name(&after.replacen('\n', " ", 1)) {
            if is_org(&longer) {
                name = longer;
            }
        }
    }
    let org = is_org(&name);
    let lead = context::words(&joined[..m.start()]);
    let s = match (p.kind, p.part) {
        (PageKind::Imprint, Part::Front) => (0.85, 0.6),
        (PageKind::Imprint, Part::Back) => (0.75, 0.5),
        (PageKind::Title | PageKind::HalfTitle, _) => (0.75, 0.5),
        (_, Part::Back) if p.from_end <= 1 && lead <= 5 => (0.6, 0.35),
        (_, _) if lead <= 5 && p.index() <= 3 => (0.5, 0.3),
        _ => (0.25, 0.15),
    };
    let (score, why) = if org {
        (s.0, "\"published by\" an organisation")
    } else {
        (s.1, "\"published by\" a name")
    };
    Some((name, score, why))
}

fn chinese(p: &PageCtx, t: &str) -> Option<(String, f32, &'static str)> {
    let c = CN_PUBLISHER.captures(t)?;
    let (name, s) = match (c.get(1), c.get(2)) {
        (Some(n), _) => (n.as_str(), 0.85),
        (None, Some(n)) => (n.as_str(), 0.8),
        _ => return None,
    };
    let name = name.trim_start_matches(['—', '-']).trim().to_string();
    if name.is_empty() || (!is_org(&name) && name.chars().count() < 2) {
        return None;
    }
    let s = if p.kind == PageKind::Imprint {
        s
    } else {
        s - 0.3
    };
    Some((name, s, "publisher in the Chinese imprint"))
}

fn cip_imprint(t: &str) -> Option<String> {
    let c = CIP.captures(t)?;
    let name = clean_name(&c[1]);
    if name.split_whitespace().count() > 8 || name.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(name)
}

fn copyright_holder(p: &PageCtx, t: &str) -> Option<(String, f32, &'static str)> {
    let m = COPYRIGHT.find(t)?;
    let rest = &t[m.end()..];
    let lead = HOLDER_LEAD.find(rest).map_or(0, |x| x.end());
    let name = read_name(&rest[lead..])?;
    // A joint notice ("X College and Harriet Coombe") or a person is no
    // publisher.
    if !is_org(&name) || name.contains(" and ") || name.contains(" und ") {
        return None;
    }
    let s = match (p.kind, p.part) {
        (PageKind::Imprint | PageKind::Title, Part::Front) => 0.55,
        (_, Part::Front) if p.index() <= 4 => 0.45,
        _ => 0.3,
    };
    Some((name, s, "organisation as copyright holder"))
}

/// Publisher lines at the foot of a title page: short lines in the lower
/// part of the page; an organisation word makes one likely, capitals or an
/// ampersand above a place line make one possible.
fn title_foot(p: &PageCtx) -> Vec<(String, f32, &'static str)> {
    let n = p.len();
    let mut out = Vec::new();
    let max_size = (0..n).map(|i| p.page.lines[i].size).fold(0.0, f32::max);
    for i in 0..n {
        let t = p.text(i).trim();
        let low = p.rel_top(i) > 0.5 || i + 2 >= n;
        if !low || t.is_empty() || p.page.lines[i].size >= max_size {
            continue;
        }
        let words = context::words(t);
        if words == 0 || words > 6 || t.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let lower = t.to_lowercase();
        let edition_word =
            !edition_imprint(t) && ["edition", "édition"].iter().any(|w| lower.contains(w));
        if edition_word
            || ["edited", " by", "by ", "©", "http", "auflage", "volume"]
                .iter()
                .any(|w| lower.contains(w))
        {
            continue;
        }
        let near = |j: Option<usize>| j.is_some_and(|j| j < n && AFFILIATION.is_match(p.text(j)));
        if near(i.checked_sub(1)) || near(Some(i + 1)) || AFFILIATION.is_match(t) {
            // An author's affiliation, not an imprint.
            continue;
        }
        if is_publisher_name(t) {
            out.push((
                clean_name(t),
                0.6,
                "publisher line at the foot of the title page",
            ));
            continue;
        }
        if is_org(t) {
            out.push((
                clean_name(t),
                0.4,
                "organisation line at the foot of the title page",
            ));
            continue;
        }
        let caps = t
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| c.is_uppercase())
            && t.chars().filter(|c| c.is_alphabetic()).count() >= 4;
        let last = i + 1 == n;
        if caps || t.contains(" & ") {
            let s = if last { 0.2 } else { 0.35 };
            out.push((
                clean_name(t),
                s,
                "capitalised line at the foot of the title page",
            ));
        }
    }
    out
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

    #[test]
    fn cleans_names() {
        assert_eq!(
            clean_name("WESTERLY UNIVERSITY PRESS"),
            "Westerly University Press"
        );
        assert_eq!(clean_name("ÉDITIONS VARÈNE & Cie"), "Éditions Varène & Cie");
        assert_eq!(clean_name("the Quillon Project"), "Quillon Project");
        assert_eq!(clean_name("MIT PRESS"), "MIT Press");
        assert_eq!(clean_name("ATLIS"), "ATLIS");
    }

    #[test]
    fn published_by_across_lines_and_cip() {
        let title = page(
            3,
            &[
                ("The Ledger and the", 23.9, 132.0),
                ("Lantern", 23.9, 160.0),
                ("Rosalind Ashcombe", 13.9, 285.0),
                ("Second edition", 11.0, 463.0),
                ("Ashdown & Pryce", 10.5, 559.0),
                ("LONDON AND NEW YORK", 10.5, 573.0),
            ],
        );
        let copy = body(
            4,
            300.0,
            &[
                "Second edition published 2022",
                "by Ashdown & Pryce",
                "9 Calder Row, London N1 7QE",
                "© 2015, 2022 Rosalind Ashcombe",
                "Library of Congress Cataloging-in-Publication Data",
                "Description: Second edition. | London ; New York : Ashdown & Pryce, 2022. | Includes",
                "ISBN: 978-1-914673-40-5 (hbk)",
            ],
        );
        let c = run(&[title, copy], 16);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "Ashdown & Pryce");
        assert!(s >= 0.8);
        assert!(
            c.iter()
                .all(|c| c.value != Value::Text("Rosalind Ashcombe".into()))
        );
    }

    /// A title page with its imprint at the foot, then a copyright page.
    fn book(foot: &[&str], copyright: &[&str]) -> Vec<PageText> {
        let mut lines = vec![
            ("Die Uhren von Kranichsee", 24.0, 150.0),
            ("Ottilie Marwenau", 14.0, 300.0),
        ];
        for (k, t) in foot.iter().enumerate() {
            lines.push((t, 11.0, 600.0 + 14.0 * k as f32));
        }
        vec![page(2, &lines), body(3, 300.0, copyright)]
    }

    #[test]
    fn imprints_named_in_other_languages_are_publishers() {
        let cases: [(&[&str], &[&str], &str); 7] = [
            // A firm named after its owner and partners, with no
            // copyright page's help.
            (
                &["Ветлугин и партнёры", "Казань"],
                &["Все права защищены."],
                "Ветлугин и партнёры",
            ),
            (
                &["Marwick and Sons", "Leeds"],
                &["All rights reserved."],
                "Marwick and Sons",
            ),
            (
                &["Éditions du Malvent", "Lyon"],
                &["Paru en 1997", "Éditions du Malvent", "ISBN 2-00-000000-0"],
                "Éditions du Malvent",
            ),
            (
                &["Edition Kranichsee", "Hamburg"],
                &[
                    "Verlag: Edition Kranichsee",
                    "Alle Rechte vorbehalten.",
                    "ISBN 978-3-00-000000-0",
                ],
                "Edition Kranichsee",
            ),
            (
                &["Ostwinder Verlagsanstalt", "Wien"],
                &["Alle Rechte vorbehalten.", "ISBN 978-3-00-000000-0"],
                "Ostwinder Verlagsanstalt",
            ),
            (
                &["Издательство «Светлояр»", "Казань"],
                &[
                    "Выпуск 2011",
                    "Издательство «Светлояр»",
                    "Все права защищены.",
                ],
                "Издательство «Светлояр»",
            ),
            (
                &[],
                &[
                    "Publié en 2001",
                    "Librairie Varène, Bruxelles",
                    "Tous droits réservés.",
                ],
                "Librairie Varène",
            ),
        ];
        for (foot, copyright, want) in cases {
            let (v, s) = best(&run(&book(foot, copyright), 12)).expect(want);
            assert_eq!(v, want);
            assert!(s >= 0.6, "{want}: {s}");
        }
    }

    #[test]
    fn an_imprint_of_and_a_year_line_name_the_publisher() {
        let c = run(
            &book(
                &[],
                &[
                    "Published 2002",
                    "Harrowgate House",
                    "Harrowgate House is an imprint of Tillbury Media Group",
                    "All rights reserved.",
                ],
            ),
            12,
        );
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "Harrowgate House");
        assert!(s >= 0.8, "{s}");
    }

    #[test]
    fn edition_statements_are_not_imprints() {
        let c = run(
            &book(
                &[
                    "Second edition",
                    "Édition revue et augmentée",
                    "Edition Notice",
                ],
                &[
                    "First published 1998",
                    "All rights reserved.",
                    "Second edition 2004",
                ],
            ),
            12,
        );
        assert!(c.iter().all(|c| c.score < 0.5), "{c:?}");
    }

    #[test]
    fn licence_formula_is_not_a_publisher() {
        let p = body(
            99,
            100.0,
            &[
                "This program is free software: you can redistribute it and/or modify",
                "it under the terms of the GNU General Public License as published by",
                "the Free Software Foundation, either version 3 of the License, or",
                "Copyright (C) 2007 Free Software Foundation, Inc.",
            ],
        );
        let c = run(&[p], 101);
        assert!(c.iter().all(|c| c.score < 0.5), "{c:?}");
    }

    #[test]
    fn persons_are_not_publishers() {
        let p = body(
            1,
            100.0,
            &[
                "Copyright c 2004-23 Greg Tillinghast, Paul Dorsey, and Sam Keller.",
                "Copyright © 1999–2022 Q Core Team",
                "© Ashworth College and Harriet Coombe 2014",
                "Permission is granted to copy, distribute and/or modify this document.",
            ],
        );
        assert!(run(&[p], 196).is_empty());
    }

    #[test]
    fn title_page_foot_and_copyright_holder() {
        let title = page(
            1,
            &[
                ("Découverte de la prosodie du", 22.0, 150.0),
                ("français", 22.0, 180.0),
                ("Quatrième édition", 14.0, 260.0),
                ("ÉDITIONS VARÈNE & Cie", 12.0, 600.0),
                ("Paris", 11.0, 620.0),
            ],
        );
        let copy = body(
            2,
            200.0,
            &[
                "© Éditions Varène & Cie, Paris, 2008, 2013, 2019",
                "Toute reproduction ou représentation intégrale ou partielle est illicite.",
                "ISBN : 978-1-85237-902-5",
                "Dépôt légal : août 2019",
            ],
        );
        let c = run(&[title, copy], 16);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "Éditions Varène & Cie");
        assert!(s >= 0.5);
        assert!(c.iter().all(|c| c.value != Value::Text("Paris".into())));
    }

    #[test]
    fn institution_over_a_report_number_issues_the_report() {
        let first = page(
            0,
            &[
                ("Department of Geology, Harwick University", 11.0, 60.0),
                ("Research Report 752", 11.0, 78.0),
                (
                    "Crop Yield Prediction with Model Predictive Control",
                    18.0,
                    120.0,
                ),
                ("Nora Elderby and Kelan Goldgate", 12.0, 160.0),
                ("August 2013", 11.0, 190.0),
            ],
        );
        let c = run(&[first], 9);
        let (v, _) = best(&c).unwrap();
        assert_eq!(v, "Department of Geology, Harwick University");
        // A report number with nothing that reads as an institution by it.
        let bare = page(
            0,
            &[
                ("Working Paper No. 2010/089", 11.0, 60.0),
                ("Load Balancing Revisited", 18.0, 120.0),
            ],
        );
        assert!(best(&run(&[bare], 9)).is_none());
    }

    #[test]
    fn affiliation_is_not_a_publisher() {
        let p = page(
            0,
            &[
                ("A Patient Introduction to TEX", 20.0, 100.0),
                ("A Handbook for Home-study", 14.0, 130.0),
                ("Walter Frisk", 12.0, 400.0),
                ("Department of Mathematics", 10.0, 420.0),
                ("The University of Keewatin", 10.0, 435.0),
                ("Brandon, Keewatin, Canada R7A 5K9", 10.0, 450.0),
            ],
        );
        assert!(run(&[p], 97).iter().all(|c| c.score < 0.5));
    }

    #[test]
    fn usual_copyright_page_wordings() {
        let p = body(
            3,
            200.0,
            &[
                "Published in the United States of America by Cambridge University Press, New York",
                "© Cambridge University Press 2011",
                "This Springer imprint is published by the registered company Springer Nature Switzerland AG",
            ],
        );
        let c = run(&[p], 400);
        let names: Vec<String> = c
            .iter()
            .filter(|c| c.score >= 0.5)
            .map(|c| match &c.value {
                Value::Text(s) => s.clone(),
                _ => unreachable!(),
            })
            .collect();
        assert!(
            names.contains(&"Cambridge University Press".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"Springer Nature Switzerland AG".to_string()),
            "{names:?}"
        );
    }

    #[test]
    fn colophon_name_broken_over_lines() {
        let p = body(
            15,
            300.0,
            &[
                "Letters from a Slow Boat was published in 2019 by Quiet Harbour",
                "Press, Halifax, Nova Scotia.",
                "ISBN 978-1-7731943-6-3",
                "Set in Palatino. Printed on recycled paper.",
            ],
        );
        let c = run(&[p], 17);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "Quiet Harbour Press");
        assert!(s >= 0.5);
    }

    #[test]
    fn chinese_imprint() {
        let p = body(
            1,
            200.0,
            &[
                "图书在版编目（CIP）数据",
                "纸本保护方法 / 刘雨桐编著. —3 版. —苏州：青峦大学出版社，2021.3",
                "ISBN 978-1-63179-512-1",
                "出版发行：青峦大学出版社",
            ],
        );
        let c = run(&[p], 16);
        assert_eq!(best(&c).unwrap().0, "青峦大学出版社");
    }

    #[test]
    fn repeated_footer_organisation() {
        let mk = |idx: u32| {
            let mut lines: Vec<(&str, f32, f32)> = (0..40)
                .map(|k| (PROSE, 10.0, 80.0 + 15.0 * k as f32))
                .collect();
            lines.push(("ATLIS Association", 9.0, 750.0));
            lines.push((
                "15th ATLIS Conference on Data and Storage Systems",
                9.0,
                750.0,
            ));
            page(idx, &lines)
        };
        let c = run(&[mk(1), mk(2), mk(3)], 15);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "ATLIS Association");
        assert!(s >= 0.5);
    }

    #[test]
    fn journal_back_page_and_quillon_project() {
        let back = body(
            17,
            600.0,
            &[
                "Journal of Modelling Software",
                "published by the Society for Open Computational Methods",
                "October 2018, Volume 64, Issue 4",
            ],
        );
        let c = run(&[back], 18);
        assert_eq!(
            best(&c).unwrap().0,
            "Society for Open Computational Methods"
        );
        assert!(best(&c).unwrap().1 >= 0.5);
        let copy = body(
            1,
            100.0,
            &[
                "Copyright © 1983–2021 Cornelius P. Hart.",
                "This book is published by the Quillon Project [37]. Besides in Quillon",
                "GNU/Linux and its derivatives [19], you can fetch the book’s latest",
                "This book is free software.",
            ],
        );
        let c = run(&[copy], 796);
        assert_eq!(best(&c).unwrap().0, "Quillon Project");
    }
}
