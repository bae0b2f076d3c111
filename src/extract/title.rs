//! Finder for `title` and `subtitle` candidates.
//!
//! The title is the largest text of the title page, but the largest text
//! of a page is often something else: a journal's masthead, a "TECHNICAL
//! REPORT" label, a logo, a "DRAFT" watermark, a running head, a chapter
//! heading. So each front page's blocks (see [`layout`](super::layout)) are
//! filtered (labels, dates, copyright lines, dedications never make a
//! title; mastheads and logos are penalised), ranked by font size, and
//! scored by the kind of page they sit on:
//!
//! - a full title page (the title plus names and/or an imprint) scores
//!   highest; a half-title page (the title alone) lower, so that when both
//!   exist the title page's fuller form wins and the half-title only adds
//!   agreement;
//! - on a page of running text only a heading followed by a byline counts
//!   (a paper's first page); other headings are chapter titles;
//! - the same words found on other pages (half-title, running heads,
//!   copyright page) add a little.
//!
//! The subtitle is the next block under the title in a smaller font (not a
//! byline, edition or version line), or else what follows a colon in the
//! title. Library cataloguing data ("Title: X : Y / by ...") and colophon
//! sentences ("X was published in 2019 by ...") give further candidates.

use super::edition;
use super::layout::{Block, Layout, PageLayout};
use super::lines::{DATE, GENRE, LABEL, LineKind, NEVER, classify, title_penalty};
use super::pattern::Pattern;
use super::text::{fold, is_cjk, join_lines, tokens, without_note_marks};
use crate::model::{Candidate, DocText, Field, Value};
use std::sync::LazyLock;

/// Every `title` and `subtitle` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&Layout::new(doc))
}

/// [`find`] over a layout already built (`text_candidates` builds one
/// for the title and author finders of a document).
pub fn find_in(layout: &Layout) -> Vec<Candidate> {
    let folded_pages: Vec<String> = layout
        .pages
        .iter()
        .map(|pl| format!(" {} ", fold(&pl.page.plain_text())))
        .collect();
    let mut out = Vec::new();
    for (pi, pl) in layout.pages.iter().enumerate() {
        if layout.is_front(pl.page) {
            heading_candidates(layout, pi, &folded_pages, &mut out);
        }
        statement_titles(pl, &mut out);
    }
    out
}

static EDITION_TAIL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)[,;]?\s*(?:
        (?:\d+(?:st|nd|rd|th|\.|e|er|re|ère|ème|-?е|-?я|-?й)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|
           revised|updated|new|expanded|enlarged|international|student|durchgesehene|erweiterte|
           überarbeitete|troisième|deuxième|seconde|nouvelle|второе|третье|новое|исправленное|дополненное|переработанное)
           [\s,]+(?:[\w-]+,?\s+){0,3}?(?:edition|ed\.|auflage|ausgabe|édition|edizione|edición|издание|изд\.)
        |edition\s+\d+|ed\.\s*\d+|(?:for\s+)?(?:version|release|v)\s*\d+(?:\.\d+)+.*|(?:for\s+)?(?:version|release)\s+\d+
        |[（(]\s*第.{1,3}版\s*[)）]|第.{1,3}版)
        .*$",
    )
    .unwrap()
});

/// A subtitle line cleaned of leading dashes and trailing edition or
/// version statements; `None` when nothing is left.
fn clean_subtitle(text: &str) -> Option<String> {
    let t = text
        .trim()
        .trim_start_matches(['—', '–', '-', ':', '：', '―', '─', ' ']);
    let t = EDITION_TAIL.replace(t, "");
    let t = t
        .trim()
        .trim_end_matches([',', ';', ':', '—', '–', '-', ' '])
        .trim();
    let t = t
        .trim_start_matches(['(', '（'])
        .trim_end_matches([')', '）'])
        .trim();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let digits = t.chars().filter(|c| c.is_ascii_digit()).count();
    (letters >= 2 && letters > digits).then(|| t.to_string())
}

/// A title without a trailing edition or version statement ("tex-locale
/// v1.0", "Support for Lato Version 3.3"): those are other fields, not the
/// title. Kept whole when nothing else would be left.
fn without_edition_tail(title: &str) -> String {
    let t = EDITION_TAIL.replace(title, "");
    let t = t
        .trim()
        .trim_end_matches([',', ';', ':', '—', '–', '-', '(', '（', ' '])
        .trim();
    if t.chars().filter(|c| c.is_alphanumeric()).count() >= 2 {
        t.to_string()
    } else {
        title.trim().to_string()
    }
}

/// Splits "Title: Subtitle" (also " : " and the full-width colon).
fn split_colon(title: &str) -> (String, Option<String>) {
    for sep in [": ", " : ", "：", " — "] {
        if let Some((a, b)) = title.split_once(sep) {
            let (a, b) = (a.trim(), b.trim());
            let ok_a = a.chars().filter(|c| c.is_alphanumeric()).count() >= 2;
            let ok_b = tokens(b).len() >= 2;
            if ok_a && ok_b {
                return (a.to_string(), Some(b.to_string()));
            }
        }
    }
    (title.trim().to_string(), None)
}

fn push(
    out: &mut Vec<Candidate>,
    pl: &PageLayout,
    field: Field,
    text: String,
    score: f32,
    why: String,
) {
    out.push(Candidate {
        field,
        value: Value::Text(without_note_marks(&text)),
        score,
        page: Some(pl.page.index),
        via: pl.page.via,
        why,
    });
}

/// Emits a title (split at a colon when there is no separate subtitle)
/// and its subtitle, both with the same score and page so `decide` can
/// keep them together.
fn push_pair(
    out: &mut Vec<Candidate>,
    pl: &PageLayout,
    title: &str,
    sub: Option<String>,
    score: f32,
    why: &str,
) {
    let (title, sub) = match sub {
        Some(s) => (title.trim().to_string(), Some(s)),
        None => split_colon(title),
    };
    let title = without_edition_tail(&title);
    push(out, pl, Field::Title, title, score, why.to_string());
    if let Some(s) = sub {
        push(
            out,
            pl,
            Field::Subtitle,
            s,
            score,
            format!("{why}; under the title"),
        );
    }
}

static INSTITUTION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:universit\w*|institut\w*|department|dept\.|laborator\w*|college|school|inc\.|gmbh|ltd\.?|corporation|research\s+cent(?:er|re))\b|@").unwrap()
});
static IMPRINT_PAGE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)©|\bcopyright\b|all rights reserved|cataloging|cataloguing|\bCIP\b|在版编目|dépôt légal|bibliografische information|printed in\b").unwrap()
});
static IMPRINT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:press|verlag|fachverlag|publish\w*|books|editions?|éditions|edizioni|editorial|editora|library|house|media)\b|出版社|出版|书局|書局").unwrap()
});

/// Title candidates from the blocks of one front page.
fn heading_candidates(
    layout: &Layout,
    pi: usize,
    folded_pages: &[String],
    out: &mut Vec<Candidate>,
) {
    let pl = &layout.pages[pi];
    if lists_other_books(pl) {
        return;
    }
    let page = HeadingPage::new(layout, pl);
    let first_sub = page
        .plausible
        .first()
        .and_then(|&(bi, _)| subtitle_block(pl, bi));
    if pl.page.index <= 1 {
        bylined_headings(pl, out);
    }
    for (rank, &(bi, penalty)) in page.plausible.iter().enumerate().take(2) {
        let b = &pl.blocks[bi];
        let ratio = b.size / page.body;
        if rank > 0 && (ratio < 1.15 || first_sub == Some(bi)) {
            // Small print, or the subtitle of the first candidate.
            continue;
        }
        let (mut score, mut why) = page.score(b, rank, ratio, penalty);
        let echoes = echoes(&b.text, pi, folded_pages);
        if echoes > 0 {
            score += 0.05 * echoes.min(3) as f32;
            why.push_str(&format!(", echoed on {echoes} other page(s)"));
        }
        if score < 0.1 {
            continue;
        }
        why = format!("{why}, {:.1}pt", b.size);
        let sub = subtitle_under(pl, bi);
        let text = match lead_in(pl, bi) {
            Some(lead) => {
                why.push_str(", with the smaller line over it");
                format!("{} {}", pl.blocks[lead].text.trim(), b.text.trim())
            }
            None => b.text.clone(),
        };
        push_pair(out, pl, &text, sub, score, &why);
    }
}

/// Whether the page lists the author's other books: it names many titles,
/// none ours.
fn lists_other_books(pl: &PageLayout) -> bool {
    pl.content_lines().any(|(_, l)| {
        let f = fold(&l.text);
        f.starts_with("also by")
            || f.starts_with("by the same author")
            || f.starts_with("other books by")
    })
}

/// What the score of a heading on one page depends on besides the heading.
struct HeadingPage<'p> {
    pl: &'p PageLayout<'p>,
    body: f32,
    height: f32,
    display: bool,
    /// The blocks that may be a title with their penalties, best first.
    plausible: Vec<(usize, f32)>,
    /// A short line naming a publisher is on the page.
    imprint: bool,
    /// The copyright page is set small and names the book in passing.
    imprint_page: bool,
}

/// Where lines of names are around one heading block.
struct NamesAround {
    /// Names (or a marked "by") anywhere on the page outside the block.
    elsewhere: bool,
    /// Names right under the block.
    below: bool,
    /// A byline close above or below (titles carry one, logos do not).
    near: bool,
}

impl<'p> HeadingPage<'p> {
    fn new(layout: &Layout, pl: &'p PageLayout<'p>) -> Self {
        let mut plausible: Vec<(usize, f32)> = pl
            .title_penalties
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (i, p)))
            .collect();
        // Penalised blocks rank after clean ones (unless clearly larger),
        // then by font size.
        plausible.sort_by(|a, b| {
            (!pl.ranks_as_title(a.0))
                .cmp(&!pl.ranks_as_title(b.0))
                .then(pl.blocks[b.0].size.total_cmp(&pl.blocks[a.0].size))
        });
        let imprint = pl.content_lines().any(|(_, l)| {
            IMPRINT.is_match(&l.text)
                && l.text.split_whitespace().count() <= 6
                && title_penalty(&l.text).is_some()
        });
        let imprint_page = pl
            .content_lines()
            .any(|(_, l)| IMPRINT_PAGE.is_match(&l.text));
        HeadingPage {
            pl,
            body: layout.body_size,
            height: pl.page.height.max(1.0),
            display: pl.is_display(),
            plausible,
            imprint,
            imprint_page,
        }
    }

    /// The lines of names around block `b`.
    fn names_around(&self, b: &Block) -> NamesAround {
        let pl = self.pl;
        let kinds: Vec<(usize, &LineKind)> = pl.kinds.iter().enumerate().collect();
        let elsewhere = kinds.iter().any(|(i, k)| {
            !b.lines.contains(i)
                && matches!(
                    k,
                    LineKind::Names { .. } | LineKind::Connector { marked: true, .. }
                )
        });
        let below = kinds.iter().any(|(i, k)| {
            let l = &pl.rows[*i];
            matches!(k, LineKind::Names { .. })
                && !b.lines.contains(i)
                && l.bbox.top >= b.bottom - 1.0
                && l.bbox.top - b.bottom <= b.size.max(8.0) * 3.5
        });
        let near = kinds.iter().any(|(i, k)| {
            let l = &pl.rows[*i];
            let gap = if l.bbox.top >= b.bottom - 1.0 {
                l.bbox.top - b.bottom
            } else {
                b.top - l.bbox.bottom
            };
            matches!(
                k,
                LineKind::Names { .. } | LineKind::Connector { marked: true, .. }
            ) && !b.lines.contains(i)
                && gap <= b.size.max(8.0) * 6.0
        });
        NamesAround {
            elsewhere,
            below,
            near,
        }
    }

    /// The score of block `b` from the kind of page and where it sits,
    /// before its size and penalties count.
    fn base_score(&self, b: &Block, names: &NamesAround, rank: usize, ratio: f32) -> (f32, String) {
        if self.display {
            let mut s = 0.4;
            let mut why = String::from("display page");
            if names.elsewhere {
                s += 0.25;
                why.push_str(" with names");
            }
            if names.near {
                s += 0.05;
            }
            if self.imprint {
                s += 0.1;
                why.push_str(" and imprint");
            }
            if !names.elsewhere && !self.imprint {
                why = "half-title or display page".into();
            }
            (s, why)
        } else if b.top < self.height * 0.45 && names.below && ratio >= 1.05 {
            (0.65, String::from("paper heading over a byline"))
        } else if self.pl.page.index == 0
            && rank == 0
            && b.top < self.height * 0.45
            && ratio >= 1.15
        {
            // A paper whose byline was not recognised still opens with its title.
            (0.4, String::from("first-page heading"))
        } else {
            (0.12, String::from("heading on a text page"))
        }
    }

    /// The score of block `b` (ranked `rank` by size, `ratio` times the
    /// body size, with its title `penalty`) and why, before echoes on
    /// other pages count.
    fn score(&self, b: &Block, rank: usize, ratio: f32, penalty: f32) -> (f32, String) {
        let names = self.names_around(b);
        let (mut score, mut why) = self.base_score(b, &names, rank, ratio);
        score += (ratio - 1.0).clamp(0.0, 1.5) * 0.1;
        if ratio < 1.0 {
            score -= 0.25;
        } else if self.display && ratio < 1.1 {
            score -= 0.1;
        }
        if self.imprint_page {
            score -= 0.2;
            why.push_str(", copyright page");
        }
        // Second by size; no penalty when the two are about the same size.
        let lead_size = self
            .plausible
            .first()
            .map_or(b.size, |&(i, _)| self.pl.blocks[i].size);
        if rank > 0 && b.size < lead_size * 0.95 {
            score -= 0.15;
        }
        if matches!(classify(&b.text), LineKind::Names { .. })
            && !names.elsewhere
            && self.plausible.len() > 1
        {
            // The author's name set large above or below the title (with
            // another byline on the page, this is a title that reads like
            // a name, such as "Upland Pastures").
            score -= 0.25;
        }
        score -= penalty;
        (score, why)
    }
}

/// Words a title never ends with: a line ending in one goes on in the
/// line under it.
const OPEN_ENDS: &[&str] = &[
    "of", "the", "a", "an", "to", "for", "and", "in", "on", "with", "from", "into", "at", "der",
    "die", "das", "des", "und", "von", "zur", "zum", "le", "la", "les", "du", "de", "et", "el",
    "los", "las", "del", "y", "il", "di", "della",
];

/// A title set over lines of different sizes: a smaller block right over
/// block `bi` that cannot stand alone because it ends with an article,
/// preposition or conjunction ("A Gazetteer of" over "Closed Railway
/// Stations", a lone "The" set apart). Its index, if any.
fn lead_in(pl: &PageLayout, bi: usize) -> Option<usize> {
    let b = &pl.blocks[bi];
    let (li, lead) = pl
        .blocks
        .iter()
        .enumerate()
        .filter(|(i, a)| *i != bi && a.bottom <= b.top + 1.0)
        .max_by(|x, y| x.1.bottom.total_cmp(&y.1.bottom))?;
    let words: Vec<String> = fold(&lead.text).split(' ').map(str::to_string).collect();
    let close = b.top - lead.bottom <= b.size.max(lead.size);
    let overlaps = lead.x0 < b.x1 && b.x0 < lead.x1;
    let smaller = lead.size < b.size * 0.95 && lead.size >= b.size * 0.3;
    let open = words
        .last()
        .is_some_and(|w| OPEN_ENDS.contains(&w.as_str()));
    (close && overlaps && smaller && open && words.len() <= 8 && lead.lines.len() <= 2)
        .then_some(li)
}

/// Blocks in the upper part of an opening page that sit right over a line
/// of names, however small their type: an article set in one size (a
/// bulletin, a package manual) still prints its title over its byline.
/// Weak on their own (a block also proposed by size joins that candidate's
/// cluster); the ranker weighs them with everything else.
fn bylined_headings(pl: &PageLayout, out: &mut Vec<Candidate>) {
    let height = pl.page.height.max(1.0);
    for (bi, b) in pl.blocks.iter().enumerate() {
        if pl.title_penalties[bi] != Some(0.0)
            || b.lines.len() > 3
            || b.top > height * 0.45
            || matches!(classify(&b.text), LineKind::Names { .. })
        {
            continue;
        }
        if pl.byline_under(bi, 2.5) {
            let why = format!("block over a byline, {:.1}pt", b.size);
            push_pair(out, pl, &b.text, subtitle_under(pl, bi), 0.3, &why);
        }
    }
}

/// Other pages whose text contains the candidate's words in order (a
/// half-title, a running head, the copyright page).
fn echoes(text: &str, pi: usize, folded_pages: &[String]) -> usize {
    let f = fold(text);
    let n = tokens(text).len();
    if n < 3 {
        return 0;
    }
    let needle = format!(" {f} ");
    folded_pages
        .iter()
        .enumerate()
        .filter(|(i, p)| *i != pi && p.contains(&needle))
        .count()
}

/// The subtitle: the next block under the title, smaller (or a "Volume 2:
/// ..." line), close below it, and not a byline, credit or bare edition.
fn subtitle_under(pl: &PageLayout, bi: usize) -> Option<String> {
    subtitle_block(pl, bi).and_then(|ni| subtitle_text(pl, bi, ni))
}

/// The block right under block `bi`, if it reads as its subtitle.
fn subtitle_block(pl: &PageLayout, bi: usize) -> Option<usize> {
    let b = &pl.blocks[bi];
    let ni = pl
        .blocks
        .iter()
        .enumerate()
        .filter(|(i, x)| *i != bi && x.top >= b.bottom - 1.0)
        .min_by(|a, c| a.1.top.total_cmp(&c.1.top))?
        .0;
    subtitle_text(pl, bi, ni).map(|_| ni)
}

/// Block `ni` cleaned as the subtitle of block `bi`, if it can be one.
fn subtitle_text(pl: &PageLayout, bi: usize, ni: usize) -> Option<String> {
    let b = &pl.blocks[bi];
    let next: &Block = &pl.blocks[ni];
    if next.top - b.bottom > b.size * 4.0 {
        return None;
    }
    let volume = next.text.trim_start().to_lowercase().starts_with("vol");
    if next.size > b.size * 0.97 && !volume {
        return None;
    }
    if next.text.split_whitespace().count() > 30 {
        return None;
    }
    let byline = next.lines.iter().any(|&i| {
        matches!(
            pl.kinds[i],
            LineKind::Names { .. } | LineKind::Connector { .. } | LineKind::Credit
        )
    });
    if byline || INSTITUTION.is_match(&next.text) {
        return None;
    }
    let sub = clean_subtitle(&next.text)?;
    // An edition statement in any language the edition finder reads
    // ("Quatrième édition revue", "Изд. 2-е, перераб.").
    let edition_line = edition::statements(&sub).iter().any(|st| st.start == 0);
    if edition_line {
        return None;
    }
    if !volume
        && (NEVER.is_match(&sub)
            || DATE.is_match(&sub)
            || (GENRE.is_match(&sub) && !LITERARY_FORM.is_match(&sub))
            || LABEL.is_match(&sub)
            || SERIES.is_match(&sub))
    {
        return None;
    }
    Some(sub)
}

/// A literary form under a title ("A Novel", "Roman", "Poems"): never a
/// title, but printed as the book's other title information, so a
/// subtitle.
static LITERARY_FORM: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^(?:(?:a|an|ein|eine|un|une)\s+)?(?:novel|novella|roman|poems|stories|essays|erzählungen|erzählung|gedichte|nouvelles|poèmes|récit|роман|повесть|рассказы|стихи|стихотворения)$")
        .unwrap()
});

/// The series a book belongs to, printed under its title ("Series in
/// Applied Physics", "Harwell Studies in Law", "Серия «…»"): not its
/// subtitle.
static SERIES: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^(?:series|серия|reihe|collection|bibliothèque)\b|^(?-i:\p{Lu})\p{L}+\s+(?:studies|series|texts|monographs|library)\s+(?:in|on|of)\b")
        .unwrap()
});

static CIP_TITLE: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"(?m)^Title:\s*").unwrap());
static CIP_NEXT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?m)^(?:Names|Other titles|Description|Identifiers|Subjects|Classification|LC record|LC ebook record|Series|Summary|Audience)\s*:").unwrap()
});
static COLOPHON: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?m)^(\p{Lu}[^\n]{2,150}?)\s+(?:was|is)\s+(?:first\s+|originally\s+)?published\s+(?:in\s+\d{4}\s+)?by\b").unwrap()
});

/// Titles stated in words: CIP data and colophon sentences.
fn statement_titles(pl: &PageLayout, out: &mut Vec<Candidate>) {
    let joined = pl
        .content_lines()
        .map(|(_, l)| l.text.trim())
        .collect::<Vec<_>>()
        .join("\n");
    cip_title(pl, &joined, out);
    chinese_cip_title(pl, &joined, out);
    colophon_titles(pl, &joined, out);
}

/// The title of Library of Congress CIP data: "Title: X : Y / by A."
/// (may wrap), in the page's lines `joined`.
fn cip_title(pl: &PageLayout, joined: &str, out: &mut Vec<Candidate>) {
    if let Some(m) = CIP_TITLE.find(joined) {
        let rest = &joined[m.end()..];
        let end = CIP_NEXT.find(rest).map_or(rest.len(), |n| n.start());
        let field = join_lines(rest[..end].lines());
        let title_part = field.split(" / ").next().unwrap_or("");
        let title_part = title_part
            .split(" = ")
            .next()
            .unwrap_or("")
            .trim()
            .trim_end_matches('.');
        if title_penalty(title_part).is_some() && !title_part.is_empty() {
            let (t, s) = match title_part.split_once(" : ") {
                Some((t, s)) => (t.trim(), Some(s.trim().to_string())),
                None => (title_part, None),
            };
            push(
                out,
                pl,
                Field::Title,
                t.to_string(),
                0.5,
                "CIP title".into(),
            );
            if let Some(s) = s {
                push(out, pl, Field::Subtitle, s, 0.5, "CIP title".into());
            }
        }
    }
}

/// The title of Chinese CIP data: the line after "图书在版编目（CIP）数据",
/// "书名：副书名 / 著者".
fn chinese_cip_title(pl: &PageLayout, joined: &str, out: &mut Vec<Candidate>) {
    let lines: Vec<&str> = joined.lines().collect();
    if let Some(k) = lines
        .iter()
        .position(|l| l.contains("在版编目") || l.contains("在版編目"))
    {
        for l in lines.iter().skip(k + 1).take(3) {
            if let Some((t, _)) = l.split_once('/')
                && t.chars().any(is_cjk)
            {
                let (title, sub) = match t.split_once('：').or_else(|| t.split_once(':')) {
                    Some((a, b)) => (a.trim(), clean_subtitle(b)),
                    None => (t.trim(), None),
                };
                if title_penalty(title).is_some() {
                    push(
                        out,
                        pl,
                        Field::Title,
                        title.to_string(),
                        0.5,
                        "CIP title".into(),
                    );
                    if let Some(s) = sub {
                        push(out, pl, Field::Subtitle, s, 0.5, "CIP title".into());
                    }
                }
                break;
            }
        }
    }
}

/// Titles named in colophon sentences: "Letters from a Slow Boat was
/// published in 2019 by ...".
fn colophon_titles(pl: &PageLayout, joined: &str, out: &mut Vec<Candidate>) {
    for c in COLOPHON.captures_iter(joined) {
        let t = c[1].trim();
        let f = fold(t);
        let generic = [
            "this",
            "the book",
            "the text",
            "it",
            "all",
            "no part",
            "the author",
            "the present",
            "the paper",
            "the cover",
            "the type",
        ]
        .iter()
        .any(|g| f == *g || f.starts_with(&format!("{g} ")));
        if !generic && t.split_whitespace().count() <= 20 && title_penalty(t).is_some() {
            push_pair(out, pl, t, None, 0.35, "colophon sentence");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::testutil::*;
    use super::*;
    use crate::model::PageText;

    fn text(c: &Candidate) -> &str {
        match &c.value {
            Value::Text(t) => t,
            v => panic!("{v:?}"),
        }
    }

    /// The best title and the subtitle emitted with it.
    fn best(pages: &[PageText], count: u32) -> (String, Option<String>, Candidate) {
        let doc = DocText {
            pages,
            page_count: count,
        };
        let c = find(&doc);
        let t = c
            .iter()
            .filter(|c| c.field == Field::Title)
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .expect("a title")
            .clone();
        let s = c
            .iter()
            .find(|s| s.field == Field::Subtitle && s.page == t.page && s.score == t.score)
            .map(|s| text(s).to_string());
        (text(&t).to_string(), s, t)
    }

    #[test]
    fn article_set_in_one_size_offers_the_block_over_its_byline() {
        // A bulletin article: running head, bold title, byline and
        // abstract in the body size. The title is a candidate, however
        // weak, and the byline is not part of it.
        let doc = DocText {
            pages: &[bulletin_article_page()],
            page_count: 9,
        };
        let found = find(&doc);
        assert!(
            found.iter().any(|c| c.field == Field::Title
                && text(c) == "The quillmark package"
                && c.why.starts_with("block over a byline")),
            "{found:#?}"
        );
    }

    #[test]
    fn a_title_over_lines_of_mixed_sizes_stays_whole() {
        // "A Register of" set small over the large words of the title.
        let pages = [
            page(
                0,
                &[
                    ("A Register of", 14.0, 120.0),
                    ("Vanished Tide Mills", 30.0, 140.0),
                    ("Tamsin Orrell", 14.0, 230.0),
                    ("Wherry & Lode", 11.0, 560.0),
                ],
            ),
            body_page(1, None),
            body_page(2, None),
        ];
        let (t, _, _) = best(&pages, 12);
        assert_eq!(t, "A Register of Vanished Tide Mills");
        // A leading article set apart.
        let pages = [
            page(
                0,
                &[
                    ("The", 12.0, 100.0),
                    ("Salt Road Almanac", 32.0, 116.0),
                    ("Tamsin Orrell", 14.0, 230.0),
                ],
            ),
            body_page(1, None),
        ];
        let (t, _, _) = best(&pages, 12);
        assert_eq!(t, "The Salt Road Almanac");
        // A series line over the title is no part of it.
        let pages = [
            page(
                0,
                &[
                    ("Studies in Coastal Trades", 12.0, 100.0),
                    ("Salt Road Almanac", 32.0, 116.0),
                    ("Tamsin Orrell", 14.0, 230.0),
                ],
            ),
            body_page(1, None),
        ];
        let (t, _, _) = best(&pages, 12);
        assert_eq!(t, "Salt Road Almanac");
    }

    #[test]
    fn title_page_beats_half_title_and_keeps_spaces() {
        let pages = [
            page(0, &[("The Ledger and the Lantern", 16.2, 209.0)]),
            page(
                1,
                &[
                    ("Also by Rosalind Ashcombe", 11.9, 125.0),
                    (
                        "Ink and Ledger: Bookkeeping in Late Georgian Bristol",
                        10.2,
                        153.0,
                    ),
                ],
            ),
            page(
                3,
                &[
                    ("The Ledger and the", 25.9, 127.3),
                    ("Lantern", 25.9, 154.8),
                    ("Quantitative Tools for Archivists", 15.1, 193.5),
                    ("Rosalind Ashcombe", 15.1, 281.7),
                    ("Second edition", 8.6, 463.3),
                    ("Ashdown & Pryce", 11.3, 557.1),
                    ("LONDON AND NEW YORK", 11.3, 571.3),
                ],
            ),
            body_page(5, Some("The Ledger and the Lantern")),
            body_page(6, None),
        ];
        let (t, s, c) = best(&pages, 16);
        assert_eq!(t, "The Ledger and the Lantern");
        assert_eq!(s.as_deref(), Some("Quantitative Tools for Archivists"));
        assert_eq!(c.page, Some(3));
        let doc = DocText {
            pages: &pages,
            page_count: 16,
        };
        let half = find(&doc)
            .into_iter()
            .find(|c| c.page == Some(0) && c.field == Field::Title)
            .expect("half-title candidate");
        assert!(half.score < c.score);
    }

    #[test]
    fn masthead_label_logo_and_watermark_are_not_titles() {
        let mut lines = vec![
            line_at("TECHNICAL REPORT", 14.8, 36.0, 45.0),
            line_at(
                "Seedmap3: spliced alignment for long protein reads",
                12.5,
                71.8,
                45.0,
            ),
            line_at("Wei Tan", 8.4, 92.9, 45.0),
            line_at(
                "Lakemont Institute, 220 Harbor Street, Halverton, MA 02199, USA",
                6.9,
                109.0,
                45.0,
            ),
            line_at("DRAFT", 60.0, 300.0, 100.0),
        ];
        for k in 0..25 {
            let mut l = line_at(
                "or slow to handle such reads in bulk, which presses for the",
                7.0,
                150.0 + k as f32 * 11.0,
                45.0,
            );
            l.bbox.x1 = 400.0;
            lines.push(l);
        }
        let mut pages = vec![page_of(0, lines)];
        for i in 1..4 {
            let mut p = body_page(i, None);
            p.lines.push(line_at("DRAFT", 60.0, 300.0, 100.0));
            pages.push(p);
        }
        let (t, s, _) = best(&pages, 6);
        assert_eq!(t, "Seedmap3");
        assert_eq!(
            s.as_deref(),
            Some("spliced alignment for long protein reads")
        );

        let pages = [page(
            0,
            &[
                ("Lattice: the Plot Description", 15.3, 215.9),
                ("Language", 15.3, 242.8),
                ("For version 2.85", 9.1, 272.4),
                ("ographia", 20.7, 330.5),
            ],
        )];
        let (t, s, _) = best(&pages, 196);
        assert_eq!(t, "Lattice");
        assert_eq!(s.as_deref(), Some("the Plot Description Language"));
    }

    #[test]
    fn version_and_edition_tails_are_not_part_of_the_title() {
        assert_eq!(without_edition_tail("tex-locale v1.0"), "tex-locale");
        assert_eq!(
            without_edition_tail("Support for Lato Version 3.3"),
            "Support for Lato"
        );
        assert_eq!(
            without_edition_tail("The Harbour Ledger, Second Edition"),
            "The Harbour Ledger"
        );
        assert_eq!(without_edition_tail("Version 2.1"), "Version 2.1");
        assert_eq!(
            without_edition_tail("Python 3 Patterns"),
            "Python 3 Patterns"
        );
    }

    #[test]
    fn journal_header_loses_to_paper_title() {
        let mut lines = vec![
            line_at("Journal of Modelling Software", 21.5, 96.4, 202.0),
            line_at("October 2018, Volume 64, Issue 4.", 8.3, 130.0, 187.0),
            line_at(
                "Robust Self-Adjusting Trees in arborist 3.0",
                12.9,
                222.0,
                112.0,
            ),
            line_at("Bas Veldkamp", 9.0, 268.4, 166.0),
            line_at("Maarten Oosterbroek", 9.0, 268.4, 331.0),
            line_at("Abstract", 7.5, 331.6, 279.0),
        ];
        for k in 0..20 {
            let mut l = line_at(
                "Self-adjusting trees (SATs) are popular tools for indexing and searching",
                9.0,
                350.0 + k as f32 * 12.0,
                80.0,
            );
            l.bbox.x1 = 400.0;
            lines.push(l);
        }
        let pages = [
            page_of(0, lines),
            body_page(1, Some("2 Robust Self-Adjusting Trees in arborist 3.0")),
        ];
        let (t, s, c) = best(&pages, 18);
        assert_eq!(t, "Robust Self-Adjusting Trees in arborist 3.0");
        assert_eq!(s, None);
        assert!(c.why.contains("echoed"), "{}", c.why);
    }

    #[test]
    fn subtitle_loses_edition_and_version_tails() {
        let pages = [page(
            0,
            &[
                ("The Pyxis Markov Toolbox", 15.3, 215.9),
                ("Builder’s Guide, Edition 1 for release 1.2.7", 8.1, 246.2),
                ("2020-03-21", 8.1, 259.1),
                ("Fabio Cervellin", 10.6, 673.0),
            ],
        )];
        let (t, s, _) = best(&pages, 101);
        assert_eq!(t, "The Pyxis Markov Toolbox");
        assert_eq!(s.as_deref(), Some("Builder’s Guide"));

        let pages = [page(
            0,
            &[
                ("纸本保护方法", 24.9, 185.7),
                ("——概论与案例", 12.4, 235.6),
                ("（第 3 版）", 12.4, 258.9),
                ("刘雨桐 吴建国 郑浩 编著", 11.6, 320.1),
                ("青峦大学出版社", 8.7, 622.0),
            ],
        )];
        let (t, s, _) = best(&pages, 16);
        assert_eq!(t, "纸本保护方法");
        assert_eq!(s.as_deref(), Some("概论与案例"));
    }

    #[test]
    fn subtitles_in_several_languages_and_what_is_not_one() {
        let under = |line: &str| {
            let pages = [page(
                1,
                &[
                    ("Die Stunden von Kranichsee", 22.0, 150.0),
                    (line, 12.0, 185.0),
                    ("Ottilie Marwenau", 12.0, 300.0),
                ],
            )];
            let (t, s, _) = best(&pages, 12);
            assert_eq!(t, "Die Stunden von Kranichsee");
            s
        };
        assert_eq!(under("Eine Einführung").as_deref(), Some("Eine Einführung"));
        assert_eq!(under("A Novel").as_deref(), Some("A Novel"));
        assert_eq!(under("Роман").as_deref(), Some("Роман"));
        assert_eq!(
            under("Studien zur Geschichte der Uhrmacherei").as_deref(),
            Some("Studien zur Geschichte der Uhrmacherei")
        );
        for not_one in [
            "3., erweiterte und aktualisierte Auflage",
            "Third revised and expanded edition",
            "6e édition mise à jour",
            "6-е издание",
            "Quatrième édition revue et augmentée",
            "Изд. 2-е, перераб. и доп.",
            "Textes réunis par",
            "Составители",
            "Harwell Studies in Law",
            "Серия «Полярная звезда»",
            "Édité par",
            "Ответственный редактор",
            "Technical Report",
        ] {
            assert_eq!(under(not_one), None, "{not_one}");
        }
    }

    #[test]
    fn volume_line_is_a_subtitle_not_a_title() {
        let pages = [
            page(
                0,
                &[
                    ("Inventory of the Kittering-Lisle Bequest", 14.0, 218.0),
                    ("Volume 2", 14.0, 234.0),
                ],
            ),
            page(
                1,
                &[
                    ("A Descriptive Inventory of the Maps,", 11.9, 118.2),
                    ("Deeds and Early Pamphlets Donated to the", 11.9, 135.3),
                    ("Library of Ashworth College", 11.9, 152.5),
                    ("Volume 2: Maps and Deeds", 12.9, 200.0),
                    ("compiled by", 12.9, 263.4),
                    ("Harriet Coombe", 12.9, 279.6),
                    ("ASHWORTH COLLEGE LIBRARY", 11.3, 578.2),
                    ("Kendal", 11.3, 592.4),
                ],
            ),
            body_page(2, None),
        ];
        let (t, s, c) = best(&pages, 15);
        assert_eq!(
            t,
            "A Descriptive Inventory of the Maps, Deeds and Early Pamphlets Donated to the Library of Ashworth College"
        );
        assert_eq!(s.as_deref(), Some("Volume 2: Maps and Deeds"));
        assert_eq!(c.page, Some(1));
    }

    #[test]
    fn cip_and_colophon_titles() {
        let pages = [
            page(
                4,
                &[
                    (
                        "Library of Congress Cataloging-in-Publication Data",
                        7.9,
                        442.0,
                    ),
                    ("Names: Ashcombe, Rosalind, author.", 7.9, 451.0),
                    (
                        "Title: The ledger and the lantern : quantitative tools for archivists / Rosalind",
                        7.9,
                        460.0,
                    ),
                    ("Ashcombe.", 7.9, 469.0),
                    ("Description: Second edition.", 7.9, 478.0),
                ],
            ),
            page(
                15,
                &[
                    (
                        "Letters from a Slow Boat was published in 2019 by Quiet Harbour",
                        9.0,
                        300.0,
                    ),
                    ("Press, Halifax, Nova Scotia.", 9.0, 312.0),
                ],
            ),
        ];
        let doc = DocText {
            pages: &pages,
            page_count: 17,
        };
        let c = find(&doc);
        let titles: Vec<&str> = c
            .iter()
            .filter(|c| c.field == Field::Title)
            .map(text)
            .collect();
        assert!(titles.contains(&"The ledger and the lantern"), "{titles:?}");
        assert!(titles.contains(&"Letters from a Slow Boat"), "{titles:?}");
        let subs: Vec<&str> = c
            .iter()
            .filter(|c| c.field == Field::Subtitle)
            .map(text)
            .collect();
        assert_eq!(subs, vec!["quantitative tools for archivists"]);
    }

    #[test]
    fn all_capitals_title_page_takes_the_genre_line_as_subtitle() {
        let pages = [
            page(
                0,
                &[
                    ("THE SILENT HARBOUR", 30.0, 150.0),
                    ("A NOVEL", 14.0, 200.0),
                    ("BY MARGARET O'NEILL", 14.0, 300.0),
                    ("HARBOR LIGHT BOOKS", 10.0, 580.0),
                ],
            ),
            body_page(1, None),
        ];
        let (t, s, c) = best(&pages, 200);
        // Never the title; the book's other title information, as a
        // catalogue records it.
        assert_eq!(t, "THE SILENT HARBOUR");
        assert_eq!(s.as_deref(), Some("A NOVEL"));
        assert!(c.why.contains("names"), "{}", c.why);
    }

    #[test]
    fn first_page_heading_without_a_recognised_byline() {
        let mut p = body_page(0, None);
        // Push the running text down and put a title over it.
        for l in &mut p.lines {
            l.bbox.top += 120.0;
            l.bbox.bottom += 120.0;
        }
        p.lines.retain(|l| l.bbox.bottom < 640.0);
        p.lines.insert(0, line("Notes on Sparse Grids", 18.0, 80.0));
        let pages = [p, body_page(1, None), body_page(2, None)];
        let (t, _, c) = best(&pages, 12);
        assert_eq!(t, "Notes on Sparse Grids");
        assert!(c.score >= 0.3, "{c:?}");
    }

    #[test]
    fn ocr_cover_logo_loses_to_title_with_byline() {
        let mut p = page_of(
            0,
            vec![
                line_at("ZA Gatlis", 17.4, 117.6, 59.5),
                line_at("THE APPLIED", 7.2, 162.7, 193.0),
                line_at("TECHNICAL SYSTEMS", 7.2, 170.4, 192.5),
                line_at("ASSOCIATION", 7.2, 178.1, 192.5),
                line("To SYNC or Not to SYNC: Durability of", 17.3, 255.8),
                line("Log-Structured File Systems", 15.0, 281.3),
                line(
                    "Venkata Sai Ravi Chaluvadi, Harbor Point University; Dmitri Kolesnikov,",
                    10.1,
                    310.6,
                ),
                line(
                    "Norvale Research-Eastfield; Amit Barzel, Harbor Point University",
                    10.1,
                    329.3,
                ),
                line("This paper is included in the Proceedings of", 12.6, 441.6),
            ],
        );
        p.via = crate::model::Via::Ocr;
        let pages = [p, body_page(1, None)];
        let (t, s, c) = best(&pages, 15);
        assert_eq!(t, "To SYNC or Not to SYNC");
        assert_eq!(
            s.as_deref(),
            Some("Durability of Log-Structured File Systems")
        );
        assert_eq!(c.via, crate::model::Via::Ocr);
    }
}
