//! The catalogue rule: how the answers of online catalogues (`--online`),
//! given as candidates with `via: online:<source>`, confirm, complete or
//! contradict the values decided from the PDF. Written down in
//! `docs/online.md`; in short:
//!
//! A catalogue is treated as a witness of known reliability `r` per source
//! and field ([`reliability`]), and the page value's probability `p` (the
//! ranker's, see [`super::ranker`]) is updated by Bayes' rule:
//!
//! - **agrees**: `p' = p·r / (p·r + (1−p)·ε)`, where `ε` ([`CHANCE`]) is
//!   how often a wrong reading would match the catalogue by chance. The
//!   page's value, form and source stay; the field is listed as confirmed.
//! - **disagrees**, page value sure (`p ≥ MIN_CONFIDENCE`):
//!   `p' = p·(1−r) / (p·(1−r) + (1−p))`. The printed value stands when `p'`
//!   still reaches `MIN_CONFIDENCE`, else it becomes *unsure* (shown, never
//!   proposed or written). The catalogue's value is never used: the
//!   conflict is listed in the record's warnings and `online.conflicts`.
//! - **page has no sure value** (none, or below `MIN_CONFIDENCE`): the
//!   catalogue's value fills the gap with confidence `r`, marked by its
//!   `via`; an unsure printed value stays visible under `unsure`.
//!
//! Three exceptions keep a catalogue from overruling what is printed
//! where it describes something else:
//!
//! - **another work**: an answer that contradicts both a sure printed title
//!   and sure printed authors is about another work (an ISBN from an
//!   advertisement, a misprinted DOI): nothing of it is used.
//! - **another edition**: when the page and the catalogue both give an
//!   edition and they differ, edition and year come from the page; the
//!   catalogue's are neither used nor held against the page.
//! - **year**: a different year alone (a reprint, the catalogue's date of
//!   first publication) leaves the printed year as it is.
//!
//! Identifiers (ISBN, DOI, LCCN) a catalogue lists are only used to fill
//! a missing one: a catalogue may list other ISBNs of the same edition.

use super::{set, surnames, text_of};
use crate::extract::layout::{fold, token_f1, tokens};
use crate::model::{Candidate, Conflict, Decision, Field, Metadata, Value, Via};

/// How often a wrong page value matches a catalogue's by chance.
pub const CHANCE: f32 = 0.02;

/// Title tokens at least this close (token F1) say the same thing.
const SAME_TITLE: f32 = 0.85;

/// How often a catalogue's value for `field` is right when the identifier
/// is. Estimates, not trained (no catalogue answers are kept with the
/// corpus): bibliographic agencies (DOI registrations, the Library of
/// Congress) above the crowd-edited Open Library; names, publishers and
/// editions below titles, since catalogues abbreviate and reorder them.
pub fn reliability(via: Via, field: Field) -> f32 {
    let agency = !matches!(via, Via::OnlineOpenLibrary);
    match field {
        Field::Title => 0.95,
        Field::Subtitle | Field::Publisher | Field::Edition => 0.9,
        Field::Authors | Field::Year if agency => 0.95,
        Field::Authors | Field::Year => 0.92,
        Field::Isbn | Field::Doi | Field::Loc => 0.95,
    }
}

/// The confidence of a catalogue's value that fills a field: its
/// reliability, but no less than the default `MIN_CONFIDENCE`. The
/// reliabilities are estimates, not measured, and the default threshold
/// is fitted to the ranker's held-out probabilities, which these are not:
/// a catalogue's answer is used at the default threshold (as a vision
/// answer is, [`super::ranker::unmeasured_probability`]), and left unsure
/// once the user asks for more certainty than both.
pub fn fill_confidence(via: Via, field: Field) -> f32 {
    reliability(via, field).max(super::ranker::DEFAULT_MIN_CONFIDENCE)
}

/// A decision with the catalogues' answers merged in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    pub decision: Decision,
    pub confirmed: Vec<Field>,
    pub filled: Vec<Field>,
    pub conflicts: Vec<Conflict>,
    /// Unsure printed values a catalogue's value took the place of: still
    /// shown as unsure.
    pub replaced: Metadata,
}

/// How a catalogue value compares with the printed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Agree,
    Disagree,
    /// Neither (authors that overlap in part, another ISBN of the edition).
    Neutral,
}

/// Merges the catalogue candidates `online` (every `via` an online one)
/// into `d` by the rule of this module; `min` is `MIN_CONFIDENCE`.
pub fn merge(d: &Decision, online: &[Candidate], min: f32) -> Merged {
    let mut out = Merged {
        decision: d.clone(),
        ..Merged::default()
    };
    let (other_work, other_edition) = other_works(d, online, min, &mut out);
    let mut title_from: Option<Via> = None;
    for field in Field::ALL {
        if field == Field::Subtitle {
            continue; // with its title, below
        }
        let mut cands: Vec<&Candidate> = online
            .iter()
            .filter(|c| c.field == field && !other_work.contains(&c.via))
            .filter(|c| {
                !(other_edition.contains(&c.via) && matches!(field, Field::Edition | Field::Year))
            })
            .collect();
        cands.sort_by(|a, b| reliability(b.via, field).total_cmp(&reliability(a.via, field)));
        if let Some(via) = merge_field(d, field, &cands, online, min, &mut out)
            && field == Field::Title
        {
            title_from = Some(via);
        }
    }
    merge_subtitle(&mut out, online, title_from);
    out
}

/// Whether the page's value of `f` is sure (at `min` or above, or with no
/// probability: a checked identifier).
fn is_sure(d: &Decision, f: Field, min: f32) -> bool {
    d.metadata.has(f) && d.confidence.get(&f).is_none_or(|p| *p >= min)
}

/// Which catalogues answered about another work (sure title and authors
/// both contradicted) or another edition (another edition statement):
/// their answers are not used, or not for edition and year; each is noted
/// as a conflict.
fn other_works(
    d: &Decision,
    online: &[Candidate],
    min: f32,
    out: &mut Merged,
) -> (Vec<Via>, Vec<Via>) {
    let page = &d.metadata;
    let mut vias: Vec<Via> = Vec::new();
    for c in online {
        if !vias.contains(&c.via) {
            vias.push(c.via);
        }
    }
    let mut other_work = Vec::new();
    let mut other_edition = Vec::new();
    for &via in &vias {
        let said = |f: Field| online.iter().find(|c| c.via == via && c.field == f);
        let contradicts = |f: Field| {
            is_sure(d, f, min)
                && said(f).is_some_and(|c| {
                    page_value(page, f)
                        .is_some_and(|p| verdict(f, &p, page, c, online) == Verdict::Disagree)
                })
        };
        if contradicts(Field::Title) && contradicts(Field::Authors) {
            other_work.push(via);
            let c = said(Field::Title).expect("contradicts");
            out.conflicts.push(conflict(
                page,
                Field::Title,
                c,
                "another work: catalogue not used",
            ));
            continue;
        }
        if let (Some(p), Some(c)) = (&page.edition, said(Field::Edition))
            && Some(p.as_str()) != Some(text_of(&c.value))
        {
            other_edition.push(via);
            out.conflicts.push(conflict(
                page,
                Field::Edition,
                c,
                "another edition: page stands",
            ));
        }
    }
    (other_work, other_edition)
}

/// One field: the catalogue candidates `cands` (most reliable first)
/// against the printed value. A gap is filled; an agreeing answer raises
/// the confidence; a disagreeing one replaces an unsure printed value or
/// lowers a sure one. Returns the catalogue whose value was confirmed or
/// used, if any.
fn merge_field(
    d: &Decision,
    field: Field,
    cands: &[&Candidate],
    online: &[Candidate],
    min: f32,
    out: &mut Merged,
) -> Option<Via> {
    let page = &d.metadata;
    let best = cands.first().copied()?;
    let p = d.confidence.get(&field).copied();
    let Some(printed) = page_value(page, field) else {
        fill(out, field, best);
        return Some(best.via);
    };
    let verdicts: Vec<(Verdict, &Candidate)> = cands
        .iter()
        .map(|c| (verdict(field, &printed, page, c, online), *c))
        .collect();
    if let Some((_, c)) = verdicts.iter().find(|(v, _)| *v == Verdict::Agree) {
        if let Some(p) = p {
            let r = reliability(c.via, field);
            out.decision
                .confidence
                .insert(field, p * r / (p * r + (1.0 - p) * CHANCE));
        }
        out.confirmed.push(field);
        return Some(c.via);
    }
    let (_, c) = verdicts.iter().find(|(v, _)| *v == Verdict::Disagree)?;
    if matches!(field, Field::Isbn | Field::Doi | Field::Loc) {
        return None;
    }
    if !is_sure(d, field, min) {
        // Nothing sure was printed: the catalogue fills the gap, the
        // printed reading stays visible as unsure.
        set(&mut out.replaced, field, &printed);
        if field == Field::Title {
            // The printed subtitle went with the printed title.
            out.replaced.subtitle = out.decision.metadata.subtitle.take();
            out.decision.sources.remove(&Field::Subtitle);
            out.decision.confidence.remove(&Field::Subtitle);
        }
        out.conflicts.push(conflict(
            page,
            field,
            c,
            "catalogue fills (the page value was unsure)",
        ));
        fill(out, field, c);
        return Some(c.via);
    }
    if field == Field::Year {
        out.conflicts.push(conflict(
            page,
            field,
            c,
            "another printing or edition: page stands",
        ));
        return None;
    }
    let p = p.unwrap_or(1.0);
    let r = reliability(c.via, field);
    let after = p * (1.0 - r) / (p * (1.0 - r) + (1.0 - p));
    out.decision.confidence.insert(field, after);
    let outcome = if after >= min {
        "page stands"
    } else {
        "unsure"
    };
    out.conflicts.push(conflict(page, field, c, outcome));
    None
}

/// The subtitle goes with the title it belongs to: the catalogue's only
/// when its title is the one reported (confirmed or filled by it).
fn merge_subtitle(out: &mut Merged, online: &[Candidate], title_from: Option<Via>) {
    let Some(via) = title_from else { return };
    let Some(c) = online
        .iter()
        .find(|c| c.via == via && c.field == Field::Subtitle)
    else {
        return;
    };
    match out.decision.metadata.subtitle.clone() {
        None => fill(out, Field::Subtitle, c),
        Some(s) => {
            if token_f1(&s, text_of(&c.value)) >= SAME_TITLE {
                if let Some(p) = out.decision.confidence.get(&Field::Subtitle).copied() {
                    let r = reliability(via, Field::Subtitle);
                    out.decision
                        .confidence
                        .insert(Field::Subtitle, p * r / (p * r + (1.0 - p) * CHANCE));
                }
                out.confirmed.push(Field::Subtitle);
            }
        }
    }
}

/// Sets `field` from the catalogue candidate `c`.
fn fill(out: &mut Merged, field: Field, c: &Candidate) {
    set(&mut out.decision.metadata, field, &c.value);
    out.decision.sources.insert(field, (None, c.via));
    if !matches!(field, Field::Isbn | Field::Doi | Field::Loc) {
        out.decision
            .confidence
            .insert(field, fill_confidence(c.via, field));
    }
    out.filled.push(field);
}

fn page_value(m: &Metadata, f: Field) -> Option<Value> {
    let text = |s: &Option<String>| s.clone().map(Value::Text);
    match f {
        Field::Title => text(&m.title),
        Field::Subtitle => text(&m.subtitle),
        Field::Authors => (!m.authors.is_empty()).then(|| Value::Names(m.authors.clone())),
        Field::Publisher => text(&m.publisher),
        Field::Year => m.year.map(Value::Number),
        Field::Edition => text(&m.edition),
        Field::Isbn => text(&m.isbn),
        Field::Doi => text(&m.doi),
        Field::Loc => text(&m.loc),
    }
}

/// How the catalogue's `c` compares with the printed value `p` of `field`.
fn verdict(field: Field, p: &Value, page: &Metadata, c: &Candidate, all: &[Candidate]) -> Verdict {
    let yes = |b: bool| if b { Verdict::Agree } else { Verdict::Disagree };
    match (field, p, &c.value) {
        (Field::Title, Value::Text(p), Value::Text(t)) => {
            // Either side may print the subtitle as part of the title.
            let page_full = match &page.subtitle {
                Some(s) => format!("{p} {s}"),
                None => p.clone(),
            };
            let cat_full = match all
                .iter()
                .find(|s| s.via == c.via && s.field == Field::Subtitle)
            {
                Some(s) => format!("{t} {}", text_of(&s.value)),
                None => t.clone(),
            };
            yes([
                (p.as_str(), t.as_str()),
                (&page_full, t),
                (p, &cat_full),
                (&page_full, &cat_full),
            ]
            .iter()
            .any(|(a, b)| token_f1(a, b) >= SAME_TITLE))
        }
        (Field::Authors, Value::Names(p), Value::Names(c)) => {
            let (a, b) = (surnames(p), surnames(c));
            if a.is_empty() || b.is_empty() {
                Verdict::Neutral
            } else if a.iter().all(|x| b.contains(x)) || b.iter().all(|x| a.contains(x)) {
                Verdict::Agree
            } else if a.iter().any(|x| b.contains(x)) {
                Verdict::Neutral
            } else {
                Verdict::Disagree
            }
        }
        (Field::Publisher, Value::Text(p), Value::Text(c)) => {
            let (a, b) = (publisher_words(p), publisher_words(c));
            let (short, long) = if a.len() <= b.len() {
                (&a, &b)
            } else {
                (&b, &a)
            };
            yes(!short.is_empty() && short.iter().all(|w| long.contains(w)))
        }
        (Field::Year, Value::Number(p), Value::Number(c)) => yes(p == c),
        (Field::Edition, Value::Text(p), Value::Text(c)) => yes(fold(p) == fold(c)),
        (Field::Isbn | Field::Doi | Field::Loc, Value::Text(p), Value::Text(c)) => {
            if fold(p).replace(' ', "") == fold(c).replace(' ', "") {
                Verdict::Agree
            } else {
                Verdict::Neutral
            }
        }
        _ => Verdict::Neutral,
    }
}

/// A publisher's distinctive words ("Springer-Verlag GmbH" → springer).
fn publisher_words(s: &str) -> Vec<String> {
    const GENERIC: &[&str] = &[
        "the",
        "and",
        "of",
        "inc",
        "ltd",
        "llc",
        "co",
        "company",
        "corp",
        "gmbh",
        "verlag",
        "publishing",
        "publishers",
        "publisher",
        "publications",
        "group",
        "limited",
        "sa",
        "ag",
        "media",
    ];
    tokens(s)
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect()
}

fn shown(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        Value::Names(n) => n.join("; "),
        Value::Number(n) => n.to_string(),
    }
}

fn conflict(page: &Metadata, field: Field, c: &Candidate, outcome: &str) -> Conflict {
    Conflict {
        field,
        page: page_value(page, field)
            .map(|v| shown(&v))
            .unwrap_or_default(),
        catalogue: shown(&c.value),
        via: c.via,
        outcome: outcome.to_string(),
    }
}

/// The warning a conflict is listed with in the record.
pub fn warning(c: &Conflict) -> String {
    format!(
        "{}: the page says \u{ab}{}\u{bb}, {} says \u{ab}{}\u{bb}: {}",
        c.field.as_str(),
        c.page,
        c.via.as_str(),
        c.catalogue,
        c.outcome
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Via;

    const MIN: f32 = 0.9;

    fn online(via: Via, field: Field, value: Value) -> Candidate {
        Candidate {
            field,
            value,
            score: reliability(via, field),
            page: None,
            via,
            why: String::new(),
        }
    }
    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }
    fn names(n: &[&str]) -> Value {
        Value::Names(n.iter().map(|s| s.to_string()).collect())
    }

    /// A decision as the page gave it: title, authors, year with their
    /// probabilities.
    fn page(title: (&str, f32), authors: (&[&str], f32), year: Option<(i32, f32)>) -> Decision {
        let mut d = Decision::default();
        d.metadata.title = Some(title.0.into());
        d.confidence.insert(Field::Title, title.1);
        d.sources.insert(Field::Title, (Some(0), Via::Text));
        d.metadata.authors = authors.0.iter().map(|s| s.to_string()).collect();
        d.confidence.insert(Field::Authors, authors.1);
        d.sources.insert(Field::Authors, (Some(0), Via::Text));
        if let Some((y, p)) = year {
            d.metadata.year = Some(y);
            d.confidence.insert(Field::Year, p);
            d.sources.insert(Field::Year, (Some(1), Via::Text));
        }
        d.metadata.isbn = Some("9781915862402".into());
        d
    }

    const OL: Via = Via::OnlineOpenLibrary;

    #[test]
    fn agreement_raises_confidence_and_keeps_the_printed_form() {
        let d = page(
            ("THE QUIET FIELD", 0.6),
            (&["M. Quill"], 0.95),
            Some((2021, 0.8)),
        );
        let m = merge(
            &d,
            &[
                online(OL, Field::Title, text("The quiet field")),
                online(OL, Field::Authors, names(&["Mara Quill"])),
                online(OL, Field::Year, Value::Number(2021)),
                online(OL, Field::Publisher, text("Harrow & Finch")),
            ],
            MIN,
        );
        let c = &m.decision.confidence;
        assert!(c[&Field::Title] > 0.98, "{c:?}");
        assert!(c[&Field::Authors] > 0.95 && c[&Field::Year] > MIN, "{c:?}");
        assert_eq!(
            m.decision.metadata.title.as_deref(),
            Some("THE QUIET FIELD")
        );
        assert_eq!(m.decision.sources[&Field::Title], (Some(0), Via::Text));
        assert_eq!(m.confirmed, [Field::Title, Field::Authors, Field::Year]);
        // The publisher was not printed: the catalogue fills it, marked.
        assert_eq!(m.filled, [Field::Publisher]);
        assert_eq!(m.decision.sources[&Field::Publisher], (None, OL));
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn a_sure_printed_value_that_disagrees_stands_or_becomes_unsure() {
        let cat = [
            online(OL, Field::Title, text("A Different Book Entirely")),
            online(OL, Field::Authors, names(&["Mara Quill"])),
        ];
        // Very sure: stands, with lower confidence and a conflict.
        let d = page(("The Quiet Field", 0.995), (&["Mara Quill"], 0.95), None);
        let m = merge(&d, &cat, MIN);
        let p = m.decision.confidence[&Field::Title];
        assert!((MIN..0.995).contains(&p), "{p}");
        assert_eq!(
            m.decision.metadata.title.as_deref(),
            Some("The Quiet Field")
        );
        assert_eq!(m.conflicts[0].outcome, "page stands");
        // Merely sure: unsure now, and never replaced by the catalogue.
        let d = page(("The Quiet Field", 0.93), (&["Mara Quill"], 0.95), None);
        let m = merge(&d, &cat, MIN);
        assert!(m.decision.confidence[&Field::Title] < MIN);
        assert_eq!(
            m.decision.metadata.title.as_deref(),
            Some("The Quiet Field")
        );
        assert_eq!(m.conflicts[0].outcome, "unsure");
        assert_eq!(m.conflicts[0].catalogue, "A Different Book Entirely");
        assert!(warning(&m.conflicts[0]).contains("online:openlibrary says"));
    }

    #[test]
    fn an_unsure_printed_value_is_replaced_and_kept_as_unsure() {
        let mut d = page(("Tbe Qu1et F1eld", 0.3), (&["M Qui11"], 0.2), None);
        d.metadata.subtitle = Some("A H1story".into());
        d.confidence.insert(Field::Subtitle, 0.3);
        let m = merge(
            &d,
            &[
                online(OL, Field::Title, text("The Quiet Field")),
                online(OL, Field::Subtitle, text("A History of Commons")),
                online(OL, Field::Authors, names(&["Mara Quill"])),
            ],
            MIN,
        );
        let md = &m.decision.metadata;
        assert_eq!(md.title.as_deref(), Some("The Quiet Field"));
        assert_eq!(md.subtitle.as_deref(), Some("A History of Commons"));
        assert_eq!(md.authors, ["Mara Quill"]);
        assert!(m.decision.confidence[&Field::Title] >= MIN);
        assert_eq!(m.replaced.title.as_deref(), Some("Tbe Qu1et F1eld"));
        assert_eq!(m.replaced.subtitle.as_deref(), Some("A H1story"));
        assert_eq!(m.filled, [Field::Title, Field::Authors, Field::Subtitle]);
    }

    #[test]
    fn another_work_is_not_used_and_another_edition_keeps_edition_and_year() {
        let d = page(
            ("The Quiet Field", 0.95),
            (&["Mara Quill"], 0.95),
            Some((2021, 0.95)),
        );
        let m = merge(
            &d,
            &[
                online(OL, Field::Title, text("Cooking With Lentils")),
                online(OL, Field::Authors, names(&["Pat Jones"])),
                online(OL, Field::Publisher, text("Lentil Press")),
            ],
            MIN,
        );
        assert_eq!(m.decision, d, "nothing of another work is used");
        assert_eq!(m.conflicts[0].outcome, "another work: catalogue not used");

        let mut d = page(
            ("The Quiet Field", 0.95),
            (&["Mara Quill"], 0.95),
            Some((2021, 0.95)),
        );
        d.metadata.edition = Some("2".into());
        d.confidence.insert(Field::Edition, 0.95);
        let m = merge(
            &d,
            &[
                online(OL, Field::Title, text("The Quiet Field")),
                online(OL, Field::Edition, text("1")),
                online(OL, Field::Year, Value::Number(1998)),
            ],
            MIN,
        );
        assert_eq!(m.decision.metadata.edition.as_deref(), Some("2"));
        assert_eq!(m.decision.metadata.year, Some(2021));
        assert_eq!(m.decision.confidence[&Field::Year], 0.95);
        assert_eq!(m.conflicts[0].outcome, "another edition: page stands");
        // Without editions, a different year alone leaves the page's.
        let d = page(
            ("The Quiet Field", 0.95),
            (&["Mara Quill"], 0.95),
            Some((2021, 0.95)),
        );
        let m = merge(&d, &[online(OL, Field::Year, Value::Number(1998))], MIN);
        assert_eq!(m.decision.metadata.year, Some(2021));
        assert_eq!(
            m.conflicts[0].outcome,
            "another printing or edition: page stands"
        );
    }

    #[test]
    fn verdicts() {
        let page = Metadata::default();
        let c = |f, v| online(Via::OnlineCrossref, f, v);
        let v = |f, p: Value, cand: Candidate| verdict(f, &p, &page, &cand, &[]);
        assert_eq!(
            v(
                Field::Authors,
                names(&["A. Wehrens", "J. Kruisselbrink"]),
                c(Field::Authors, names(&["Ron Wehrens"]))
            ),
            Verdict::Agree
        );
        assert_eq!(
            v(
                Field::Authors,
                names(&["A Wehrens", "B Smith"]),
                c(Field::Authors, names(&["Ron Wehrens", "Cy Jones"]))
            ),
            Verdict::Neutral
        );
        assert_eq!(
            v(
                Field::Publisher,
                text("Springer-Verlag"),
                c(Field::Publisher, text("Springer"))
            ),
            Verdict::Agree
        );
        assert_eq!(
            v(
                Field::Publisher,
                text("Harrow & Finch"),
                c(Field::Publisher, text("Northgate Press"))
            ),
            Verdict::Disagree
        );
        assert_eq!(
            v(
                Field::Isbn,
                text("9781915862402"),
                c(Field::Isbn, text("9781915862419"))
            ),
            Verdict::Neutral
        );
    }
}
