//! Finder for `lccn` (Library of Congress Control Number) candidates.
//!
//! Only labelled numbers are taken ("Library of Congress Control Number",
//! "LCCN", "Library of Congress Catalog Card Number", "LC Control Number",
//! the CIP line "LC record available at https://lccn.loc.gov/..."), so an
//! LCCN is never guessed from a bare number and never confused with an
//! ISBN-10 (the ISBN finder in turn skips numbers under these labels). A
//! classification ("Library of Congress class QA401", "LCC D16.12") is not
//! an LCCN. Values are normalised the Library of Congress way: blanks
//! removed, the serial after a hyphen zero-padded to six digits
//! (`75-12345` → `75012345`, `2004-12345` → `2004012345`).
//!
//! When a CIP block gives a print and an ebook LCCN, the print one scores a
//! little higher.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: labelled on the copyright/imprint page; report it.
//! - `0.5 ..< 0.8`: labelled elsewhere in the front or back matter; confident
//!   enough to report alone.
//! - `< 0.2`: labelled inside a reference list or citation; never report.

use super::pattern::Pattern;
use crate::extract::context::{self, PageCtx, PageKind};
use crate::model::{Candidate, DocText, Field, Value, Via};
use std::sync::LazyLock;

/// Every `lccn` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for p in pages {
        // Lines still inside a CIP block (after its heading).
        let mut cip_left = 0;
        for i in 0..p.len() {
            let t = p.digits(i);
            if CIP_HEADING.is_match(t) {
                cip_left = CIP_LINES;
            } else if cip_left > 0 {
                cip_left -= 1;
                if let Some(c) = CLASS_LINE.captures(t)
                    && let Some(lccn) = normalize(&c[1])
                {
                    let why = format!(
                        "card number ending a CIP classification line (p{})",
                        p.index()
                    );
                    context::keep_best(&mut out, Field::Loc, p, Value::Text(lccn), 0.8, why);
                }
            }
            for m in LABEL.find_iter(t) {
                let rest = &t[m.end()..];
                let re = if p.via() == Via::Text {
                    &*VALUE
                } else {
                    &*VALUE_OCR
                };
                let Some(v) = re.captures(rest) else {
                    continue;
                };
                let Some(lccn) = normalize(&v[1]) else {
                    continue;
                };
                let after = &rest[v.get(0).map_or(0, |x| x.end())..];
                let (score, why) = score(p, i, m.as_str(), after);
                context::keep_best(&mut out, Field::Loc, p, Value::Text(lccn), score, why);
            }
        }
    }
    out
}

/// How many lines under its heading a CIP block runs.
const CIP_LINES: usize = 30;

static CIP_HEADING: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)catalog(?:u)?ing[-\s]+in[-\s]+publication").unwrap());

/// The last line of an old CIP block: the LC class ("PS3552.U75 C48
/// 1997"), the Dewey number ("813'.54—dc21") and then the card number
/// ("96-44387"), before an optional "CIP" or revision ("r97").
static CLASS_LINE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"^\s*[A-Z]{1,3}\s?\d{1,4}\S*\s.*\b\d{3}(?:\s?['’´]?\s?\.\d+)?.*\s(\d{2}[-‐–]\d{1,6})(?:\s*/?\s*r\d{2,4})?(?:\s+CIP)?\s*$",
    )
    .unwrap()
});

/// Normalises an LCCN (`2004012345`, `75-12345` -> `75012345`), or `None`.
pub fn normalize(s: &str) -> Option<String> {
    let s = s.trim();
    let s = URL.find(s).map_or(s, |m| &s[m.end()..]);
    // Drop a revision/suffix part ("/r85", "/AC").
    let s = s.split('/').next().unwrap_or("");
    let compact: String = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    let c = SHAPE.captures(&compact)?;
    let prefix = c.get(1).map_or("", |m| m.as_str());
    let year = &c[2];
    let serial = c.get(3).or(c.get(4)).map_or("", |m| m.as_str());
    if serial.is_empty() || serial.len() > 6 {
        return None;
    }
    if year.len() == 4 && !(year.starts_with("20")) {
        // Four-digit years are used from 2001 on.
        return None;
    }
    Some(format!("{prefix}{year}{serial:0>6}"))
}

static LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)(?:library\s+of\s+congress\s+(?:control|catalog(?:ue)?(?:\s+card)?|card)\s+(?:number|no\.?)|\blccn\b|\blc\s+control\s+(?:number|no\.?)|lccn\.loc\.gov/)",
    )
    .unwrap()
});

static URL: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?i)^(?:https?://)?lccn\.loc\.gov/").unwrap());

/// The value after a label: optional punctuation, then prefix letters, a
/// two- or four-digit year and a serial (hyphenated or six digits).
static VALUE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"^\s*[:：#.]?\s*((?:[a-z]{1,3}\s?)?\d{2,4}(?:\s?[-‐–]\s?\d{1,6}|\d{6})(?:/[a-z0-9]+)?)\b",
    )
    .unwrap()
});

/// The same for OCR text, which may split the serial with a space
/// ("72-8 1345").
static VALUE_OCR: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^\s*[:：#.]?\s*((?:[a-z]{1,3}\s?)?\d{2,4}(?:\s?[-‐–]\s?\d(?:\s?\d){0,5}|\d{6})(?:/[a-z0-9]+)?)\b")
        .unwrap()
});

static SHAPE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^([a-z]{0,3})(\d{4}|\d{2})(?:[-‐–](\d{1,6})|(\d{6}))$").unwrap()
});

fn score(p: &PageCtx, i: usize, label: &str, after: &str) -> (f32, String) {
    let where_ = format!("p{}", p.index());
    if p.in_references(i) || context::citation_like(p.text(i)) {
        return (0.1, format!("LCCN label in a citation ({where_})"));
    }
    let url = label.to_lowercase().contains("loc.gov");
    let (mut s, why) = match p.kind {
        PageKind::Imprint if url => (0.85, "LC record URL on the imprint page"),
        PageKind::Imprint => (0.9, "LCCN label on the imprint page"),
        PageKind::AlsoBy | PageKind::Index => (0.15, "LCCN label on an also-by/index page"),
        _ => (0.6, "LCCN label"),
    };
    let q = after.trim_start().to_lowercase();
    if q.starts_with("(print") {
        s += 0.03;
    } else if q.starts_with("(ebook") || q.starts_with("(e-book") || q.starts_with("(online") {
        s -= 0.1;
    }
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

    fn best(c: &[Candidate]) -> Option<String> {
        c.iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|c| match &c.value {
                Value::Text(s) => s.clone(),
                _ => unreachable!(),
            })
    }

    #[test]
    fn card_number_ending_the_classification_line_of_a_cip_block() {
        let p = body(
            4,
            300.0,
            &[
                "Library of Congress Cataloging-in-Publication Data",
                "Harlow, Edwin.",
                "Tidal engineering / Edwin Harlow.",
                "p. cm.",
                "ISBN 0-8493-2017-4",
                "1. Coastal engineering. I. Title.",
                "TC203.H37 1991   627'.58—dc20   90-12345   CIP",
            ],
        );
        assert_eq!(best(&run(&[p], 200)).as_deref(), Some("90012345"));
        // The same line outside a CIP block, or a class line without a
        // card number, gives nothing.
        let loose = body(4, 300.0, &["TC203.H37 1991   627'.58—dc20   90-12345"]);
        assert_eq!(best(&run(&[loose], 200)), None);
        let modern = body(
            4,
            300.0,
            &[
                "Library of Congress Cataloging-in-Publication Data",
                "Classification: LCC TC203 .H37 2019 | DDC 627/.58--dc23",
            ],
        );
        assert_eq!(best(&run(&[modern], 200)), None);
    }

    #[test]
    fn normalizes_modern_and_old_forms() {
        assert_eq!(normalize("2004012345").as_deref(), Some("2004012345"));
        assert_eq!(normalize("75-12345").as_deref(), Some("75012345"));
        assert_eq!(normalize("68-74219").as_deref(), Some("68074219"));
        assert_eq!(normalize("2001-1234").as_deref(), Some("2001001234"));
        assert_eq!(normalize("sn 85-1234").as_deref(), Some("sn85001234"));
        assert_eq!(
            normalize("https://lccn.loc.gov/2019047312").as_deref(),
            Some("2019047312")
        );
        assert_eq!(normalize("79-2345/r85").as_deref(), Some("79002345"));
        assert_eq!(normalize("1234567890"), None, "ten digits but no 20xx year");
        assert_eq!(normalize("QA401"), None);
    }

    #[test]
    fn cip_block_print_lccn_wins() {
        let p = body(
            4,
            300.0,
            &[
                "© 2015, 2022 Rosalind Ashcombe",
                "Library of Congress Cataloging-in-Publication Data",
                "Identifiers: LCCN 2019047312 (print) | LCCN 2019047313 (ebook) | ISBN 9781914673405",
                "Classification: LCC D16.18 .A84 2022 (print) | DDC 907.2—dc23",
                "LC record available at https://lccn.loc.gov/2019047312",
            ],
        );
        let c = run(&[p], 16);
        assert_eq!(best(&c).as_deref(), Some("2019047312"));
        assert!(c.iter().all(|c| c.score >= 0.5));
        assert!(
            c.iter()
                .all(|c| c.value != Value::Text("9781914673405".into()))
        );
    }

    #[test]
    fn old_catalog_card_number_not_isbn() {
        let p = body(
            2,
            100.0,
            &[
                "Copyright © 1972 by Mildred Halvorsen",
                "All rights reserved.",
                "Library of Congress Catalog Card Number: 68-74219",
                "ISBN 0-91423-103-0",
            ],
        );
        let c = run(&[p], 15);
        assert_eq!(c.len(), 1);
        assert_eq!(best(&c).as_deref(), Some("68074219"));
        assert!(c[0].score >= 0.8);
    }

    #[test]
    fn control_number_label_and_classification_is_not_lccn() {
        let p = body(
            1,
            100.0,
            &[
                "Copyright © 1983–2021 Cornelius P. Hart.",
                "U.S. Library of Congress class QA401.",
                "Library of Congress Control Number: 2004012345",
            ],
        );
        let c = run(&[p], 800);
        assert_eq!(c.len(), 1);
        assert_eq!(best(&c).as_deref(), Some("2004012345"));
    }

    #[test]
    fn no_label_no_lccn() {
        let p = body(
            2,
            100.0,
            &[
                "ISBN 2004012345",
                "中国版本图书馆 CIP 数据核字（2021）第 052846 号",
            ],
        );
        assert!(run(&[p], 16).is_empty());
    }

    #[test]
    fn ocr_lccn() {
        let p = ocr(body(
            2,
            100.0,
            &[
                "All rights reserved.",
                "Library of Congress Catalog Card Number: 68-74 2l9",
            ],
        ));
        assert_eq!(best(&run(&[p], 15)).as_deref(), Some("68074219"));
    }
}
