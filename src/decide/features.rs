//! Named numeric features of a cluster of agreeing candidates: what the
//! learned ranker ([`super::ranker`]) turns into a probability.
//!
//! Features describe the evidence, never a document: the finder's own
//! score, how many independent sources agree, where the value sits on the
//! page (font size against the body text, height on the page, page index),
//! and the shape of the value (words, capitals, digits, names). They are
//! scaled to roughly 0..=1 here, so the trained weights read directly.

use crate::extract::layout::tokens;
use crate::extract::names::opens_with_given_name;
use crate::model::{Candidate, PageText, TextLine, Value, Via};

/// The feature names, in the order of [`Features::values`] and of the
/// weights in `weights.rs`. Append only: the trainer reads them by name.
pub const NAMES: [&str; 39] = [
    "rule_score",
    "agree_sources",
    "info_agrees",
    "info_only",
    "text_member",
    "ocr_lead",
    "vision_member",
    "page_pos",
    "back_matter",
    "rank",
    "margin",
    "size_ratio",
    "top_frac",
    "located",
    "bold",
    "words",
    "upper_frac",
    "digit_frac",
    "cap_words",
    "has_colon",
    "names",
    "name_words",
    "year_age",
    "clusters",
    "subtitle_paired",
    "size_rank",
    "doc_size_frac",
    "kind_copyright",
    "kind_date",
    "month_word",
    "info_elsewhere",
    "page_lines",
    "line_index",
    "line_share",
    "other_field",
    // Appended for issue 35 (trainer's branch): a member from the Info
    // dictionary whose value is printed on a page read.
    "info_printed",
    // Appended for issue 35 (paper headers): the share of an author list's
    // names that open with a known given name or an initial.
    "given_share",
    // Appended for issue 35: the lines just under and just over the
    // value's lines (a title cut to its largest line of a mixed-size block).
    "next_size",
    "prev_size",
];

pub const COUNT: usize = NAMES.len();

/// One cluster's features, in [`NAMES`] order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features(pub [f32; COUNT]);

/// What the features are computed against: the pages read and the size
/// of the body text (the most common line size, by characters).
pub struct PageContext<'a> {
    pub pages: &'a [PageText],
    pub page_count: u32,
    body_size: f32,
    /// The largest line size on the pages read.
    max_size: f32,
}

impl<'a> PageContext<'a> {
    pub fn new(pages: &'a [PageText], page_count: u32) -> PageContext<'a> {
        PageContext {
            pages,
            page_count,
            body_size: body_size(pages),
            max_size: pages
                .iter()
                .flat_map(|p| &p.lines)
                .map(|l| l.size)
                .fold(1.0, f32::max),
        }
    }

    /// The line a text value was read from: the first line on its page
    /// whose words start the value (or that the value starts).
    fn locate(&self, page: u32, value: &str) -> Option<(&PageText, usize)> {
        let p = self.pages.iter().find(|p| p.index == page)?;
        let want = tokens(value);
        let head = &want[..want.len().min(3)];
        if head.is_empty() {
            return None;
        }
        let i = p.lines.iter().position(|l| {
            let have = tokens(&l.text);
            !have.is_empty()
                && (have.starts_with(head) || head.starts_with(&have[..have.len().min(head.len())]))
        })?;
        Some((p, i))
    }
}

impl PageContext<'_> {
    /// Whether a value (from the Info dictionary, which has no page) is
    /// printed on one of the pages read: a title whose letters and digits
    /// run unbroken through a page's text (so a word split by letter
    /// spacing or a line break still counts), or most of whose words stand
    /// close together on one page; names whose surnames are all there.
    /// What tells an Info title the page confirms from a file name, a
    /// proof slug or another document's title left in the Info dictionary.
    pub fn prints(&self, value: &Value) -> bool {
        match value {
            Value::Text(t) => self.pages.iter().any(|p| page_prints_text(p, t)),
            Value::Names(names) => {
                let surnames: Vec<String> = names.iter().filter_map(|n| tokens(n).pop()).collect();
                !surnames.is_empty()
                    && surnames.iter().all(|s| {
                        self.pages
                            .iter()
                            .any(|p| p.lines.iter().any(|l| tokens(&l.text).contains(s)))
                    })
            }
            Value::Number(_) => false,
        }
    }
}

/// See [`PageContext::prints`]: below this many letters and digits a
/// title must be found word for word, as any short run of letters occurs
/// inside longer words.
const PRINTED_MIN_COMPACT: usize = 6;
/// The share of a title's distinct words that must stand together on a
/// page (within half as many words again as the title has).
const PRINTED_WORD_SHARE: f32 = 0.8;

fn page_prints_text(page: &PageText, title: &str) -> bool {
    let want = tokens(title);
    if want.is_empty() {
        return false;
    }
    let text: String = page
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let compact = |s: &str| tokens(s).concat();
    let title_compact = want.concat();
    if title_compact.chars().count() >= PRINTED_MIN_COMPACT
        && compact(&text).contains(&title_compact)
    {
        return true;
    }
    // A title of several words without a space ("context-2017-tables",
    // "intro_env_chem") is a file name or a slug: only the same run of
    // letters on the page prints it, not its words scattered near each other.
    if want.len() > 1 && !title.trim().contains(char::is_whitespace) {
        return false;
    }
    let have = tokens(&text);
    let mut distinct = want.clone();
    distinct.sort();
    distinct.dedup();
    let need = if distinct.len() <= 2 {
        distinct.len()
    } else {
        (distinct.len() as f32 * PRINTED_WORD_SHARE).ceil() as usize
    };
    let span = (want.len() * 3).div_ceil(2).max(want.len() + 2);
    (0..have.len()).any(|i| {
        distinct.contains(&have[i]) && {
            let window = &have[i..(i + span).min(have.len())];
            distinct.iter().filter(|w| window.contains(w)).count() >= need
        }
    })
}

/// The most common font size over the pages' characters.
fn body_size(pages: &[PageText]) -> f32 {
    let mut by_size: Vec<(i32, usize)> = Vec::new();
    for l in pages.iter().flat_map(|p| &p.lines) {
        let key = (l.size * 2.0).round() as i32;
        let n = l.text.chars().count();
        match by_size.iter_mut().find(|(k, _)| *k == key) {
            Some((_, c)) => *c += n,
            None => by_size.push((key, n)),
        }
    }
    by_size
        .iter()
        .max_by_key(|(_, n)| *n)
        .map_or(10.0, |(k, _)| (*k as f32 / 2.0).max(1.0))
}

/// Month names (English, German, French), folded: in an author list they
/// betray a date line read as a name ("Released October").
const MONTHS: [&str; 30] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "januar",
    "februar",
    "marz",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "janvier",
    "fevrier",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "aout",
    "septembre",
    "octobre",
    "novembre",
];

/// Where a cluster stands among the field's clusters.
pub struct Standing {
    /// 0 for the cluster whose leader has the best finder score.
    pub rank: usize,
    /// The leader's score minus the best other leader's score.
    pub margin: f32,
    pub clusters: usize,
    /// A title cluster whose candidates came with a subtitle.
    pub paired_subtitle: bool,
    /// That subtitle's text (of the first member with one): the line
    /// that sets it under the title does not continue the title.
    pub subtitle: Option<String>,
    /// Another cluster of the field holds the document's Info value.
    pub info_elsewhere: bool,
    /// A member is also read as another field (a title that is an
    /// author's name).
    pub other_field: bool,
}

/// The features of one cluster (`members[0]` is its leader).
pub fn of_cluster(members: &[&Candidate], standing: &Standing, ctx: &PageContext) -> Features {
    let lead = members[0];
    let mut sources: Vec<(Option<u32>, Via)> = Vec::new();
    for c in members {
        if !sources.contains(&(c.page, c.via)) {
            sources.push((c.page, c.via));
        }
    }
    let any = |v: Via| members.iter().any(|c| c.via == v);
    let first_page = members.iter().filter_map(|c| c.page).min();
    let text = match &lead.value {
        Value::Text(t) => t.clone(),
        Value::Names(n) => n.join(" "),
        Value::Number(n) => n.to_string(),
    };
    let at = Placement::of(lead, &text, standing.subtitle.as_deref(), ctx);
    let w = Wording::of(&lead.value, &text);
    let b = |x: bool| f32::from(u8::from(x));
    Features([
        lead.score.clamp(-1.0, 2.0),
        ((sources.len() - 1) as f32 / 4.0).min(1.0),
        b(any(Via::PdfInfo)),
        b(members.iter().all(|c| c.via == Via::PdfInfo)),
        b(any(Via::Text)),
        b(lead.via == Via::Ocr),
        b(any(Via::Vision)),
        first_page.map_or(1.0, |p| (p as f32 / 8.0).min(1.0)),
        b(first_page.is_some_and(|p| ctx.page_count > 4 && p >= ctx.page_count / 2)),
        (standing.rank as f32 / 3.0).min(1.0),
        standing.margin.clamp(-1.0, 1.0),
        at.size_ratio,
        at.top_frac,
        b(at.located),
        at.bold,
        w.words,
        w.upper,
        w.digits,
        w.cap_words,
        b(text.contains(':')),
        w.names,
        w.name_words,
        w.year_age,
        ((1.0 + standing.clusters as f32).ln() / 3.0).min(1.0),
        b(standing.paired_subtitle),
        at.size_rank,
        at.doc_size_frac,
        b(members.iter().any(|c| c.why.contains("copyright"))),
        b(members.iter().any(|c| c.why.contains("date"))),
        b(tokens(&text).iter().any(|t| MONTHS.contains(&t.as_str()))),
        b(standing.info_elsewhere),
        at.page_lines,
        at.line_index,
        at.line_share,
        b(standing.other_field),
        b(members
            .iter()
            .any(|c| c.via == Via::PdfInfo && ctx.prints(&c.value))),
        w.given_share,
        at.next_size,
        at.prev_size,
    ])
}

/// Where the lead value stands on its page, when a page read prints it:
/// the line that holds it, its size against the body text and the page's
/// other sizes, its height. Neutral values when no page prints it.
struct Placement {
    located: bool,
    page_lines: f32,
    line_index: f32,
    line_share: f32,
    size_ratio: f32,
    top_frac: f32,
    bold: f32,
    size_rank: f32,
    doc_size_frac: f32,
    /// The size of the line set right under the value's last line (close
    /// enough to continue it) against the value's own size, scaled by
    /// [`NEIGHBOUR_SCALE`]; 0 when nothing continues it.
    next_size: f32,
    /// The same for the line set right over the value's first line.
    prev_size: f32,
}

/// A neighbour line's size ratio is divided by this (ratios above it are
/// capped), so that the feature reads 0..=1.
const NEIGHBOUR_SCALE: f32 = 2.0;
/// A line continues another when the gap between them is under this many
/// times the other's size.
const NEIGHBOUR_GAP: f32 = 1.2;
/// The lines a value is followed over, at most.
const VALUE_LINES: usize = 6;

impl Placement {
    fn of(lead: &Candidate, text: &str, subtitle: Option<&str>, ctx: &PageContext) -> Placement {
        let Some((p, i)) = lead.page.and_then(|p| ctx.locate(p, text)) else {
            return Placement {
                located: false,
                page_lines: 0.0,
                line_index: 1.0,
                line_share: 0.0,
                size_ratio: 0.0,
                top_frac: 0.5,
                bold: 0.0,
                size_rank: 1.0,
                doc_size_frac: 0.0,
                next_size: 0.0,
                prev_size: 0.0,
            };
        };
        let l = &p.lines[i];
        // How many distinct larger sizes the page has (0: the largest).
        let mut larger: Vec<i32> = p
            .lines
            .iter()
            .filter(|o| o.size > l.size * 1.05)
            .map(|o| (o.size * 2.0).round() as i32)
            .collect();
        larger.sort_unstable();
        larger.dedup();
        Placement {
            located: true,
            page_lines: (p.lines.len() as f32 / 60.0).min(1.0),
            line_index: (i as f32 / 20.0).min(1.0),
            // The value's share of its line: a whole line, or a piece of one.
            line_share: (text.chars().count() as f32 / l.text.chars().count().max(1) as f32)
                .min(2.0)
                / 2.0,
            size_ratio: (l.size / ctx.body_size).clamp(0.0, 4.0) / 4.0,
            top_frac: (l.bbox.top / p.height.max(1.0)).clamp(0.0, 1.0),
            bold: f32::from(u8::from(l.bold)),
            size_rank: (larger.len() as f32 / 3.0).min(1.0),
            doc_size_frac: (l.size / ctx.max_size).clamp(0.0, 1.0),
            next_size: neighbour_size(p, i, text, Some(subtitle)),
            prev_size: neighbour_size(p, i, text, None),
        }
    }
}

/// See [`Placement::next_size`]: the value starts on line `i` of `p`;
/// `below` (with the value's paired subtitle, if any) picks the line after
/// its last line, else (`None`) the one before its first. A neighbour must
/// lie in the value's column (their extents overlap) and close above or
/// below it. A value that stops inside its last line ("Tidewater" of
/// "Tidewater: a harbour atlas") and the line that sets its subtitle have
/// no line continuing them.
fn neighbour_size(p: &PageText, i: usize, text: &str, below: Option<Option<&str>>) -> f32 {
    let want = tokens(text).len();
    let mut last = i;
    let mut seen = tokens(&p.lines[i].text).len();
    while seen < want && last + 1 < p.lines.len() && last + 1 < i + VALUE_LINES {
        last += 1;
        seen += tokens(&p.lines[last].text).len();
    }
    let (edge, other) = match below {
        Some(subtitle) => {
            let next = p.lines.get(last + 1);
            let sets_subtitle = |o: &TextLine| {
                let (have, sub) = (tokens(&o.text), tokens(subtitle.unwrap_or("")));
                let k = have.len().min(sub.len()).min(3);
                k > 0 && have[..k] == sub[..k]
            };
            if seen > want || next.is_some_and(sets_subtitle) {
                return 0.0;
            }
            (&p.lines[last], next)
        }
        None => (&p.lines[i], i.checked_sub(1).map(|k| &p.lines[k])),
    };
    let Some(o) = other else {
        return 0.0;
    };
    let gap = if below.is_some() {
        o.bbox.top - edge.bbox.bottom
    } else {
        edge.bbox.top - o.bbox.bottom
    };
    let overlaps = o.bbox.x0 < edge.bbox.x1 && edge.bbox.x0 < o.bbox.x1;
    if !overlaps || gap < -0.5 * edge.size || gap > NEIGHBOUR_GAP * edge.size.max(o.size) {
        return 0.0;
    }
    (o.size / edge.size.max(0.1)).min(NEIGHBOUR_SCALE) / NEIGHBOUR_SCALE
}

/// What the value's words look like: how many, capitals, digits, names
/// and their length, a year's age.
struct Wording {
    words: f32,
    upper: f32,
    digits: f32,
    cap_words: f32,
    names: f32,
    name_words: f32,
    year_age: f32,
    /// Names opening with a known given name or an initial, as a share
    /// of the list (0 for other values): form labels, headings and
    /// companies read as names seldom do.
    given_share: f32,
}

impl Wording {
    fn of(value: &Value, text: &str) -> Wording {
        let letters = text.chars().filter(|c| c.is_alphabetic()).count().max(1) as f32;
        let chars = text.chars().filter(|c| !c.is_whitespace()).count().max(1) as f32;
        let words: Vec<&str> = text.split_whitespace().collect();
        let cap_words = words
            .iter()
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
            .count() as f32
            / words.len().max(1) as f32;
        let given_share = match value {
            Value::Names(n) if !n.is_empty() => {
                n.iter().filter(|x| opens_with_given_name(x)).count() as f32 / n.len() as f32
            }
            _ => 0.0,
        };
        let (names, name_words) = match value {
            Value::Names(n) => (
                (n.len() as f32 / 5.0).min(1.0),
                n.iter()
                    .map(|x| x.split_whitespace().count())
                    .sum::<usize>() as f32
                    / n.len().max(1) as f32
                    / 4.0,
            ),
            _ => (0.0, 0.0),
        };
        Wording {
            words: ((1.0 + words.len() as f32).ln() / 3.0).min(1.5),
            upper: text.chars().filter(|c| c.is_uppercase()).count() as f32 / letters,
            digits: text.chars().filter(char::is_ascii_digit).count() as f32 / chars,
            cap_words,
            names,
            name_words,
            year_age: match value {
                Value::Number(y) => ((2030 - y) as f32 / 100.0).clamp(0.0, 2.0),
                _ => 0.0,
            },
            given_share,
        }
    }
}

impl Features {
    /// The features by name, for `candidates.json`.
    pub fn named(&self) -> Vec<(&'static str, f32)> {
        NAMES.iter().copied().zip(self.0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::layout::testutil::page;
    use crate::model::Field;

    fn features(value: Value, field: Field, pages: &[PageText]) -> Features {
        features_with(value, field, None, pages)
    }

    fn features_with(
        value: Value,
        field: Field,
        subtitle: Option<&str>,
        pages: &[PageText],
    ) -> Features {
        let c = Candidate {
            field,
            value,
            score: 0.5,
            page: Some(0),
            via: Via::Text,
            why: String::new(),
        };
        let standing = Standing {
            rank: 0,
            margin: 0.0,
            clusters: 1,
            paired_subtitle: subtitle.is_some(),
            subtitle: subtitle.map(str::to_string),
            info_elsewhere: false,
            other_field: false,
        };
        of_cluster(&[&c], &standing, &PageContext::new(pages, 3))
    }

    fn get(f: &Features, name: &str) -> f32 {
        f.0[NAMES.iter().position(|n| *n == name).unwrap()]
    }

    #[test]
    fn a_title_cut_to_its_largest_line_sees_the_line_that_continues_it() {
        // A product name set large over the document's own name, then a
        // byline further down.
        let pages = [page(
            0,
            &[
                ("Tidewater Almanac of", 14.0, 60.0),
                ("LILYPAD", 30.0, 80.0),
                ("Notation Guide", 18.0, 116.0),
                ("Maria Quell", 12.0, 300.0),
            ],
        )];
        let text = |t: &str| Value::Text(t.into());
        let cut = features(text("LILYPAD"), Field::Title, &pages);
        assert!((get(&cut, "next_size") - 0.3).abs() < 1e-3);
        assert!((get(&cut, "prev_size") - 14.0 / 30.0 / 2.0).abs() < 1e-3);
        // The whole block: the byline is too far under it to continue it.
        let whole = features(text("LILYPAD Notation Guide"), Field::Title, &pages);
        assert_eq!(get(&whole, "next_size"), 0.0);
        // A title set with its subtitle on one line, or over the line
        // that sets its subtitle, is not cut.
        let pages_colon = [page(
            0,
            &[
                ("Lilypad: notes on harbour", 20.0, 80.0),
                ("engraving", 20.0, 104.0),
            ],
        )];
        let colon = features(text("Lilypad"), Field::Title, &pages_colon);
        assert_eq!(get(&colon, "next_size"), 0.0);
        let paired = features_with(
            text("LILYPAD"),
            Field::Title,
            Some("Notation Guide"),
            &pages,
        );
        assert_eq!(get(&paired, "next_size"), 0.0);
        let alone = features(text("Maria Quell"), Field::Title, &pages);
        assert_eq!(get(&alone, "next_size"), 0.0);
        assert_eq!(get(&alone, "prev_size"), 0.0);
    }

    #[test]
    fn given_share_counts_names_that_open_with_a_given_name() {
        let pages = [page(0, &[("Maria Quell, Mooring Fee", 12.0, 80.0)])];
        let names = |n: &[&str]| Value::Names(n.iter().map(|s| s.to_string()).collect());
        let f = features(
            names(&["Maria Quell", "Mooring Fee"]),
            Field::Authors,
            &pages,
        );
        assert_eq!(get(&f, "given_share"), 0.5);
        let f = features(names(&["W. Quell", "Ann Orrin"]), Field::Authors, &pages);
        assert_eq!(get(&f, "given_share"), 1.0);
        let f = features(Value::Text("Maria Quell".into()), Field::Title, &pages);
        assert_eq!(get(&f, "given_share"), 0.0);
    }
}
