//! Finder for `doi` candidates: every DOI printed in the page text (`doi:`
//! / `DOI` labels, `https://doi.org/...` and `dx.doi.org` URLs, bare
//! `10.NNNN/...`), cleaned to the SPEC 7 form (lower case, no prefix, no
//! trailing punctuation) and scored by where it is printed.
//!
//! A paper's own DOI sits in a first-page header or footer (`doi:` line in
//! small type) or on the copyright page of a book; DOIs in a reference list,
//! in citation-shaped lines or in running prose ("available from doi:...")
//! belong to other works and score low. A DOI broken at the end of a line
//! (`doi:10.20746/jms.` + `v021.i05`) is joined with the start of the line
//! that continues it in the same column.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: labelled DOI in the header/footer or small type of the first
//!   pages, or on a copyright/imprint page; report it.
//! - `0.5 ..< 0.8`: confident enough to report alone: a labelled DOI on its
//!   own line in the front matter, or a labelled unlabelled-context DOI on
//!   an imprint page.
//! - `0.2 ..< 0.5`: weak: back-matter mention outside the references, a
//!   bare DOI, or a DOI in prose; use only when corroborated.
//! - `< 0.2`: another work's DOI (reference list, citation); never report.

use super::pattern::Pattern;
use crate::extract::context::{self, Band, PageCtx, PageKind, Part};
use crate::model::{Candidate, DocText, Field, Value, Via};
use std::borrow::Cow;
use std::sync::LazyLock;

/// Every `doi` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for p in pages {
        for i in 0..p.len() {
            let t = match p.via() {
                Via::Ocr => repair_ocr_line(p.text(i)),
                _ => Cow::Borrowed(p.text(i)),
            };
            for m in DOI_START.find_iter(&t) {
                let Some(raw) = read_doi(p, i, &t, m.start()) else {
                    continue;
                };
                let Some(doi) = normalize(&raw) else {
                    continue;
                };
                let (score, why) = score(p, i, &t, m.start());
                context::keep_best(&mut out, Field::Doi, p, Value::Text(doi), score, why);
            }
        }
    }
    out
}

/// Cleans a DOI (prefixes, URL form, trailing punctuation) into the SPEC 7
/// form (lower case, `10.`...), or `None` when it is not a DOI.
pub fn normalize(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.to_lowercase();
    let start = DOI_HEAD.find(&lower)?.start();
    // Whatever precedes the DOI must be a known prefix or nothing.
    let head = lower[..start].trim();
    let head_ok = head.is_empty()
        || PREFIX.is_match(head)
        || head.ends_with("doi.org/")
        || head.ends_with("doi.org/:")
        || head.ends_with("doi:");
    if !head_ok {
        return None;
    }
    let body: String = lower[start..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string();
    let body = trim_trailing(&body);
    // OCR may read the registrant's digits with letter confusions.
    let body = match body.split_once('/') {
        Some((reg, suffix)) => format!("{}/{}", repair_registrant(reg), suffix),
        None => return None,
    };
    if DOI_FULL.is_match(&body) {
        Some(body)
    } else {
        None
    }
}

static PREFIX: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^(?:doi\s*[:：]?|digital object identifier\s*:?|https?://(?:dx\.)?doi\.org/|(?:dx\.)?doi\.org/|info:doi/|urn:doi:)$")
        .unwrap()
});

static DOI_START: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\b1[0O]\.[0-9OIl]{4,9}/").unwrap());

/// Start of a DOI in lower-case text (OCR may read `1o.` for `10.`).
static DOI_HEAD: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"1[0o]\.").unwrap());

static DOI_FULL: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"^10\.\d{4,9}/\S+$").unwrap());

/// Label right before the DOI on its line.
static LABEL_BEFORE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)(?:\bdoi\s*[:：;]?|digital object identifier\s*:?|doi\.org/|dx\.doi\.org/)\s*$",
    )
    .unwrap()
});

/// A line that ends with a DOI label whose DOI is on the next line.
static LABEL_AT_END: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)(?:\bdoi\s*[:：]?|doi\.org/)\s*$").unwrap());

fn repair_registrant(reg: &str) -> String {
    reg.chars()
        .map(|c| match c {
            'o' | 'O' => '0',
            'l' | 'I' | 'i' => '1',
            x => x,
        })
        .collect()
}

/// Strips trailing punctuation that ends the sentence rather than the DOI,
/// keeping a closing bracket that closes one opened inside the DOI.
fn trim_trailing(s: &str) -> String {
    let mut s = s.to_string();
    while let Some(last) = s.chars().last() {
        let strip = match last {
            '.' | ',' | ';' | ':' | '"' | '\'' | '”' | '’' | '»' => true,
            ')' => s.matches('(').count() < s.matches(')').count(),
            ']' => s.matches('[').count() < s.matches(']').count(),
            '>' => s.matches('<').count() < s.matches('>').count(),
            '}' => s.matches('{').count() < s.matches('}').count(),
            _ => false,
        };
        if !strip {
            break;
        }
        s.pop();
    }
    s
}

/// An OCR line that names a DOI, with what Tesseract does to one undone
/// (each seen on scanned copyright pages, where a truncated DOI was
/// reported before):
/// - spaces next to a slash, and before a dot that the DOI goes on after
///   (`https:/ /doi .org/10.59174 /b55015-3`), are dropped; a full stop
///   after the DOI stays apart, so that the line below (a printer's key)
///   is not taken for the DOI's end;
/// - a comma read for the dot after `10`, or no dot (`10,57606/...`,
///   `10 67325/...`), is a dot;
/// - a space read inside the DOI's digits, next to a narrow `1`
///   (`10.69473/978 1990914447`, `wv.201 1.8981`, `10.5778 1/...`), is
///   dropped, but only when the pieces so joined are all that is left of
///   the line, so that a DOI followed by other words keeps its end.
///
/// (`doi;`, the colon read as a semicolon, is a label for every page.)
///
/// Lines that do not mention a DOI are returned as they are.
fn repair_ocr_line(t: &str) -> Cow<'_, str> {
    if !t
        .as_bytes()
        .windows(3)
        .any(|w| w.eq_ignore_ascii_case(b"doi"))
    {
        return Cow::Borrowed(t);
    }
    let chars: Vec<char> = t.chars().collect();
    let mut s = String::with_capacity(t.len());
    for (k, &c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            let prev = s.chars().last();
            let next = chars[k + 1..].iter().find(|c| !c.is_whitespace());
            // A dot after a space is the DOI's when the DOI goes on
            // after it (`doi .org`); a sentence's full stop stays apart.
            let dot_inside = next == Some(&'.')
                && chars[k + 1..]
                    .iter()
                    .skip_while(|c| c.is_whitespace())
                    .nth(1)
                    .is_some_and(|c| c.is_alphanumeric());
            if prev == Some('/') || next == Some(&'/') || dot_inside {
                continue;
            }
        }
        s.push(c);
    }
    let s = COMMA_FOR_DOT.replace_all(&s, "${1}0.${2}").into_owned();
    let Some(m) = OCR_DOI_HEAD.find(&s) else {
        return Cow::Owned(s);
    };
    let (head, rest) = s.split_at(m.start());
    let pieces: Vec<&str> = rest.split_whitespace().collect();
    let joinable = pieces.windows(2).all(|w| {
        w[0].ends_with(|c: char| c.is_ascii_digit())
            && w[1].starts_with(|c: char| c.is_ascii_digit())
            && w[1]
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '/'))
    });
    if pieces.len() > 1 && joinable {
        Cow::Owned(format!("{head}{}", pieces.concat()))
    } else {
        Cow::Owned(s)
    }
}

/// `10,` or `10 ` read for `10.` before a registrant: `${1}` is the `1`,
/// `${2}` the registrant and its slash.
static COMMA_FOR_DOT: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\b(1)[0O](?:,|\s+)([0-9]{4,9}/)").unwrap());

/// Where a DOI starts on an OCR line, its registrant possibly cut by a
/// space (`10.5778 1/...`).
static OCR_DOI_HEAD: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\b1[0O]\.[0-9]{1,9}[\s/]").unwrap());

/// The DOI text starting at byte `at` of line `i` (whose text, repaired
/// for OCR, is `t`), joined with the start of the continuation line when
/// the DOI is visibly cut at the line end.
fn read_doi(p: &PageCtx, i: usize, t: &str, at: usize) -> Option<String> {
    let token = t[at..].split_whitespace().next()?;
    let mut doi = token.to_string();
    let at_end = t[at + token.len()..].trim().is_empty();
    if at_end {
        let cut = doi.ends_with(['.', '-', '/', '_', ':'])
            || doi.split_once('/').is_some_and(|(_, s)| s.len() < 2);
        if let Some(j) = p.continuation(i).filter(|_| cut) {
            let next = p.text(j).trim_start();
            if let Some(first) = next.split_whitespace().next() {
                let plausible = first
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
                    && first
                        .chars()
                        .any(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '_')
                    && !first.starts_with("http");
                if plausible {
                    doi.push_str(first);
                }
            }
        }
    }
    Some(doi)
}

/// The line belongs to a "Citation:" / "To cite this article:" box on one
/// of the first two pages (the line itself or up to three lines above it).
fn own_citation(p: &PageCtx, i: usize) -> bool {
    if p.part != Part::Front || p.index() > 1 {
        return false;
    }
    let mut cur = Some(i);
    for _ in 0..4 {
        let Some(k) = cur else { return false };
        if CITE_BOX.is_match(p.text(k)) {
            return true;
        }
        cur = p.previous(k);
    }
    false
}

static CITE_BOX: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:citation|to\s+cite\s+this(?:\s+\w+)?|cite\s+this(?:\s+\w+)?(?:\s+as)?|please\s+cite\s+this(?:\s+\w+)?\s+as|how\s+to\s+cite(?:\s+this\s+\w+)?)\s*:")
        .unwrap()
});

fn score(p: &PageCtx, i: usize, t: &str, at: usize) -> (f32, String) {
    let prefix = &t[..at];
    let labelled = LABEL_BEFORE.is_match(prefix)
        || (prefix.trim().is_empty()
            && p.previous(i)
                .is_some_and(|j| LABEL_AT_END.is_match(p.text(j))));
    // Words before the label: a sentence or a citation, not a label line.
    let lead = LABEL_BEFORE
        .find(prefix)
        .map_or(prefix, |m| &prefix[..m.start()]);
    let lead_words = context::words(lead);
    let where_ = format!("p{}", p.index());

    if p.in_references(i) {
        return (0.05, format!("DOI in a reference list ({where_})"));
    }
    let cited = context::citation_like(t)
        || p.previous(i)
            .is_some_and(|j| context::citation_like(p.text(j)));
    if cited && own_citation(p, i) {
        // "Citation: Smith J (2019) Title. PLoS ONE 14(3): e0213000.
        // https://doi.org/...": the paper citing itself on its first page.
        return (
            0.8,
            format!("DOI in the paper's how-to-cite box ({where_})"),
        );
    }
    if cited {
        return (0.1, format!("DOI in a citation ({where_})"));
    }
    if matches!(p.kind, PageKind::AlsoBy | PageKind::Index) {
        return (0.1, format!("DOI on an also-by/index page ({where_})"));
    }
    let early = p.part == Part::Front && p.index() <= 1;
    let margin = p.band(i) != Band::Body
        || p.rel_size(i) < 0.95
        || p.rel_top(i) < 0.2
        || p.rel_top(i) > 0.85;
    let (s, why) = match (labelled, lead_words) {
        (true, w) if w <= 3 && early && margin => {
            (0.9, "labelled DOI in the first page's header/footer")
        }
        (true, w) if w <= 3 && p.kind == PageKind::Imprint => {
            (0.9, "labelled DOI on the imprint page")
        }
        (true, w) if w <= 3 && p.part == Part::Front && p.index() <= 4 => {
            (0.7, "labelled DOI on its own line in the front matter")
        }
        (true, w) if w <= 3 && p.part == Part::Front => (0.5, "labelled DOI in the front matter"),
        (true, w) if w <= 3 => (0.45, "labelled DOI in the back matter"),
        (true, _) => (0.2, "DOI in running text"),
        (false, _) if p.kind == PageKind::Imprint => (0.6, "bare DOI on the imprint page"),
        (false, w) if w == 0 && early && margin => (0.5, "bare DOI in the first page's margin"),
        (false, _) => (0.2, "bare DOI"),
    };
    (s, format!("{why} ({where_})"))
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
    fn normalizes_forms() {
        assert_eq!(
            normalize("https://doi.org/10.20746/JMS.v064.i04.").as_deref(),
            Some("10.20746/jms.v064.i04")
        );
        assert_eq!(
            normalize("doi: 10.1000/xyz123),").as_deref(),
            Some("10.1000/xyz123")
        );
        assert_eq!(
            normalize("DOI 10.1002/1096-987x(200102)22:3<273::aid-jcc1004>3.0.co;2-y.").as_deref(),
            Some("10.1002/1096-987x(200102)22:3<273::aid-jcc1004>3.0.co;2-y")
        );
        assert_eq!(
            normalize("http://dx.doi.org/10.1145/3.4").as_deref(),
            Some("10.1145/3.4")
        );
        assert_eq!(normalize("see 10.1000/abc"), None, "prose before");
        assert_eq!(normalize("10.10/abc"), None, "registrant too short");
        assert_eq!(normalize("doi:"), None);
    }

    fn jms_first_page() -> PageText {
        let mut lines = vec![
            ("Journal of Modelling Software", 27.9, 96.4),
            ("JMS", 10.9, 111.6),
            ("October 2018, Volume 64, Issue 4.", 10.0, 130.0),
            ("doi: 10.20746/jms.v064.i04", 10.0, 130.0),
            ("Robust Self-Adjusting Trees in arborist 3.0", 17.2, 222.0),
        ];
        let body: Vec<(&str, f32, f32)> = (0..30)
            .map(|k| (PROSE, 10.9, 300.0 + 13.0 * k as f32))
            .collect();
        lines.extend(body);
        lines.push((
            "The complete data is available from doi:10.4121/uuid:",
            10.9,
            700.0,
        ));
        lines.push((
            "6e6d3c8f-8a7e-4e1b-b8d6-2c3a0a3f9a11 for download.",
            10.9,
            713.0,
        ));
        page(0, &lines)
    }

    #[test]
    fn paper_header_doi_beats_references_and_prose() {
        let mut refs: Vec<&str> = vec![PROSE, PROSE, "References"];
        refs.extend([
            "Hollander C, Ibáñez J (2012). “Neural Networks in Q Using the Tübingen Neural Network",
            "Simulator: RSNNS.” Journal of Modelling Software, 46(7), 1–26. doi:10.20746/jms.",
            "v046.i07.",
            "Arbor T (1995). Self-Adjusting Trees. Feldmann-Verlag, Berlin. doi:10.1007/",
            "978-3-642-51234-6.",
        ]);
        let back = body(16, 80.0, &refs);
        let c = run(&[jms_first_page(), back], 18);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "10.20746/jms.v064.i04");
        assert!(s >= 0.8);
        let get = |d: &str| {
            c.iter()
                .find(|c| c.value == Value::Text(d.into()))
                .map(|c| c.score)
        };
        assert!(
            get("10.20746/jms.v046.i07").unwrap() < 0.2,
            "joined across lines, low"
        );
        assert!(get("10.1007/978-3-642-51234-6").unwrap() < 0.2);
        let prose = c
            .iter()
            .find(|c| matches!(&c.value, Value::Text(s) if s.starts_with("10.4121/")))
            .unwrap();
        assert!(prose.score < 0.5);
    }

    #[test]
    fn reference_only_paper_has_no_confident_doi() {
        let mut lines: Vec<&str> = std::iter::repeat_n(PROSE, 8).collect();
        lines.push("References");
        lines.push("Altmoser B (2006). “Implementing a Class of Structural Change Tests.”");
        lines.push("Computational Statistics & Data Analysis, 55, 2411–2436. doi:");
        lines.push("10.1016/j.csda.2011.03.014.");
        let p = body(25, 80.0, &lines);
        let c = run(&[p], 30);
        assert_eq!(c.len(), 1);
        assert_eq!(best(&c).unwrap().0, "10.1016/j.csda.2011.03.014");
        assert!(c[0].score < 0.2);
    }

    #[test]
    fn own_citation_box_on_first_page() {
        let mut lines: Vec<(&str, f32, f32)> = vec![
            ("A Study of Something Important", 18.0, 80.0),
            ("Jane Smith, Ana Doe", 12.0, 120.0),
            (
                "Citation: Smith J, Doe A (2019) A study of something important. PLoS ONE",
                8.0,
                600.0,
            ),
            (
                "14(3): e0213000. https://doi.org/10.1371/journal.pone.0213000",
                8.0,
                610.0,
            ),
        ];
        lines.extend((0..20).map(|k| (PROSE, 10.0, 150.0 + 12.0 * k as f32)));
        let c = run(&[page(0, &lines)], 14);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "10.1371/journal.pone.0213000");
        assert!(s >= 0.5);
    }

    #[test]
    fn copyright_page_doi() {
        let p = body(
            2,
            100.0,
            &[
                "Westerly University Press",
                "© the chapters their several authors, 2021",
                "This book is published open access under a CC BY 4.0 licence.",
                "ISBN 978-1-80943-017-5 (hardback)",
                "DOI 10.49263/WUP.0243",
            ],
        );
        let c = run(&[p], 16);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "10.49263/wup.0243");
        assert!(s >= 0.8);
    }

    #[test]
    fn url_form_in_footer() {
        let mut lines: Vec<(&str, f32, f32)> = (0..30)
            .map(|k| (PROSE, 10.0, 100.0 + 13.0 * k as f32))
            .collect();
        lines.push(("https://doi.org/10.1145/3302424.3303968", 8.0, 760.0));
        let c = run(&[page(0, &lines)], 12);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "10.1145/3302424.3303968");
        assert!(s >= 0.8);
    }

    #[test]
    fn ocr_doi_registrant_repaired() {
        let p = ocr(body(
            2,
            100.0,
            &[
                "All rights reserved.",
                "ISBN 978-1-80466-211-3",
                "DOI 1O.61529/9781804662120",
            ],
        ));
        assert_eq!(best(&run(&[p], 15)).unwrap().0, "10.61529/9781804662120");
    }

    /// What Tesseract does to a DOI on a scanned copyright page: spaces
    /// by a narrow `1`, around slashes and dots, a comma for the dot.
    #[test]
    fn ocr_doi_spaces_and_comma_repaired() {
        for (line, want) in [
            ("doi: 10.64713/978 1990914474", "10.64713/9781990914474"),
            ("doi; 10.58009/qx.201 1.8891", "10.58009/qx.2011.8891"),
            ("doi:10.61799/b61 116-9", "10.61799/b61116-9"),
            ("https:/ /doi .org/10.57194 /b50515-3", "10.57194/b50515-3"),
            ("DOI: 10,66781/97839923 12153", "10.66781/9783992312153"),
            (
                "https://doi.org/10.5787 1/9780998354 213",
                "10.57871/9780998354213",
            ),
            ("doi:10 63725 /9782990114808", "10.63725/9782990114808"),
        ] {
            let p = ocr(body(
                2,
                100.0,
                &["All rights reserved.", "ISBN 978-1-80466-211-3", line],
            ));
            let (v, s) = best(&run(&[p], 15)).unwrap();
            assert_eq!(v, want, "{line}");
            assert!(s >= 0.5, "{line}: {s}");
        }
    }

    /// Only the pieces that end the line are joined, and only on OCR pages.
    #[test]
    fn doi_pieces_before_other_words_or_in_born_text_stay_apart() {
        let lines = [
            "All rights reserved.",
            "DOI 10.64713/978 19 printed in Wales",
        ];
        let c = run(&[ocr(body(2, 100.0, &lines))], 15);
        assert_eq!(best(&c).unwrap().0, "10.64713/978");
        // A full stop after the DOI stays a full stop: the printer's key
        // on the next line is not the DOI's end.
        let lines = ["https://doi.org/10.58155/b18313-9 .", "13579108642"];
        let c = run(&[ocr(body(2, 100.0, &lines))], 15);
        assert_eq!(best(&c).unwrap().0, "10.58155/b18313-9");
        let c = run(&[body(2, 100.0, &["DOI 10.64713/978 1990914474"])], 15);
        assert_eq!(best(&c).unwrap().0, "10.64713/978");
    }
}
