//! Merges candidates from every source (page text of front and back
//! matter, OCR, vision answers, the existing Info dictionary) into one
//! [`Decision`].
//!
//! Per field, candidates that say the same thing are clustered (titles by
//! token overlap, authors by their set of surnames, identifiers by their
//! normalised value). A cluster is worth its best candidate's score plus a
//! bonus for each further source (another page, another `Via`) that agrees,
//! so a title printed on the half-title, the title page and in the Info
//! dictionary beats a lone heading. The best cluster wins if it reaches the
//! field's minimum score; below that nothing is reported, because a wrong
//! value costs as much as a missing one.
//!
//! The subtitle is not decided on its own: it is the subtitle found with
//! the winning title (same page and source), so title and subtitle always
//! come from one reading of one page.

pub mod catalogue;
pub mod explain;
pub mod features;
pub mod ranker;

use crate::extract::layout::{fold, token_f1, tokens};
use crate::model::{Candidate, Decision, Field, Metadata, PageText, Ranked, Value, Via};
use features::{PageContext, Standing};

/// Bump when the merge rules or the features change (new weights change
/// [`DECIDE_KEY`] by themselves).
pub const DECIDE_VERSION: u32 = 7;

/// What a cached decision depends on: [`DECIDE_VERSION`] and the checksum
/// the trainer writes with the weights.
pub const DECIDE_KEY: u32 = DECIDE_VERSION.wrapping_mul(0x9E37_79B1) ^ ranker::MODEL_ID;

/// Below this cluster score a field without trained weights is left empty.
pub const MIN_SCORE: f32 = 0.3;

/// Each agreeing candidate from another source adds this share of its own
/// score, up to [`MAX_BONUS`] in all.
const AGREEMENT_SHARE: f32 = 0.5;
const MAX_BONUS: f32 = 0.35;

/// Title candidates closer than this (token F1) say the same thing.
const TITLE_AGREEMENT: f32 = 0.85;

/// Picks one value per field from all candidates, without the pages they
/// were read from (position features unknown).
pub fn decide(candidates: &[Candidate]) -> Decision {
    decide_in(candidates, &PageContext::new(&[], 0))
}

/// Picks one value per field from all candidates read from `pages`.
pub fn decide_pages(candidates: &[Candidate], pages: &[PageText], page_count: u32) -> Decision {
    decide_in(candidates, &PageContext::new(pages, page_count))
}

/// Per field: cluster the candidates, rank the clusters (by the learned
/// ranker where the field has weights, else by the rule score), keep every
/// cluster in `ranked` for explanation, and report the winner with its
/// probability in `confidence`. Thresholding by `MIN_CONFIDENCE` is the
/// record's business, so one cached decision serves every threshold.
fn decide_in(candidates: &[Candidate], ctx: &PageContext) -> Decision {
    let mut d = Decision::default();
    let person_names: Vec<String> = candidates
        .iter()
        .filter_map(|c| match &c.value {
            Value::Names(n) if c.field == Field::Authors => Some(n.iter().map(|x| fold(x))),
            _ => None,
        })
        .flatten()
        .collect();

    for field in Field::ALL {
        if field == Field::Subtitle {
            continue;
        }
        let mut cands: Vec<&Candidate> = candidates.iter().filter(|c| c.field == field).collect();
        if field == Field::Title {
            // A "title" that is an author's name (a common Info mistake) is not one.
            cands.retain(|c| match &c.value {
                Value::Text(t) => !person_names.contains(&fold(t)),
                _ => true,
            });
        }
        if cands.is_empty() {
            continue;
        }
        let full: Vec<String> = cands.iter().map(|c| full_title(c, candidates)).collect();
        let order = sorted_by_score(&cands);
        let clusters = cluster(field, &cands, &full, &order);
        let ranked = rank(field, &cands, clusters, candidates, ctx);
        let Some(best) = ranked.first() else {
            continue;
        };
        let (members, score, probability) = (best.0.clone(), best.1, best.2);
        d.ranked.extend(ranked.iter().map(|(m, score, p, f)| {
            Ranked {
                field,
                value: cands[m[0]].value.clone(),
                subtitle: (field == Field::Title)
                    .then(|| cluster_subtitle(m, &cands, candidates))
                    .flatten(),
                page: cands[m[0]].page,
                via: cands[m[0]].via,
                why: cands[m[0]].why.clone(),
                members: m.len() as u32,
                score: *score,
                probability: *p,
                features: f.0.to_vec(),
            }
        }));
        match probability {
            Some(p) => {
                d.confidence.insert(field, p);
            }
            None if score < MIN_SCORE => continue,
            None => {}
        }
        let top = cands[members[0]];
        let value = display_form(top, &members, &cands);
        set(&mut d.metadata, field, &value);
        d.sources.insert(field, (top.page, top.via));
        if field == Field::Title {
            if let Some(sub) = cluster_subtitle_candidate(&members, &cands, candidates) {
                d.metadata.subtitle = Some(text_of(&sub.value).to_string());
                d.sources.insert(Field::Subtitle, (sub.page, sub.via));
                if let Some(p) = probability {
                    d.confidence.insert(Field::Subtitle, p);
                }
            }
        }
    }
    d
}

/// A field's clusters, best first: members, rule score, probability (when
/// the field is trained) and features.
type RankedCluster = (Vec<usize>, f32, Option<f32>, features::Features);

fn rank(
    field: Field,
    cands: &[&Candidate],
    clusters: Vec<Vec<usize>>,
    all: &[Candidate],
    ctx: &PageContext,
) -> Vec<RankedCluster> {
    let scores: Vec<f32> = clusters.iter().map(|m| cluster_score(cands, m)).collect();
    let mut by_rule: Vec<usize> = (0..clusters.len()).collect();
    by_rule.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let n = clusters.len();
    let has_info: Vec<bool> = clusters
        .iter()
        .map(|m| m.iter().any(|&i| cands[i].via == Via::PdfInfo))
        .collect();
    let mut out: Vec<RankedCluster> = clusters
        .into_iter()
        .enumerate()
        .map(|(k, m)| {
            let rank = by_rule.iter().position(|&j| j == k).unwrap_or(0);
            let best_other = by_rule
                .iter()
                .find(|&&j| j != k)
                .map_or(0.0, |&j| scores[j]);
            let standing = Standing {
                rank,
                margin: scores[k] - best_other,
                clusters: n,
                paired_subtitle: field == Field::Title
                    && m.iter().any(|&i| paired_subtitle(cands[i], all).is_some()),
                subtitle: m
                    .iter()
                    .filter(|_| field == Field::Title)
                    .find_map(|&i| paired_subtitle(cands[i], all))
                    .map(|s| text_of(&s.value).to_string()),
                info_elsewhere: has_info.iter().enumerate().any(|(j, &h)| h && j != k),
                other_field: m.iter().any(|&i| reads_as_other_field(cands[i], all)),
            };
            let members: Vec<&Candidate> = m.iter().map(|&i| cands[i]).collect();
            let f = features::of_cluster(&members, &standing, ctx);
            let p = if members.iter().any(|c| c.via.is_trained_source()) {
                ranker::probability(field, &f)
            } else {
                ranker::unmeasured_probability(field)
            };
            let p = if unconfirmed_info(field, &members, ctx) {
                p.map(|_| 0.0)
            } else {
                p
            };
            (m, scores[k], p, f)
        })
        .collect();
    // Stable: on equal probability (or score) the rule order decides.
    out.sort_by(|a, b| {
        let key = |c: &RankedCluster| c.2.unwrap_or(c.1);
        key(b).total_cmp(&key(a)).then(b.1.total_cmp(&a.1))
    });
    out
}

/// Whether a title or author cluster is the Info dictionary's alone and
/// no page read prints it: such a value is never sure and never beats a
/// printed one (probability 0). Real libraries' Info titles are often a
/// file name, a proof slug, a template leftover or another document's
/// title (issue 35), and nothing but the page can tell those from the
/// real title; the ranker is trained without these clusters.
fn unconfirmed_info(field: Field, members: &[&Candidate], ctx: &PageContext) -> bool {
    matches!(field, Field::Title | Field::Authors)
        && members.iter().all(|c| c.via == Via::PdfInfo)
        && !members.iter().any(|c| ctx.prints(&c.value))
}

/// Whether a title candidate is also read as an author's name, or an
/// author as the title: the same line cannot be both.
fn reads_as_other_field(c: &Candidate, all: &[Candidate]) -> bool {
    let texts = |v: &Value| -> Vec<String> {
        match v {
            Value::Text(t) => vec![fold(t)],
            Value::Names(n) => n.iter().map(|x| fold(x)).collect(),
            Value::Number(_) => Vec::new(),
        }
    };
    let other = match c.field {
        Field::Title => Field::Authors,
        Field::Authors => Field::Title,
        _ => return false,
    };
    let mine = texts(&c.value);
    all.iter().filter(|o| o.field == other).any(|o| {
        texts(&o.value)
            .iter()
            .any(|t| !t.is_empty() && mine.contains(t))
    })
}

/// The subtitle reported with a title cluster: the first member's paired
/// subtitle that the title does not already contain.
fn cluster_subtitle_candidate<'a>(
    members: &[usize],
    cands: &[&Candidate],
    all: &'a [Candidate],
) -> Option<&'a Candidate> {
    let title = text_of(&cands[members[0]].value);
    members
        .iter()
        .filter_map(|&i| paired_subtitle(cands[i], all))
        .find(|s| !subsumed(s, title))
}

fn cluster_subtitle(members: &[usize], cands: &[&Candidate], all: &[Candidate]) -> Option<String> {
    cluster_subtitle_candidate(members, cands, all).map(|s| text_of(&s.value).to_string())
}

/// The leader's value, except that a title set in capitals is reported in
/// the mixed case another agreeing source gives it (Info, vision, a CIP
/// line), when the words are the same.
fn display_form(top: &Candidate, members: &[usize], cands: &[&Candidate]) -> Value {
    if let Value::Text(t) = &top.value
        && is_all_caps(t)
    {
        for &i in &members[1..] {
            if let Value::Text(o) = &cands[i].value
                && !is_all_caps(o)
                && o.chars().any(char::is_uppercase)
                && fold(o) == fold(t)
            {
                return Value::Text(o.clone());
            }
        }
    }
    top.value.clone()
}

fn is_all_caps(s: &str) -> bool {
    s.chars().filter(|c| c.is_alphabetic()).count() > 3 && !s.chars().any(char::is_lowercase)
}

fn sorted_by_score(cands: &[&Candidate]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cands.len()).collect();
    // Stable: on equal scores the earlier candidate (front pages first) wins.
    order.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score));
    order
}

/// Greedy clustering in score order: each candidate joins the first
/// cluster whose leader it agrees with. Leaders are the best of their
/// cluster, so `members[0]` is the value reported.
fn cluster(
    field: Field,
    cands: &[&Candidate],
    full: &[String],
    order: &[usize],
) -> Vec<Vec<usize>> {
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for &i in order {
        let home = clusters
            .iter()
            .position(|m| agree(field, cands[m[0]], cands[i], &full[m[0]], &full[i]));
        match home {
            Some(k) => clusters[k].push(i),
            None => clusters.push(vec![i]),
        }
    }
    clusters
}

/// The leader's score plus a share of each agreeing candidate from a source
/// not yet counted (a page of the text, OCR, vision, Info).
fn cluster_score(cands: &[&Candidate], members: &[usize]) -> f32 {
    let lead = cands[members[0]];
    let mut seen: Vec<(Option<u32>, Via)> = vec![(lead.page, lead.via)];
    let mut bonus = 0.0;
    for &i in &members[1..] {
        let c = cands[i];
        if seen.contains(&(c.page, c.via)) {
            continue;
        }
        seen.push((c.page, c.via));
        bonus += AGREEMENT_SHARE * c.score;
    }
    lead.score + bonus.min(MAX_BONUS)
}

/// Whether two candidates of one field say the same thing.
fn agree(field: Field, a: &Candidate, b: &Candidate, full_a: &str, full_b: &str) -> bool {
    match (&a.value, &b.value) {
        (Value::Text(x), Value::Text(y)) => match field {
            Field::Title | Field::Subtitle | Field::Publisher => {
                let pairs = [
                    (x.as_str(), y.as_str()),
                    (full_a, y),
                    (x, full_b),
                    (full_a, full_b),
                ];
                pairs.iter().any(|(p, q)| token_f1(p, q) >= TITLE_AGREEMENT)
            }
            _ => key(x) == key(y),
        },
        (Value::Names(x), Value::Names(y)) => {
            let (sx, sy) = (surnames(x), surnames(y));
            !sx.is_empty() && sx == sy
        }
        (Value::Number(x), Value::Number(y)) => x == y,
        _ => false,
    }
}

/// Identifiers and short values compare by their letters and digits only.
fn key(s: &str) -> String {
    fold(s).replace(' ', "")
}

/// Folded surnames, sorted: the last word of "First Last", the whole name
/// for CJK names.
fn surnames(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .filter_map(|n| {
            let t = tokens(n);
            if n.chars().any(crate::extract::layout::is_cjk) {
                Some(t.concat())
            } else {
                t.last().cloned()
            }
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The subtitle emitted together with a title candidate (same page, source
/// and score; for vision and Info, the best subtitle of that source).
fn paired_subtitle<'a>(title: &Candidate, all: &'a [Candidate]) -> Option<&'a Candidate> {
    let same_source =
        |s: &&Candidate| s.field == Field::Subtitle && s.page == title.page && s.via == title.via;
    if let Some(s) = all
        .iter()
        .filter(same_source)
        .find(|s| s.score == title.score)
    {
        return Some(s);
    }
    // A vision answer or the Info dictionary gives one title and one
    // subtitle per source, scored apart; on a page of text several title
    // candidates each bring their own subtitle, so only the exact pair counts.
    if matches!(title.via, Via::Vision | Via::PdfInfo) {
        return all
            .iter()
            .filter(same_source)
            .max_by(|a, b| a.score.total_cmp(&b.score));
    }
    None
}

/// A title candidate with its paired subtitle appended, for comparing with
/// sources that print both as one string ("Title: Subtitle").
fn full_title(c: &Candidate, all: &[Candidate]) -> String {
    let t = text_of(&c.value).to_string();
    match paired_subtitle(c, all) {
        Some(s) if c.field == Field::Title => format!("{t} {}", text_of(&s.value)),
        _ => t,
    }
}

/// The subtitle's words are all in the title already.
fn subsumed(sub: &Candidate, title: &str) -> bool {
    let t = tokens(title);
    let s = tokens(text_of(&sub.value));
    s.iter().all(|w| t.contains(w))
}

fn text_of(v: &Value) -> &str {
    match v {
        Value::Text(t) => t,
        _ => "",
    }
}

/// The decided metadata split by `MIN_CONFIDENCE`: the values whose
/// probability reaches `min` (or whose field has no trained weights), and
/// the unsure rest, which is shown as such but never proposed or written.
pub fn split_by_confidence(d: &Decision, min: f32) -> (Metadata, Metadata) {
    let mut sure = d.metadata.clone();
    let mut unsure = Metadata::default();
    for (field, p) in &d.confidence {
        if *p < min {
            move_field(&mut sure, &mut unsure, *field);
        }
    }
    (sure, unsure)
}

/// Moves one field's value from `from` to `to` (leaving `from` without it).
pub fn move_field(from: &mut Metadata, to: &mut Metadata, field: Field) {
    match field {
        Field::Title => to.title = from.title.take(),
        Field::Subtitle => to.subtitle = from.subtitle.take(),
        Field::Authors => to.authors = std::mem::take(&mut from.authors),
        Field::Publisher => to.publisher = from.publisher.take(),
        Field::Year => to.year = from.year.take(),
        Field::Edition => to.edition = from.edition.take(),
        Field::Isbn => to.isbn = from.isbn.take(),
        Field::Doi => to.doi = from.doi.take(),
        Field::Loc => to.loc = from.loc.take(),
    }
}

fn set(m: &mut Metadata, field: Field, v: &Value) {
    match (field, v) {
        (Field::Title, Value::Text(t)) => m.title = Some(t.clone()),
        (Field::Subtitle, Value::Text(t)) => m.subtitle = Some(t.clone()),
        (Field::Authors, Value::Names(n)) => m.authors = n.clone(),
        (Field::Publisher, Value::Text(t)) => m.publisher = Some(t.clone()),
        (Field::Year, Value::Number(y)) => m.year = Some(*y),
        (Field::Edition, Value::Text(t)) => m.edition = Some(t.clone()),
        (Field::Isbn, Value::Text(t)) => m.isbn = Some(t.clone()),
        (Field::Doi, Value::Text(t)) => m.doi = Some(t.clone()),
        (Field::Loc, Value::Text(t)) => m.loc = Some(t.clone()),
        // A value of the wrong shape for its field: a finder bug, ignored.
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(field: Field, value: Value, score: f32, page: Option<u32>, via: Via) -> Candidate {
        Candidate {
            field,
            value,
            score,
            page,
            via,
            why: String::new(),
        }
    }
    fn title(t: &str, score: f32, page: u32) -> Candidate {
        cand(
            Field::Title,
            Value::Text(t.into()),
            score,
            Some(page),
            Via::Text,
        )
    }
    fn names(n: &[&str], score: f32, page: Option<u32>, via: Via) -> Candidate {
        cand(
            Field::Authors,
            Value::Names(n.iter().map(|s| s.to_string()).collect()),
            score,
            page,
            via,
        )
    }

    #[test]
    fn a_value_only_vision_gives_sits_at_the_default_threshold() {
        let min = ranker::DEFAULT_MIN_CONFIDENCE;
        let vision = names(&["Ilse Marwede"], 0.6, Some(0), Via::Vision);
        let d = decide(std::slice::from_ref(&vision));
        assert_eq!(d.confidence[&Field::Authors], min);
        let (sure, _) = split_by_confidence(&d, min);
        assert_eq!(sure.authors, vec!["Ilse Marwede"]);
        // Asking for more than the default leaves it unsure.
        let (sure, unsure) = split_by_confidence(&d, (min + 0.01).min(1.0));
        assert!(sure.authors.is_empty());
        assert_eq!(unsure.authors, vec!["Ilse Marwede"]);
        // Once the page text says the same, the ranker judges the cluster.
        let text = names(&["Ilse Marwede"], 0.6, Some(0), Via::Text);
        let d = decide(&[vision, text]);
        let top = &d.ranked[0];
        let f = features::Features(top.features.clone().try_into().unwrap());
        assert_eq!(top.probability, ranker::probability(Field::Authors, &f));
        assert_eq!(d.confidence.get(&Field::Authors), top.probability.as_ref());
    }

    #[test]
    fn agreement_across_pages_beats_a_lone_stronger_candidate() {
        let c = vec![
            title("Catalogue of Things", 0.6, 2),
            title("The Ledger and the Lantern", 0.45, 0),
            title("The ledger and the lantern", 0.5, 4),
            cand(
                Field::Title,
                Value::Text("The Ledger and the Lantern".into()),
                0.35,
                None,
                Via::PdfInfo,
            ),
        ];
        let d = decide(&c);
        assert_eq!(
            d.metadata.title.as_deref(),
            Some("The ledger and the lantern")
        );
        assert_eq!(d.sources[&Field::Title], (Some(4), Via::Text));
    }

    #[test]
    fn subtitle_comes_with_its_title() {
        let c = vec![
            title("Upland Pastures", 0.8, 1),
            cand(
                Field::Subtitle,
                Value::Text("Grazing, Tenure and Common Rights".into()),
                0.8,
                Some(1),
                Via::Text,
            ),
            title("Upland Pastures", 0.45, 0),
            cand(
                Field::Subtitle,
                Value::Text("Something Else".into()),
                0.3,
                Some(7),
                Via::Text,
            ),
        ];
        let d = decide(&c);
        assert_eq!(d.metadata.title.as_deref(), Some("Upland Pastures"));
        assert_eq!(
            d.metadata.subtitle.as_deref(),
            Some("Grazing, Tenure and Common Rights")
        );
        assert_eq!(d.sources[&Field::Subtitle], (Some(1), Via::Text));
    }

    #[test]
    fn weak_lone_candidates_are_unsure_and_agreement_raises_the_probability() {
        let min = ranker::DEFAULT_MIN_CONFIDENCE;
        let c = vec![
            title("One", 0.2, 3),
            names(&["Liisa Harjunen"], 0.25, Some(16), Via::Text),
        ];
        let d = decide(&c);
        let (sure, unsure) = split_by_confidence(&d, min);
        assert_eq!(sure, Metadata::default(), "{:?}", d.confidence);
        assert_eq!(unsure.title.as_deref(), Some("One"));
        assert_eq!(unsure.authors, vec!["Liisa Harjunen"]);
        let lone = d.confidence[&Field::Authors];
        // Two weak witnesses on different pages that agree are worth more.
        let c = vec![
            names(&["Liisa Harjunen"], 0.25, Some(16), Via::Text),
            names(&["Liisa Harjunen"], 0.25, Some(1), Via::Text),
        ];
        let d = decide(&c);
        assert_eq!(d.metadata.authors, vec!["Liisa Harjunen"]);
        assert!(d.confidence[&Field::Authors] > lone, "{:?}", d.confidence);
        // Nothing sure: nothing to name the file by.
        assert!(!split_by_confidence(&d, 1.0).0.is_complete());
    }

    #[test]
    fn info_title_that_is_the_author_is_dropped() {
        let c = vec![
            cand(
                Field::Title,
                Value::Text("Cornelius P. Hart".into()),
                0.35,
                None,
                Via::PdfInfo,
            ),
            title("Foundations of Numerical Geometry", 0.3, 0),
            names(&["Cornelius P. Hart"], 0.7, Some(0), Via::Text),
        ];
        let d = decide(&c);
        assert_eq!(
            d.metadata.title.as_deref(),
            Some("Foundations of Numerical Geometry")
        );
        assert!(d.metadata.is_complete());
    }

    #[test]
    fn authors_agree_by_surnames_and_generic_fields_by_value() {
        let c = vec![
            names(&["K. J. Farrow", "P. L. Jones"], 0.6, Some(0), Via::Text),
            names(&["Kevin Farrow", "Peter Jones"], 0.3, None, Via::PdfInfo),
            names(&["T. Marwick", "S. Pohatu"], 0.7, Some(1), Via::Text),
            cand(
                Field::Isbn,
                Value::Text("9781914673405".into()),
                0.5,
                Some(4),
                Via::Text,
            ),
            cand(
                Field::Isbn,
                Value::Text("9781914673412".into()),
                0.45,
                Some(4),
                Via::Text,
            ),
            cand(
                Field::Isbn,
                Value::Text("9781914673412".into()),
                0.45,
                Some(15),
                Via::Ocr,
            ),
            cand(Field::Year, Value::Number(2022), 0.2, Some(4), Via::Text),
        ];
        let d = decide(&c);
        // The Info list with full given names agrees with the page's
        // initials: one cluster of two, whichever list the ranker prefers.
        let farrow = d
            .ranked
            .iter()
            .find(|r| r.value == Value::Names(vec!["K. J. Farrow".into(), "P. L. Jones".into()]))
            .expect("the page's list is ranked");
        assert_eq!(farrow.members, 2);
        assert_eq!(
            farrow.features[features::NAMES
                .iter()
                .position(|n| *n == "info_agrees")
                .unwrap()],
            1.0
        );
        assert_eq!(d.metadata.isbn.as_deref(), Some("9781914673412"));
    }

    #[test]
    fn vision_title_brings_its_subtitle_and_agrees_with_text() {
        let c = vec![
            title("An Introduction to Q", 0.5, 0),
            cand(
                Field::Title,
                Value::Text("An Introduction to Q".into()),
                0.6,
                Some(0),
                Via::Vision,
            ),
            cand(
                Field::Subtitle,
                Value::Text("Notes on Q: A Computing Environment".into()),
                0.45,
                Some(0),
                Via::Vision,
            ),
            // A second heading on the same text page brings its own subtitle.
            title("Appendix", 0.2, 0),
            cand(
                Field::Subtitle,
                Value::Text("Sample session".into()),
                0.2,
                Some(0),
                Via::Text,
            ),
        ];
        let d = decide(&c);
        assert_eq!(d.sources[&Field::Title], (Some(0), Via::Vision));
        assert_eq!(
            d.metadata.subtitle.as_deref(),
            Some("Notes on Q: A Computing Environment")
        );
    }

    fn info(field: Field, value: Value) -> Candidate {
        cand(field, value, 0.35, None, Via::PdfInfo)
    }

    #[test]
    fn an_info_title_no_page_prints_is_never_sure_and_never_beats_the_page() {
        use crate::extract::layout::testutil::page;
        let pages = [page(
            0,
            &[
                ("Brackish Margins", 22.0, 120.0),
                ("Salt, Reed and the Estuary Farmers", 14.0, 160.0),
                ("Oriel Fenwick-Tamsin", 12.0, 220.0),
            ],
        )];
        // Junk left in the Info dictionary: a proof slug, a file name's
        // words, another book's title, an abbreviation of this one.
        for junk in [
            "OP-KLM417 2213..2219",
            "brackish_margins_final_v3",
            "A Gazetteer of Closed Ferry Landings",
            "Brack Marg Est Farm 2e",
        ] {
            let c = vec![
                info(Field::Title, Value::Text(junk.into())),
                // A weak page candidate: the lone Info value outscores it by rule.
                title("Brackish Margins", 0.2, 0),
            ];
            let d = decide_pages(&c, &pages, 1);
            assert_eq!(
                d.metadata.title.as_deref(),
                Some("Brackish Margins"),
                "{junk}"
            );
            let junk_ranked = d
                .ranked
                .iter()
                .find(|r| r.value == Value::Text(junk.into()))
                .unwrap();
            assert_eq!(junk_ranked.probability, Some(0.0), "{junk}");
            // Alone, it is still shown, but never sure at any threshold above 0.
            let d = decide_pages(&c[..1], &pages, 1);
            let (sure, unsure) = split_by_confidence(&d, 0.01);
            assert_eq!(sure.title, None, "{junk}");
            assert_eq!(unsure.title.as_deref(), Some(junk));
        }
        // The same Info title printed on the page keeps its probability.
        let printed = info(
            Field::Title,
            Value::Text("Brackish Margins: Salt, Reed and the Estuary Farmers".into()),
        );
        let d = decide_pages(std::slice::from_ref(&printed), &pages, 1);
        let f = features::Features(d.ranked[0].features.clone().try_into().unwrap());
        assert_eq!(
            d.ranked[0].probability,
            ranker::probability(Field::Title, &f)
        );
        let at = |name: &str| features::NAMES.iter().position(|n| *n == name).unwrap();
        assert_eq!(f.0[at("info_printed")], 1.0);
        assert_eq!(f.0[at("info_only")], 1.0);
        // Info authors: printed surnames are confirmed, a login's are not.
        let authors = info(
            Field::Authors,
            Value::Names(vec!["O. Fenwick-Tamsin".into()]),
        );
        let d = decide_pages(std::slice::from_ref(&authors), &pages, 1);
        assert_ne!(d.confidence[&Field::Authors], 0.0);
        let login = info(Field::Authors, Value::Names(vec!["Marek Dolny".into()]));
        let d = decide_pages(std::slice::from_ref(&login), &pages, 1);
        assert_eq!(d.confidence[&Field::Authors], 0.0);
    }

    #[test]
    fn a_printed_info_title_is_found_across_lines_and_letter_spacing() {
        use crate::extract::layout::testutil::page;
        let ctx_pages = [page(
            2,
            &[
                ("Series in Applied Hydrology 7", 9.0, 60.0),
                ("Groundwater Dev elopment in", 20.0, 140.0),
                ("Karst Aquifers", 20.0, 170.0),
            ],
        )];
        let ctx = PageContext::new(&ctx_pages, 10);
        let text = |t: &str| Value::Text(t.into());
        assert!(ctx.prints(&text("Groundwater Development in Karst Aquifers")));
        // Most of a long title's words close together: a page that drops one.
        assert!(ctx.prints(&text("Groundwater Development in Karst Aquifers, Applied")));
        assert!(!ctx.prints(&text("Groundwater Modelling in Karst")));
        assert!(!ctx.prints(&text("GWD Karst Aq")));
        // Printed words near each other count, but not as a slug of them.
        assert!(ctx.prints(&text("Applied Hydrology Groundwater")));
        assert!(!ctx.prints(&text("applied_hydrology_groundwater")));
        assert!(!ctx.prints(&text("applied-hydrology-groundwater")));
        assert!(ctx.prints(&text("Karst-Aquifers")));
        // Short titles are matched word for word, not inside longer words.
        assert!(ctx.prints(&text("Karst")));
        assert!(!ctx.prints(&text("Arst")));
        assert!(!PageContext::new(&[], 0).prints(&text("Karst Aquifers")));
    }

    #[test]
    fn capitals_title_takes_mixed_case_from_an_agreeing_source() {
        let c = vec![
            title("THE SILENT HARBOUR", 0.8, 2),
            cand(
                Field::Title,
                Value::Text("The Silent Harbour".into()),
                0.35,
                None,
                Via::PdfInfo,
            ),
        ];
        let d = decide(&c);
        assert_eq!(d.metadata.title.as_deref(), Some("The Silent Harbour"));
        assert_eq!(d.sources[&Field::Title], (Some(2), Via::Text));
    }
}
