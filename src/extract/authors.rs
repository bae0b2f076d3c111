//! Finder for `authors` candidates: the people a document is by, as printed.
//!
//! Where names are found, strongest first:
//! - under (or over) the title on the title page, or under a paper's title
//!   before its abstract: a list split on commas, "and", "&", semicolons,
//!   with affiliations, e-mails and footnote marks dropped and "by" /
//!   "edited by" / "(eds.)" / CJK role markers (著, 编著, 主编) removed;
//! - library cataloguing data ("Names: Last, First, author." and the
//!   statement of responsibility after " / " in a CIP title line);
//! - "The right of X to be identified as author", "X, 1967–." headings;
//! - copyright lines that name people ("© 2004 Greg Tillinghast, John
//!   Dorsey"): weak, since the holder is often the publisher;
//! - "Also by X" pages and "About the author" paragraphs: weak.
//!
//! Names come out in "First Last" order; an all-capitals name is set in
//! title case. Credits that are not authorship (photographs, drawings,
//! translation, cover design, 责任编辑) are not names of authors.

use super::layout::{Block, Layout, PageLayout, same_size_within};
use super::lines::{COPYRIGHT, LineKind, classify};
use super::names::{opens_with_given_name, parse_names, person_name};
use super::pattern::Pattern;
use super::text::{fold, is_cjk};
use crate::model::{Candidate, DocText, Field, TextLine, Value};
use std::sync::LazyLock;

/// Every `authors` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&Layout::new(doc))
}

/// [`find`] over a layout already built (`text_candidates` builds one
/// for the title and author finders of a document).
pub fn find_in(layout: &Layout) -> Vec<Candidate> {
    let mut out = Vec::new();
    for pl in &layout.pages {
        title_page_names(layout, pl, &mut out);
        statement_names(pl, &mut out);
    }
    out
}

fn candidate(names: Vec<String>, score: f32, pl: &PageLayout, why: String) -> Candidate {
    Candidate {
        field: Field::Authors,
        value: Value::Names(names),
        score,
        page: Some(pl.page.index),
        via: pl.page.via,
        why,
    }
}

/// Names set as lines of their own near a title: on a display page with a
/// heading, or in the header of a paper (between its title and abstract).
fn title_page_names(layout: &Layout, pl: &PageLayout, out: &mut Vec<Candidate>) {
    let Some((heading, base)) = title_heading(layout, pl) else {
        return;
    };
    let display = pl.is_display();
    let groups = name_groups(layout, pl, heading, display);
    score_groups(groups, heading, base, display, pl, out);
}

/// The block the names are read against and the score of the nearest list
/// under it, or `None` when the page has no title to read names near.
fn title_heading<'p>(layout: &Layout, pl: &'p PageLayout) -> Option<(&'p Block, f32)> {
    // The title: the largest block that could be one (not a masthead or
    // a "TECHNICAL REPORT" label), else the largest block.
    let head = (0..pl.blocks.len())
        .filter(|&i| pl.ranks_as_title(i))
        .max_by(|&a, &b| pl.blocks[a].size.total_cmp(&pl.blocks[b].size))
        .or_else(|| pl.largest_block())?;
    let heading = &pl.blocks[head];
    let front = layout.is_front(pl.page);
    let display = pl.is_display();
    let has_heading = heading.size >= layout.body_size * 1.2;
    if display || has_heading && heading.top < pl.page.height * 0.45 {
        let base = match (front, display, has_heading) {
            (true, _, true) => 0.7,
            (true, true, false) => 0.3,
            // Back covers quote reviewers by name: only support, never alone.
            (false, true, _) => 0.25,
            _ => return None,
        };
        Some((heading, base))
    } else {
        // An article set in one size: its title is the block right over
        // the first line of names in the upper part of its first page.
        let b = bylined_block(pl).filter(|_| pl.page.index <= 1)?;
        Some((&pl.blocks[b], 0.35))
    }
}

/// One list of names read down the page: lines of names near each other,
/// with the role lines and affiliations between them.
struct Group {
    names: Vec<String>,
    marked: bool,
    editor: bool,
    top: f32,
    bottom: f32,
    /// Its names were read from lines in mixed case ("Ann Lee").
    mixed_case: bool,
}

/// Whether a line's letters are all capitals ("ANN LEE", "HARBOUR OKE").
fn all_capitals(text: &str) -> bool {
    let mut letters = text.chars().filter(|c| c.is_alphabetic()).peekable();
    letters.peek().is_some() && letters.all(char::is_uppercase)
}

/// A line of "names" in capitals under names in mixed case, none of them
/// opening with a known given name: the firm or imprint a title page sets
/// under its author ("Ann Lee" / "HARBOUR OKE"), not one more author.
fn is_firm_under_names(g: &Group, l: &TextLine, names: &[String]) -> bool {
    g.mixed_case && all_capitals(&l.text) && !names.iter().any(|n| opens_with_given_name(n))
}

/// Whether line `l` is close enough under group `g` to go on with it.
fn near(g: &Group, l: &TextLine) -> bool {
    l.bbox.top - g.bottom <= l.size.max(8.0) * 2.6
}

/// The lists of names gathered so far down a page.
#[derive(Default)]
struct Gathering {
    /// The lists closed so far, top to bottom.
    groups: Vec<Group>,
    /// The list that the next line of names may go on with.
    open: Option<Group>,
    /// The last line read together with lines above it (a name broken in
    /// two, a list set as a paragraph).
    joined_until: Option<usize>,
    /// A role line ("Edited by") alone marks the names that follow it.
    pending_mark: bool,
    pending_editor: bool,
}

impl Gathering {
    /// Ends the open list, keeping it if it has names.
    fn close(&mut self) {
        if let Some(g) = self.open.take()
            && !g.names.is_empty()
        {
            self.groups.push(g);
        }
    }

    /// Forgets the role words read for the next names.
    fn clear_pending(&mut self) {
        (self.pending_mark, self.pending_editor) = (false, false);
    }

    /// Reads a line of names: onto the open list, or as a new one.
    fn take_names(&mut self, l: &TextLine, names: Vec<String>, marked: bool, editor: bool) {
        // A line of names with no role word of its own, before it or on
        // it, goes on with the list above it, whatever that list's role
        // ("Editors:" / "Ann Lee" / "Bo Chen").
        let unmarked = !(marked || editor || self.pending_mark || self.pending_editor);
        let editor = editor || self.pending_editor;
        if let Some(g) = self
            .open
            .as_mut()
            .filter(|g| unmarked && near(g, l) && is_firm_under_names(g, l, &names))
        {
            g.bottom = g.bottom.max(l.bbox.bottom);
            return;
        }
        // Authors and editors on one page are two lists.
        if let Some(g) = self
            .open
            .as_mut()
            .filter(|g| near(g, l) && (g.editor == editor || unmarked))
        {
            for n in names {
                if !g.names.contains(&n) {
                    g.names.push(n);
                }
            }
            g.marked |= marked;
            g.bottom = g.bottom.max(l.bbox.bottom);
            g.mixed_case &= !all_capitals(&l.text);
        } else {
            self.close();
            self.open = Some(Group {
                names,
                marked: marked || self.pending_mark,
                editor,
                top: l.bbox.top,
                bottom: l.bbox.bottom,
                mixed_case: !all_capitals(&l.text),
            });
        }
        self.clear_pending();
    }

    /// Reads one line of kind `kind` (not part of the heading).
    fn take(&mut self, l: &TextLine, kind: LineKind, heading: &Block) {
        match kind {
            LineKind::Names {
                names,
                marked,
                editor,
            } => self.take_names(l, names, marked, editor),
            LineKind::Connector { marked, editor } => {
                match self
                    .open
                    .as_mut()
                    .filter(|g| near(g, l) && g.editor == editor)
                {
                    Some(g) => {
                        g.bottom = l.bbox.bottom;
                        g.marked |= marked;
                    }
                    None => self.close(),
                }
                self.pending_mark |= marked;
                self.pending_editor |= editor;
            }
            LineKind::Affiliation => {
                if let Some(g) = self.open.as_mut().filter(|g| near(g, l)) {
                    g.bottom = l.bbox.bottom;
                }
            }
            // Each author may be followed by lines of their own (a
            // department, a town, a note) that read as neither names nor
            // institutions: the list goes on after them. (A line as large
            // as the title is not one of those.)
            LineKind::Other
                if l.size < heading.size * 0.8
                    && self.open.as_ref().is_some_and(|g| near(g, l)) =>
            {
                if let Some(g) = self.open.as_mut() {
                    g.bottom = l.bbox.bottom;
                }
            }
            LineKind::Credit | LineKind::Other => {
                self.close();
                self.clear_pending();
            }
        }
    }
}

/// The lists of names set as lines of their own near `heading`: on a
/// display page anywhere, on a paper's page between its title and the
/// abstract.
fn name_groups(layout: &Layout, pl: &PageLayout, heading: &Block, display: bool) -> Vec<Group> {
    let mut at = Gathering::default();
    for (i, l) in pl.content_lines() {
        let in_heading = heading.lines.contains(&i);
        if !display {
            // A paper: only the lines between its title and the abstract.
            // (Boxes run from the font's ascent to its descent, so a
            // byline's box may start inside the title's: its middle says.)
            if (l.bbox.top + l.bbox.bottom) / 2.0 < heading.bottom || in_heading {
                continue;
            }
            if ends_paper_header(layout, pl, i, l, heading, at.open.as_ref()) {
                break;
            }
        }
        if in_heading {
            at.close();
            at.clear_pending();
            continue;
        }
        if at.joined_until.is_some_and(|last| i <= last) {
            // Already read with the lines above it.
            if let Some(g) = at.open.as_mut() {
                g.bottom = g.bottom.max(l.bbox.bottom);
            }
            continue;
        }
        let kind = match joined_kind(pl, i, l) {
            Some((kind, last)) => {
                at.joined_until = Some(last);
                kind
            }
            None => pl.kinds[i].clone(),
        };
        at.take(l, kind, heading);
    }
    at.close();
    at.groups
}

/// Whether line `i` of a paper ends its header: a section heading (the
/// abstract), prose, or a line far under the byline read so far (`open`).
fn ends_paper_header(
    layout: &Layout,
    pl: &PageLayout,
    i: usize,
    l: &TextLine,
    heading: &Block,
    open: Option<&Group>,
) -> bool {
    let f = fold(&l.text);
    // The byline sits right under the title, and a long one goes on for
    // as long as its lines follow each other.
    let above = open.map_or(heading.bottom, |g| g.bottom);
    let far = l.bbox.top - above > heading.size * 5.0;
    // (A long line of affiliations or names is not prose.)
    let prose = is_long_line(l, pl)
        && l.size <= layout.body_size * 1.1
        && !matches!(pl.kinds[i], LineKind::Affiliation | LineKind::Names { .. })
        && !mostly_capitalised(&l.text);
    is_paper_section(&f) || prose || far
}

/// Line `i` read together with the lines after it as one list of names,
/// with the last line so read, when they make one.
fn joined_kind(pl: &PageLayout, i: usize, l: &TextLine) -> Option<(LineKind, usize)> {
    // A list of names with one broken at the end of the line ("…, Anna" /
    // "Berg, …") reads as names together with the line that goes on with
    // it.
    if matches!(pl.kinds[i], LineKind::Other)
        && let Some((head, _)) = l.text.trim_end().rsplit_once(char::is_whitespace)
        && matches!(classify(head), LineKind::Names { .. })
        && let Some(next) = pl.rows.get(i + 1)
        && next.bbox.top - l.bbox.bottom <= l.size.max(8.0) * 1.5
        && let joined @ LineKind::Names { .. } = classify(&format!("{} {}", l.text, next.text))
    {
        Some((joined, i + 1))
    } else {
        names_paragraph(pl, i)
    }
}

/// Scores each list of names and adds it to `out`: the list nearest the
/// title at `base`, later ones (an imprint town, a dedicatee) weaker.
fn score_groups(
    groups: Vec<Group>,
    heading: &Block,
    base: f32,
    display: bool,
    pl: &PageLayout,
    out: &mut Vec<Candidate>,
) {
    let dist = |g: &Group| {
        if g.top >= heading.bottom {
            g.top - heading.bottom
        } else {
            heading.top - g.bottom
        }
    };
    let nearest = groups
        .iter()
        .enumerate()
        .min_by(|a, b| dist(a.1).total_cmp(&dist(b.1)))
        .map(|(i, _)| i);
    // Editors count only where no author is named.
    let has_authors = groups.iter().any(|g| !g.editor);
    for (i, g) in groups.into_iter().enumerate() {
        let mut score = if Some(i) == nearest {
            base
        } else {
            base * 0.65
        };
        if g.marked {
            score += 0.1;
        }
        if g.editor && has_authors {
            score *= 0.5;
        }
        let why = format!(
            "{} names near the title{}",
            if display {
                "title page"
            } else {
                "paper heading"
            },
            match (g.marked, g.editor) {
                (_, true) => " (editors)",
                (true, false) => " (by-line)",
                _ => "",
            }
        );
        out.push(candidate(g.names, score, pl, why));
    }
}

/// The first block in the upper part of the page with a line of names right
/// under it.
fn bylined_block(pl: &PageLayout) -> Option<usize> {
    let upper = pl.page.height * 0.45;
    (0..pl.blocks.len()).find(|&bi| {
        let b = &pl.blocks[bi];
        b.top < upper
            && !b
                .lines
                .iter()
                .any(|&i| matches!(pl.kinds[i], LineKind::Names { .. }))
            && pl.byline_under(bi, 2.5)
    })
}

/// A list of names set as a paragraph, with names broken across its lines
/// ("…, Hans Peter" / "Ellerbeck, Mia van" / "Dorn and Karl Ekberg"):
/// the lines from `i` on that follow it tightly in its size, read as one
/// list of more names than line `i` alone gives, and the last line read.
/// Not a date or a section head under a name.
fn names_paragraph(pl: &PageLayout, i: usize) -> Option<(LineKind, usize)> {
    let first = &pl.rows[i];
    if !matches!(pl.kinds[i], LineKind::Names { .. } | LineKind::Other) {
        return None;
    }
    let alone = match &pl.kinds[i] {
        LineKind::Names { names, .. } => names.len(),
        _ => 0,
    };
    let mut best = None;
    let mut last = i;
    let mut text = first.text.clone();
    while let Some(next) = pl.rows.get(last + 1) {
        let prev = &pl.rows[last];
        let follows = matches!(pl.kinds[last + 1], LineKind::Names { .. } | LineKind::Other)
            && same_size_within(first.size, next.size, 0.05)
            && next.bbox.top - prev.bbox.bottom <= first.size.max(8.0) * 0.8
            && !next.text.split_whitespace().any(is_number)
            && !is_paper_section(&fold(&next.text));
        if !follows || last - i >= MAX_LIST_LINES {
            break;
        }
        text = format!("{} {}", text.trim_end(), next.text.trim_start());
        last += 1;
        // The longest run of lines that still reads as one list.
        let joined = classify(&text);
        if matches!(&joined, LineKind::Names { names, .. } if names.len() >= 2 && names.len() > alone)
        {
            best = Some((joined, last));
        }
    }
    best
}

/// Lines of one list of names read together, at most.
const MAX_LIST_LINES: usize = 8;

/// A word of digits (a day, a year), not a name with a mark ("Berg1").
fn is_number(w: &str) -> bool {
    w.chars().any(|c| c.is_ascii_digit())
        && w.chars()
            .all(|c| c.is_ascii_digit() || ",.;:–-".contains(c))
}

/// Section heads that end a paper's title block.
fn is_paper_section(f: &str) -> bool {
    let f = f.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    [
        "abstract",
        "summary",
        "keywords",
        "introduction",
        "contents",
        "zusammenfassung",
        "resume",
        "résumé",
        "related work",
        "einleitung",
        "schlagworter",
        "mots cles",
        "index terms",
        "аннотация",
        "введение",
        "ключевые слова",
    ]
    .iter()
    .any(|s| f == *s || f.starts_with(&format!("{s} ")))
}

/// Most words start with a capital: a line of names and institutions
/// ("Department of Physics, University of Morford, London"), not a
/// sentence.
fn mostly_capitalised(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let caps = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    caps * 2 > words.len()
}

fn is_long_line(l: &TextLine, pl: &PageLayout) -> bool {
    l.bbox.width() >= pl.page.width * 0.55 && l.text.split_whitespace().count() >= 10
}

static YEARS: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\b(?:1[5-9]|20)\d\d(?:\s*[-–—/]\s*\d{2,4})?\b[,.]?").unwrap());
static ALL_RIGHTS: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:all|some) rights reserved.*$|^\s*by\s+|\.\s*$").unwrap()
});
static ALSO_BY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:also|other books|more books)\s+by\s+(.+?)\s*:?\s*$").unwrap()
});
static MORAL_RIGHT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\bright of (.{3,120}?) to be identified as (?:the )?(?:authors?|editors?|compilers?)\b").unwrap()
});
static CATALOG_HEADING: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^\s*([^,]{3,60}),\s*(?:\d{4})\s*[-–—]\s*(?:\d{4})?\s*\.?\s*$").unwrap()
});
static ABOUT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^((?:\p{Lu}[\p{L}.'’-]*\s+){1,3}\p{Lu}[\p{L}'’-]+)\s+(?:is|was|has|had|lives|lived|grew|teaches|taught|works|worked|holds|received|studied|writes|wrote|spent|began|trained)\b").unwrap()
});
static CIP_LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?m)^(Names|Title|Other titles|Description|Identifiers|Subjects|Classification|LC record|LC ebook record|Series|Summary|Audience)\s*:").unwrap()
});

/// Names in sentences and labelled lines anywhere in the pages read:
/// copyright lines, CIP data, "Also by", moral-rights notices, "About the
/// author".
fn statement_names(pl: &PageLayout, out: &mut Vec<Candidate>) {
    let lines: Vec<&TextLine> = pl.content_lines().map(|(_, l)| l).collect();
    let mut about = false;
    for l in &lines {
        let text = l.text.trim();
        // TeX's © often comes out as a bare "c" before the year or name.
        let bare_c = text
            .strip_prefix("c ")
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit() || c.is_uppercase()));
        let holder = COPYRIGHT
            .captures(text)
            .map(|c| c[1].to_string())
            .or(bare_c.map(str::to_string));
        if let Some(holder) = holder {
            let rest = YEARS.replace_all(&holder, " ");
            let rest = ALL_RIGHTS.replace_all(rest.trim(), "");
            let list = parse_names(rest.trim());
            if list.is_clean() {
                out.push(candidate(list.names, 0.35, pl, "copyright holder".into()));
            }
            continue;
        }
        if let Some(c) = ALSO_BY.captures(text) {
            if let LineKind::Names { names, .. } = classify(&c[1]) {
                out.push(candidate(names, 0.3, pl, "'also by' page".into()));
            }
            continue;
        }
        if let Some(c) = CATALOG_HEADING.captures(text)
            && let Some(n) = person_name(c[1].trim())
        {
            out.push(candidate(
                vec![n],
                0.45,
                pl,
                "catalogue heading 'Name, born-'".into(),
            ));
            continue;
        }
        let f = fold(text);
        if f == "about the author"
            || f == "about the authors"
            || f == "about the editor"
            || f == "about the editors"
        {
            about = true;
            continue;
        }
        if about {
            about = false;
            if let Some(c) = ABOUT.captures(text)
                && let Some(n) = person_name(c[1].trim())
            {
                out.push(candidate(vec![n], 0.3, pl, "about the author".into()));
            }
        }
    }

    // Sentences and labelled blocks may run over several lines.
    let joined = lines
        .iter()
        .map(|l| l.text.trim())
        .collect::<Vec<_>>()
        .join("\n");
    let flat = joined.replace('\n', " ");
    if let Some(c) = MORAL_RIGHT.captures(&flat) {
        let list = parse_names(&c[1]);
        if list.is_clean() {
            out.push(candidate(list.names, 0.5, pl, "moral-rights notice".into()));
        }
    }
    cip_names(&joined, pl, out);
}

/// Library of Congress and Chinese CIP data: "Names: Last, First, author.
/// | ...", "Title: X : Y / by A and B." and "X：Y / 甲，乙编著".
fn cip_names(joined: &str, pl: &PageLayout, out: &mut Vec<Candidate>) {
    // Cut the text into labelled fields ("Names: ..." up to the next label).
    let starts: Vec<(usize, &str)> = CIP_LABEL
        .captures_iter(joined)
        .map(|c| (c.get(0).unwrap().start(), c.get(1).unwrap().as_str()))
        .collect();
    for (k, (start, label)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(joined.len(), |s| s.0);
        let body = joined[*start..end].replace('\n', " ");
        let body = body.split_once(':').map_or("", |b| b.1).trim();
        match *label {
            "Names" => {
                let mut names = Vec::new();
                for part in body.split('|') {
                    if let Some(n) = inverted_name(part) {
                        names.push(n);
                    }
                }
                if !names.is_empty() {
                    out.push(candidate(names, 0.55, pl, "CIP names".into()));
                }
            }
            "Title" => {
                if let Some((_, resp)) = body.split_once(" / ") {
                    let resp = resp.split(" | ").next().unwrap_or(resp);
                    let resp = resp.split(". ").next().unwrap_or(resp);
                    let list = parse_names(resp);
                    if list.is_clean() {
                        out.push(candidate(
                            list.names,
                            0.55,
                            pl,
                            "CIP statement of responsibility".into(),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    // Chinese CIP: "书名：副书名 / 甲，乙，丙编著. —3 版. —城市：出版社，2021".
    if joined.contains("CIP") {
        for line in joined.lines() {
            if let Some((_, resp)) = line.split_once('/')
                && line.chars().any(is_cjk)
            {
                let resp = resp.split(['.', '—']).next().unwrap_or("").trim();
                let list = parse_names(resp);
                if list.is_clean() && list.marked {
                    out.push(candidate(
                        list.names,
                        0.55,
                        pl,
                        "CIP statement of responsibility".into(),
                    ));
                }
            }
        }
    }
}

/// "Ashcombe, Rosalind, author." → "Rosalind Ashcombe"; roles other than
/// author/editor/compiler (illustrator, translator) are not authors.
fn inverted_name(part: &str) -> Option<String> {
    let fields: Vec<&str> = part
        .split(',')
        .map(|s| s.trim().trim_end_matches('.'))
        .collect();
    let (last, first) = (fields.first()?.trim(), fields.get(1)?.trim());
    let rest = fields[2..].join(" ").to_lowercase();
    if [
        "illustrat",
        "translat",
        "photograph",
        "design",
        "writer of foreword",
    ]
    .iter()
    .any(|r| rest.contains(r))
    {
        return None;
    }
    let first = first.trim_end_matches(|c: char| c.is_ascii_digit() || "-–— ".contains(c));
    person_name(&format!("{first} {last}"))
}

#[cfg(test)]
mod tests {
    use super::super::layout::testutil::*;
    use super::*;
    use crate::model::PageText;

    fn names(c: &Candidate) -> Vec<String> {
        match &c.value {
            Value::Names(n) => n.clone(),
            v => panic!("not names: {v:?}"),
        }
    }

    /// The best candidate's names on a paper's first page: `lines`, then
    /// 25 lines of running text from `prose_top` down.
    fn heading_names(mut lines: Vec<TextLine>, prose_top: f32) -> Vec<String> {
        lines.extend(prose(
            "We show how the matter at hand can be read by anyone who has time and",
            prose_top,
            25,
            14.0,
            54.0,
            378.0,
        ));
        names(&best(&[page_of(0, lines)], 12))
    }

    fn best(pages: &[PageText], count: u32) -> Candidate {
        let doc = DocText {
            pages,
            page_count: count,
        };
        let mut c = find(&doc);
        c.sort_by(|a, b| b.score.total_cmp(&a.score));
        c.into_iter().next().expect("a candidate")
    }

    #[test]
    fn book_title_page_byline_with_and_on_its_own_line() {
        let pages = [
            page(0, &[("Spinning on Hand Wheels", 9.8, 224.6)]),
            page(
                1,
                &[
                    ("Spinning on Hand Wheels", 18.0, 126.8),
                    ("A Course for Students and Tutors", 9.8, 161.6),
                    ("Mildred Halvorsen", 9.8, 215.2),
                    ("and", 9.8, 232.8),
                    ("Dorothy K. Pell", 9.8, 250.4),
                    ("Drawings by the authors", 9.8, 285.6),
                    ("THISTLEDOWN CRAFT BOOKS", 7.9, 410.5),
                    ("New York", 7.9, 424.7),
                ],
            ),
            body_page(2, None),
        ];
        let c = best(&pages, 15);
        assert_eq!(names(&c), vec!["Mildred Halvorsen", "Dorothy K. Pell"]);
        assert_eq!(c.page, Some(1));
    }

    #[test]
    fn editors_count_and_credits_do_not() {
        let pages = [
            page(
                0,
                &[
                    ("Suppers from a", 30.0, 166.0),
                    ("Canalside Kitchen", 30.0, 198.0),
                    ("Easy Meals for Days on the Water", 15.0, 243.0),
                    ("Photographs by Neil Garside", 14.0, 295.0),
                ],
            ),
            page(
                1,
                &[
                    ("Upland Pastures", 31.0, 131.0),
                    ("Edited by", 13.3, 227.0),
                    ("Hildur Ragnarsdóttir and Cathal Ó Murchadha", 13.3, 243.0),
                    ("WESTERLY UNIVERSITY PRESS", 11.7, 551.0),
                ],
            ),
            body_page(2, None),
        ];
        let c = best(&pages, 15);
        assert_eq!(
            names(&c),
            vec!["Hildur Ragnarsdóttir", "Cathal Ó Murchadha"]
        );
        assert!(c.why.contains("editors"), "{}", c.why);
    }

    #[test]
    fn paper_authors_between_title_and_abstract() {
        let mut lines = vec![
            line_at("Journal of Modelling Software", 21.5, 96.0, 202.0),
            line_at("October 2018, Volume 64, Issue 4.", 8.3, 130.0, 187.0),
            line_at(
                "Robust Self-Adjusting Trees in arborist 3.0",
                12.9,
                222.0,
                112.0,
            ),
            line_at("Bas Veldkamp", 9.0, 268.4, 166.0),
            line_at("Maarten Oosterbroek", 9.0, 268.4, 331.0),
            line_at("Hoogeveld University & Research", 9.1, 282.1, 122.0),
            line_at("Hoogeveld University & Research", 9.1, 282.1, 316.0),
            line_at("Abstract", 7.5, 331.6, 279.0),
        ];
        for k in 0..20 {
            let mut l = line_at(
                "Self-adjusting trees (SATs) are popular tools for indexing and searching data in",
                9.0,
                350.0 + k as f32 * 12.0,
                80.0,
            );
            l.bbox.x1 = 400.0;
            lines.push(l);
        }
        let pages = [page_of(0, lines), body_page(1, None), body_page(2, None)];
        let c = best(&pages, 18);
        assert_eq!(names(&c), vec!["Bas Veldkamp", "Maarten Oosterbroek"]);
    }

    #[test]
    fn manual_with_a_package_name_title_and_a_long_subtitle() {
        // A lower-case program name set large over the byline: the byline,
        // not a heading further down, is what follows the title.
        let prose = |lines: &mut Vec<TextLine>, from: f32| {
            for k in 0..20 {
                let mut l = line_at(
                    "The quillmark package lets you set marks in the margin of a page",
                    10.0,
                    from + k as f32 * 12.0,
                    60.0,
                );
                l.bbox.x1 = 380.0;
                lines.push(l);
            }
        };
        let mut lines = vec![
            line_at("quillmark", 26.0, 110.0, 160.0),
            line_at("(version 1.0)", 14.3, 140.0, 170.0),
            line_at("Ada Lindqvist", 17.2, 175.0, 150.0),
            line_at("April 30, 2019", 17.2, 228.0, 160.0),
        ];
        prose(&mut lines, 280.0);
        lines.push(line_at("Basic usage", 17.2, 540.0, 60.0));
        let pages = [page_of(0, lines), body_page(1, None)];
        assert_eq!(names(&best(&pages, 9)), vec!["Ada Lindqvist"]);

        // A long subtitle set above body size is not running text.
        let mut subtitle = line_at(
            "The Quill fonts for XeLaTeX and LuaLaTeX through fontspec and friends",
            12.0,
            150.0,
            50.0,
        );
        subtitle.bbox.x1 = 390.0;
        let mut lines = vec![
            line_at("The quillmark package", 17.2, 120.0, 120.0),
            subtitle,
            line_at("Ada Lindqvist", 12.0, 180.0, 170.0),
            line_at("January 30, 2021", 12.0, 210.0, 165.0),
        ];
        prose(&mut lines, 260.0);
        let pages = [page_of(0, lines), body_page(1, None)];
        assert_eq!(names(&best(&pages, 9)), vec!["Ada Lindqvist"]);
    }

    #[test]
    fn copyright_holder_is_a_weak_candidate() {
        let pages = [
            page(
                0,
                &[
                    ("Lattice: the Plot Description", 15.3, 215.0),
                    ("Language", 15.3, 242.0),
                    ("For version 2.85", 9.1, 272.0),
                ],
            ),
            // The text layer cuts the copyright line after the © sign.
            page_of(
                1,
                vec![
                    line_at(
                        "This file documents Lattice, version 2.85.",
                        10.9,
                        627.2,
                        90.0,
                    ),
                    line_at("Copyright ©", 10.9, 659.1, 90.0),
                    line_at(
                        "2004-23 Greg Tillinghast, Paul Dorsey, and Sam Keller.",
                        10.9,
                        659.4,
                        155.8,
                    ),
                ],
            ),
        ];
        let c = best(&pages, 196);
        assert_eq!(
            names(&c),
            vec!["Greg Tillinghast", "Paul Dorsey", "Sam Keller"]
        );
        assert!(c.score < 0.5);
    }

    #[test]
    fn cataloguing_data_names() {
        let pages = [page(
            4,
            &[
                (
                    "Library of Congress Cataloging-in-Publication Data",
                    7.9,
                    442.0,
                ),
                (
                    "Names: Ragnarsdóttir, Hildur, editor. | Ó Murchadha, Cathal, editor.",
                    7.9,
                    451.0,
                ),
                (
                    "Title: Upland pastures : grazing, tenure and common rights / edited by Hildur",
                    7.9,
                    460.0,
                ),
                ("Ragnarsdóttir and Cathal Ó Murchadha.", 7.9, 469.0),
                (
                    "Description: Edinburgh : Westerly University Press, 2021.",
                    7.9,
                    478.0,
                ),
            ],
        )];
        let doc = DocText {
            pages: &pages,
            page_count: 16,
        };
        let found: Vec<Vec<String>> = find(&doc).iter().map(names).collect();
        let want = vec![
            "Hildur Ragnarsdóttir".to_string(),
            "Cathal Ó Murchadha".to_string(),
        ];
        assert!(
            found.iter().filter(|n| **n == want).count() >= 2,
            "{found:?}"
        );
    }

    #[test]
    fn chinese_title_page_with_role_marker() {
        let pages = [page(
            0,
            &[
                ("纸本保护方法", 24.9, 185.0),
                ("——概论与案例", 12.4, 235.0),
                ("（第 3 版）", 12.4, 259.0),
                ("刘雨桐 吴建国 郑浩 编著", 11.6, 320.0),
                ("青峦大学出版社", 8.7, 622.0),
                ("苏州", 8.7, 640.0),
            ],
        )];
        let c = best(&pages, 16);
        assert_eq!(names(&c), vec!["刘雨桐", "吴建国", "郑浩"]);
    }

    #[test]
    fn about_the_author_and_copyright_agree() {
        let pages = [
            page(1, &[("Copyright © Liisa Harjunen 2020", 9.2, 307.0)]),
            page(
                16,
                &[
                    ("About the Author", 14.0, 100.0),
                    (
                        "Liisa Harjunen grew up on an island in the Vaasa",
                        10.0,
                        130.0,
                    ),
                ],
            ),
        ];
        let doc = DocText {
            pages: &pages,
            page_count: 17,
        };
        let c = find(&doc);
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|c| names(c) == vec!["Liisa Harjunen"]));
    }

    #[test]
    fn paper_authors_each_followed_by_their_own_lines() {
        // One author a line, each with a department and town that read as
        // neither names nor institutions ("Holmwald-Institut, Hamburg").
        let lines = vec![
            line("Analysis of Historical Newspapers", 17.0, 90.0),
            line("Otto Berghof", 11.0, 125.0),
            line("Holmwald-Institut, Hamburg", 10.0, 139.0),
            line("Rita Sandmeier", 11.0, 156.0),
            line("Tallberg-Werke, Kiel", 10.0, 170.0),
            line("rita@tallberg.example", 10.0, 183.0),
            line("Hans zu Ellerbeck", 11.0, 200.0),
            line_at(
                "Department of Physics, University of Morford, London; Institute of Advanced Studies, Bristol",
                10.0,
                214.0,
                20.0,
            ),
            line("Anna Marie Quist, Lena des Rovin, Karl", 11.0, 230.0),
            line("Ekberg and Mia van Dorn", 11.0, 244.0),
            line("Received August 2019; Accepted February 2020", 10.0, 259.0),
            line("Abstract", 10.0, 276.0),
        ];
        assert_eq!(
            heading_names(lines, 290.0),
            vec![
                "Otto Berghof",
                "Rita Sandmeier",
                "Hans zu Ellerbeck",
                "Anna Marie Quist",
                "Lena des Rovin",
                "Karl Ekberg",
                "Mia van Dorn"
            ]
        );
    }

    #[test]
    fn institutions_in_other_languages_end_no_name_and_start_none() {
        // Each author over an institution and town in German, French and
        // Russian: the town must not be read as the next author's first
        // name, nor the institution as an author.
        let lines = vec![
            line("Über die Messung von Flussläufen", 17.0, 90.0),
            line("Greta Almsfeld", 11.0, 125.0),
            line("Forschungszentrum Ostbach, Kassel", 10.0, 139.0),
            line("Pierre du Clairmont", 11.0, 156.0),
            line("Laboratoire Vernaison, Lyon", 10.0, 170.0),
            line("Ирина Соколова", 11.0, 187.0),
            line("Университет Северогорск", 10.0, 201.0),
            line("Related Work", 10.0, 230.0),
        ];
        let found = heading_names(lines, 250.0);
        assert_eq!(
            found,
            vec!["Greta Almsfeld", "Pierre du Clairmont", "Ирина Соколова"]
        );
        for s in [
            "Forschungszentrum Ostbach",
            "Laboratoire Vernaison",
            "Университет Северогорск",
        ] {
            assert_eq!(classify(s), LineKind::Affiliation, "{s}");
        }
        for s in ["Related Work", "Research Article"] {
            assert!(!matches!(classify(s), LineKind::Names { .. }), "{s}");
        }
    }

    #[test]
    fn names_side_by_side_an_em_apart_are_two_authors() {
        // A LaTeX `\and` byline: two names on one baseline 1.3 em apart
        // ("Ulla Berg" is 9 characters of 5 pt at 10 pt), each over its
        // institution.
        let lines = vec![
            line("Counting Birds from the Shore", 17.0, 90.0),
            line_at("Ulla Berg", 10.0, 125.0, 150.0),
            line_at("Anna de Wit", 10.0, 125.0, 208.0),
            line_at("Ostmark Institute", 10.0, 139.0, 150.0),
            line_at("Westfold University", 10.0, 139.0, 240.0),
            line("Abstract", 10.0, 170.0),
        ];
        let found = heading_names(lines, 190.0);
        assert_eq!(found, vec!["Ulla Berg", "Anna de Wit"]);
    }

    #[test]
    fn a_byline_whose_box_reaches_into_the_title_box_is_read() {
        // pdfium's boxes run from the font's ascent to its descent: the
        // title's box reaches a point below the top of the byline's.
        let mut title = line("A Tidy Interpreter for Tables", 17.2, 86.0);
        title.bbox.bottom = 114.7;
        let mut name = line_at("Vera Holmqvist", 10.9, 113.6, 150.0);
        name.bbox.bottom = 129.2;
        let mut version = line_at("Version 2.19.0", 10.9, 113.6, 250.0);
        version.bbox.bottom = 129.2;
        let lines = vec![
            title,
            name,
            version,
            line_at("vera@example.org", 10.9, 127.2, 150.0),
            line_at("2022-12-23", 10.9, 127.2, 250.0),
            line("Contents", 14.3, 157.7),
        ];
        assert_eq!(heading_names(lines, 190.0), vec!["Vera Holmqvist"]);
    }

    #[test]
    fn a_manual_byline_with_the_surname_in_capitals() {
        let lines = vec![
            line("The tallyho package", 17.2, 165.0),
            line("Odile MARCHETEAU†", 12.0, 197.0),
            line("Released 2022/12/02", 12.0, 221.0),
            line("Abstract", 9.0, 259.0),
        ];
        assert_eq!(heading_names(lines, 273.0), vec!["Odile Marcheteau"]);
    }

    #[test]
    fn a_name_broken_at_the_end_of_a_names_line_is_read_whole() {
        let lines = vec![
            line("Tidal Records of the Northern Harbours", 17.0, 90.0),
            line("Otto Berghof1, Rita Sandmeier2, Hans Peter", 11.0, 125.0),
            line("Ellerbeck1, Mia van", 11.0, 139.0),
            line("Dorn2 and Karl Ekberg1", 11.0, 153.0),
            line("1Tidewater Institute, Bremen", 10.0, 170.0),
            line("Abstract", 10.0, 190.0),
        ];
        let found = heading_names(lines, 210.0);
        assert_eq!(
            found,
            vec![
                "Otto Berghof",
                "Rita Sandmeier",
                "Hans Peter Ellerbeck",
                "Mia van Dorn",
                "Karl Ekberg"
            ]
        );
    }

    #[test]
    fn article_set_in_one_size_names_its_author() {
        // Running head, bold title, byline and abstract, all in the body size.
        let c = best(&[bulletin_article_page()], 9);
        assert_eq!(names(&c), vec!["Ada Lindqvist"]);
    }

    #[test]
    fn paper_byline_with_superscripts_and_emails() {
        let lines = vec![
            line("Sparse Grids for Everyone", 17.0, 90.0),
            line(
                "Jane Q. Public1,2, Max Mustermann2∗ and Chen Wei3",
                12.0,
                125.0,
            ),
            line(
                "1University of Somewhere, 2Institute of Things",
                10.0,
                140.0,
            ),
            line("{jane,max}@example.org", 10.0, 153.0),
            line("Abstract", 10.0, 190.0),
        ];
        assert_eq!(
            heading_names(lines, 210.0),
            vec!["Jane Q. Public", "Max Mustermann", "Chen Wei"]
        );
    }

    #[test]
    fn editor_of_an_authored_book_is_not_an_author() {
        let pages = [
            page(
                0,
                &[
                    ("Persuasion", 30.0, 150.0),
                    ("Jane Austen", 16.0, 220.0),
                    ("Edited by Gillian Beer", 12.0, 300.0),
                    ("HARBOR LIGHT BOOKS", 10.0, 580.0),
                ],
            ),
            body_page(1, None),
        ];
        let doc = DocText {
            pages: &pages,
            page_count: 300,
        };
        let c = find(&doc);
        let author = c
            .iter()
            .find(|c| names(c) == vec!["Jane Austen"])
            .expect("author");
        let editor = c
            .iter()
            .find(|c| names(c) == vec!["Gillian Beer"])
            .expect("editor");
        assert!(author.score > editor.score + 0.2, "{c:?}");
        assert!(matches!(
            classify("Anna Berg and Bo Lind (eds.)"),
            LineKind::Names { editor: true, .. }
        ));
        assert!(matches!(
            classify("刘雨桐 主编"),
            LineKind::Names { editor: true, .. }
        ));
        assert!(matches!(
            classify("刘雨桐 编著"),
            LineKind::Names { editor: false, .. }
        ));
    }

    #[test]
    fn a_long_byline_with_marks_wrapped_over_three_lines() {
        // A paper's first page as the reader gives it: left-aligned lines,
        // the names broken wherever the line ran out, one name across two,
        // given names no list knows, each name with its affiliation mark.
        let at = |t: &str, top: f32, x1: f32, size: f32, bold: bool| TextLine {
            text: t.to_string(),
            bbox: crate::model::Rect {
                x0: 77.0,
                top,
                x1,
                bottom: top + size * 1.15,
            },
            size,
            bold,
        };
        let mut lines = vec![
            at("Harbour Letters Quarterly", 81.0, 294.0, 9.1, false),
            at("2017, 53(8): 31–48", 92.0, 154.0, 9.1, false),
            at("Tidal Forecasting with Spectral", 136.5, 508.0, 21.9, true),
            at("Clustering:", 163.0, 192.0, 21.9, true),
            at("A Benchmark and Baselines", 190.0, 371.0, 21.9, true),
            at(
                "Orvald T. Quessel1,*, Brisane Tollack2, Ulvane Peri",
                227.0,
                463.0,
                13.9,
                false,
            ),
            at(
                "Pexworth3, Morva van Dorn4,3, Ilske Nors Ekberg2 and Garvo",
                244.0,
                498.0,
                13.9,
                false,
            ),
            at("Osven Lindqvist3", 261.0, 177.0, 13.9, false),
            at(
                "1Faculty of Economics, Tidewater University, Bremen",
                284.0,
                301.0,
                9.6,
                false,
            ),
            at(
                "2Sandbar Institute of Technology, Oxford",
                296.0,
                249.0,
                9.6,
                false,
            ),
            at("ellerbeck@example.org", 334.0, 205.0, 8.6, false),
            at(
                "Received October 5, 2017 | Revised 4 June 2017",
                350.0,
                343.0,
                8.6,
                false,
            ),
            at("Summary", 375.0, 122.0, 10.7, true),
        ];
        for k in 0..5 {
            lines.push(at(
                "We show how the matter at hand can be read by anyone who has the time",
                390.0 + 12.4 * k as f32,
                518.0,
                10.2,
                false,
            ));
        }
        let found = names(&best(&[page_of(0, lines)], 3));
        assert_eq!(
            found,
            vec![
                "Orvald T. Quessel",
                "Brisane Tollack",
                "Ulvane Peri Pexworth",
                "Morva van Dorn",
                "Ilske Nors Ekberg",
                "Garvo Osven Lindqvist"
            ]
        );
    }

    #[test]
    fn a_firm_in_capitals_under_the_author_is_not_an_author() {
        let pages = [page(
            0,
            &[
                ("Tide Tables", 40.0, 200.0),
                ("March 2005", 14.0, 260.0),
                ("Maria Quell", 14.0, 400.0),
                ("SANDBAR OKE", 12.0, 420.0),
            ],
        )];
        assert_eq!(names(&best(&pages, 12)), vec!["Maria Quell"]);
        // Names all set in capitals stay, known given names or not.
        let pages = [page(
            0,
            &[
                ("Tide Tables", 40.0, 200.0),
                ("MARIA QUELL", 14.0, 400.0),
                ("ORVALD TESSEN", 14.0, 420.0),
            ],
        )];
        assert_eq!(
            names(&best(&pages, 12)),
            vec!["Maria Quell", "Orvald Tessen"]
        );
    }
}
