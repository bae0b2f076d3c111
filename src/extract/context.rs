//! Shared reading of page text for the field finders: what kind of page a
//! page is (title page, copyright/imprint page, "also by" page, reference
//! list, index, back cover ...), which lines of it belong to a reference list
//! or an "also by" list, where a line sits (header, body, footer), its font
//! size relative to the page's body text, and which line continues it.
//!
//! The finders use this to score the same printed value differently by
//! where it is printed: an ISBN on the copyright page is the book's own, the
//! same pattern under "Also by" or in a bibliography is somebody else's.
//! Classification is by printed wording and layout only (no corpus
//! knowledge), in English plus the common German, French, Spanish, Czech and
//! Chinese wordings; everything is a heuristic and finders treat it as
//! evidence, not as truth.

use super::pattern::Pattern;
use crate::model::{Candidate, DocText, Field, PageText, Value, Via};
use std::sync::LazyLock;

/// What a page is, judged from its wording and layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageKind {
    /// Front page with one to three short lines (usually the bare title).
    HalfTitle,
    /// Front page with few words and no imprint wording: title page, cover,
    /// paper cover sheet.
    Title,
    /// A list of the author's or publisher's other books.
    AlsoBy,
    /// Copyright page, imprint, CIP block, colophon (front or back).
    Imprint,
    /// Table of contents.
    Contents,
    /// Running text.
    Body,
    /// Reference list / bibliography (from its heading, or continuing one).
    References,
    /// Back-of-book index.
    Index,
    /// "About the author" page.
    AboutAuthor,
    /// Last page with a price, barcode text or blurb.
    BackCover,
}

/// Which end of the document a page is nearer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Front,
    Back,
}

/// Vertical zone of a line on its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Band {
    /// Top 8 % of the page (running heads, journal header lines).
    Header,
    Body,
    /// Bottom 8 % of the page (running feet, page numbers, footnote-like
    /// journal lines).
    Footer,
}

/// One page with what the finders need to know about it.
#[derive(Debug, Clone)]
pub struct PageCtx<'a> {
    pub page: &'a PageText,
    pub kind: PageKind,
    pub part: Part,
    /// Pages between this one and the last page (0 for the last page).
    pub from_end: u32,
    /// Font size of the page's running text (character-weighted median).
    pub body_size: f32,
    /// Line text with OCR digit confusions repaired (same indices as
    /// `page.lines`); identical to the line text for `Via::Text` pages.
    digits: Vec<String>,
    /// Lines `[start, end)` that belong to a reference list.
    refs: Option<(usize, usize)>,
    /// Lines `[start, end)` that belong to an "also by" list.
    also_by: Option<(usize, usize)>,
    /// On a contents page, the line of its heading: the lines above it are
    /// not contents (a title block, a date).
    pub contents_head: Option<usize>,
    /// Line indices ordered by the top of their boxes (index on ties), for
    /// [`continuation`](Self::continuation); `None` when a box or a size
    /// is not finite, which that then reads line by line.
    by_top: Option<Vec<usize>>,
}

impl<'a> PageCtx<'a> {
    /// 0-based page index in the document.
    pub fn index(&self) -> u32 {
        self.page.index
    }

    pub fn via(&self) -> Via {
        self.page.via
    }

    /// Number of lines on the page.
    pub fn len(&self) -> usize {
        self.page.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.page.lines.is_empty()
    }

    /// The line as extracted.
    pub fn text(&self, line: usize) -> &str {
        &self.page.lines[line].text
    }

    /// The line with OCR digit confusions (`O`→`0`, `l`/`I`→`1` inside
    /// digit groups) repaired; use it to read numbers.
    pub fn digits(&self, line: usize) -> &str {
        &self.digits[line]
    }

    /// The line lies in a reference list / bibliography.
    pub fn in_references(&self, line: usize) -> bool {
        self.refs.is_some_and(|(a, b)| line >= a && line < b)
    }

    /// The line lies in an "also by" / other-titles list.
    pub fn in_also_by(&self, line: usize) -> bool {
        self.also_by.is_some_and(|(a, b)| line >= a && line < b)
    }

    /// Header, body or footer zone of the line.
    pub fn band(&self, line: usize) -> Band {
        let h = self.page.height;
        if h <= 0.0 {
            return Band::Body;
        }
        let r = &self.page.lines[line].bbox;
        if r.bottom <= 0.08 * h || r.top < 0.08 * h && r.bottom <= 0.1 * h {
            Band::Header
        } else if r.top >= 0.92 * h {
            Band::Footer
        } else {
            Band::Body
        }
    }

    /// Font size of the line relative to the page's running text (1.0 = body).
    pub fn rel_size(&self, line: usize) -> f32 {
        let s = self.page.lines[line].size;
        if self.body_size > 0.0 && s > 0.0 {
            s / self.body_size
        } else {
            1.0
        }
    }

    /// Vertical position of the line's top as a share of the page height.
    pub fn rel_top(&self, line: usize) -> f32 {
        if self.page.height > 0.0 {
            self.page.lines[line].bbox.top / self.page.height
        } else {
            0.5
        }
    }

    /// The line that continues `line` in reading order: the nearest line
    /// below it that overlaps it horizontally (so the next line of the same
    /// column, not the line beside it in the other column), within about two
    /// line heights.
    pub fn continuation(&self, line: usize) -> Option<usize> {
        let Some(by_top) = &self.by_top else {
            return self.continuation_scan(line);
        };
        // The candidates in order of their tops, from the first that is
        // not above the current line (same tests as the scan below, so
        // the same line is found; the publisher finder asks for every
        // line, and a scan of the page for each was a square of the page).
        let lines = &self.page.lines;
        let cur = &lines[line].bbox;
        let h = cur.height().max(lines[line].size).max(1.0);
        let from = by_top.partition_point(|&j| lines[j].bbox.top < cur.top + 0.5 * h);
        for &j in &by_top[from..] {
            let b = &lines[j].bbox;
            // Tops only grow from here, and so does the gap.
            if b.top - cur.bottom > 2.0 * h {
                break;
            }
            let overlap = cur.x1.min(b.x1) - cur.x0.max(b.x0);
            if j == line || overlap <= 0.0 {
                continue;
            }
            return Some(j);
        }
        None
    }

    /// [`continuation`](Self::continuation) by reading every line.
    fn continuation_scan(&self, line: usize) -> Option<usize> {
        let lines = &self.page.lines;
        let cur = &lines[line].bbox;
        let h = cur.height().max(lines[line].size).max(1.0);
        let mut best: Option<(usize, f32)> = None;
        for (j, l) in lines.iter().enumerate() {
            if j == line {
                continue;
            }
            let b = &l.bbox;
            // Below the current line (allowing a little overlap of boxes).
            if b.top < cur.top + 0.5 * h {
                continue;
            }
            let gap = b.top - cur.bottom;
            if gap > 2.0 * h {
                continue;
            }
            let overlap = cur.x1.min(b.x1) - cur.x0.max(b.x0);
            if overlap <= 0.0 {
                continue;
            }
            if best.is_none_or(|(_, t)| b.top < t) {
                best = Some((j, b.top));
            }
        }
        best.map(|(j, _)| j)
    }

    /// The line that `line` continues (inverse of [`continuation`](Self::continuation)).
    pub fn previous(&self, line: usize) -> Option<usize> {
        (0..self.len())
            .rev()
            .find(|&j| j != line && self.continuation(j) == Some(line))
    }

    /// Count of words with at least two letters on the page.
    pub fn word_count(&self) -> usize {
        self.page.word_count()
    }
}

/// Reads every page of the document into a [`PageCtx`], in page order.
pub fn read<'a>(doc: &DocText<'a>) -> Vec<PageCtx<'a>> {
    let mut out: Vec<PageCtx<'a>> = Vec::with_capacity(doc.pages.len());
    let mut prev_refs: Option<u32> = None;
    for page in doc.pages {
        let from_end = doc.page_count.saturating_sub(1).saturating_sub(page.index);
        let part = if page.index <= from_end {
            Part::Front
        } else {
            Part::Back
        };
        let digits: Vec<String> = page
            .lines
            .iter()
            .map(|l| match page.via {
                Via::Ocr | Via::Vision => repair_ocr_digits(&l.text),
                _ => l.text.clone(),
            })
            .collect();
        let continues_refs = prev_refs.is_some_and(|p| p + 1 == page.index);
        let (kind, refs, also_by) = classify(page, from_end, part, continues_refs);
        prev_refs = match refs {
            // A reference list that runs to the end of the page continues.
            Some((_, end)) if end == page.lines.len() => Some(page.index),
            _ => None,
        };
        // A manual often opens with its title block above the contents.
        let contents_head = (kind == PageKind::Contents)
            .then(|| {
                page.lines
                    .iter()
                    .position(|l| is_heading(&l.text.to_lowercase(), CONTENTS_HEADINGS))
            })
            .flatten();
        out.push(PageCtx {
            page,
            kind,
            contents_head,
            part,
            from_end,
            body_size: body_size(page),
            digits,
            refs,
            also_by,
            by_top: lines_by_top(page),
        });
    }
    out
}

/// The page's line indices ordered by the top of their boxes, index on
/// ties; `None` when a top, bottom or size is not finite.
fn lines_by_top(page: &PageText) -> Option<Vec<usize>> {
    let finite = page
        .lines
        .iter()
        .all(|l| l.bbox.top.is_finite() && l.bbox.bottom.is_finite() && l.size.is_finite());
    if !finite {
        return None;
    }
    let mut order: Vec<usize> = (0..page.lines.len()).collect();
    // `partial_cmp` (not `total_cmp`): -0 and 0 are one height, as in the scan.
    order.sort_by(|&a, &b| {
        let (ta, tb) = (page.lines[a].bbox.top, page.lines[b].bbox.top);
        ta.partial_cmp(&tb)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    Some(order)
}

/// Kind of one page on its own (no reference list carried over from the
/// previous page). `page_count` tells front from back matter.
pub fn page_kind(page: &PageText, page_count: u32) -> PageKind {
    let from_end = page_count.saturating_sub(1).saturating_sub(page.index);
    let part = if page.index <= from_end {
        Part::Front
    } else {
        Part::Back
    };
    classify(page, from_end, part, false).0
}

type Range = Option<(usize, usize)>;

/// A page's kind, with the ranges of its reference list and its "Also
/// by" list.
fn classify(
    page: &PageText,
    from_end: u32,
    part: Part,
    continues_refs: bool,
) -> (PageKind, Range, Range) {
    let n = page.lines.len();
    let words = page.word_count();
    let lower: Vec<String> = page.lines.iter().map(|l| l.text.to_lowercase()).collect();
    let nonempty = page
        .lines
        .iter()
        .filter(|l| !l.text.trim().is_empty())
        .count();

    let contents = is_contents(&lower);
    let imprint = imprint_markers(&lower);

    let (refs_head, refs) = reference_list(&lower, contents, continues_refs);
    let also_by = also_by_list(&lower);

    let top_heading = |set: &[&str]| lower.iter().take(4).any(|t| is_heading(t, set));
    let price = lower.iter().any(|t| PRICE.is_match(t));

    let kind = if contents {
        PageKind::Contents
    } else if refs.is_some_and(|(a, _)| a == 0) || refs_head.is_some_and(|a| a * 3 < n) {
        PageKind::References
    } else if top_heading(&[
        "index",
        "register",
        "stichwortverzeichnis",
        "索引",
        "rejstřík",
    ]) {
        PageKind::Index
    } else if also_by.is_some_and(|(a, b)| (b - a) * 2 >= nonempty) {
        PageKind::AlsoBy
    } else if (imprint >= 3 && words < 700) || (imprint >= 2 && words < 300) {
        PageKind::Imprint
    } else if top_heading(&[
        "about the author",
        "about the authors",
        "about the editor",
        "about the editors",
        "l'auteur",
        "über den autor",
        "über die autorin",
        "über die autoren",
    ]) {
        PageKind::AboutAuthor
    } else if (from_end == 0 && words < 250) || (price && from_end <= 1 && words < 250) {
        PageKind::BackCover
    } else if refs.is_some() {
        PageKind::References
    } else if part == Part::Front && page.index < 8 && words < 90 {
        if nonempty <= 3 {
            PageKind::HalfTitle
        } else {
            PageKind::Title
        }
    } else {
        PageKind::Body
    };
    (kind, refs, also_by)
}

/// Where a page's reference list is: the line of its heading, if any,
/// and the range of its lines. A list starts at a heading or is carried
/// over from the previous page (`continues_refs`).
fn reference_list(
    lower: &[String],
    contents: bool,
    continues_refs: bool,
) -> (Option<usize>, Range) {
    let n = lower.len();
    let refs_head = if contents {
        None
    } else {
        lower.iter().position(|t| is_heading(t, REFS_HEADINGS))
    };
    let refs_start = refs_head.or(if continues_refs { Some(0) } else { None });
    let mut refs = refs_start.map(|a| {
        let end = (a + 1..n)
            .find(|&j| is_heading(&lower[j], REFS_END_HEADINGS))
            .unwrap_or(n);
        (a, end)
    });
    // A run of citation-shaped lines without a heading (continued lists,
    // bibliographies whose heading was on an unread page).
    if refs.is_none() && !contents && n >= 8 {
        let cited = lower.iter().filter(|t| citation_like(t)).count();
        if cited * 10 >= n * 4 {
            refs = Some((0, n));
        }
    }
    (refs_head, refs)
}

/// Where a page's "Also by" list is: from its heading to the first
/// imprint line (a verso may carry both the list and the copyright
/// notice).
fn also_by_list(lower: &[String]) -> Range {
    let n = lower.len();
    let also_head = lower
        .iter()
        .take(6)
        .position(|t| ALSO_BY.is_match(t.trim()));
    also_head.map(|a| {
        let end = (a + 1..n)
            .find(|&j| IMPRINT_LINE.is_match(&lower[j]))
            .unwrap_or(n);
        (a, end)
    })
}

const REFS_HEADINGS: &[&str] = &[
    "references",
    "reference",
    "bibliography",
    "bibliographie",
    "bibliografie",
    "bibliografia",
    "bibliografía",
    "literature",
    "literature cited",
    "works cited",
    "references and notes",
    "notes and references",
    "literatur",
    "literaturverzeichnis",
    "literatura",
    "références",
    "références bibliographiques",
    "referencias",
    "riferimenti bibliografici",
    "参考文献",
    "참고문헌",
];

const REFS_END_HEADINGS: &[&str] = &[
    "index",
    "appendix",
    "affiliation",
    "affiliations",
    "about the author",
    "about the authors",
    "register",
    "anhang",
    "annexe",
];

/// The line, stripped of a section number and a trailing colon, is one of
/// the given headings (compared in lower case).
fn is_heading(lower: &str, set: &[&str]) -> bool {
    let t = lower.trim();
    if t.is_empty() || t.chars().count() > 40 {
        return false;
    }
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace());
    let t = t.trim_end_matches([':', '.']).trim();
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    set.iter().any(|h| t == *h)
}

const CONTENTS_HEADINGS: &[&str] = &[
    "contents",
    "table of contents",
    "brief contents",
    "inhalt",
    "inhaltsverzeichnis",
    "table des matières",
    "sommaire",
    "目录",
    "目 录",
    "目次",
    "obsah",
    "índice",
    "indice",
    "sumario",
];

fn is_contents(lower: &[String]) -> bool {
    let heading = lower
        .iter()
        .take(5)
        .any(|t| is_heading(t, CONTENTS_HEADINGS));
    let leaders = lower.iter().filter(|t| DOT_LEADER.is_match(t)).count();
    heading || leaders >= 5
}

/// Number of distinct imprint wordings on a page.
fn imprint_markers(lower: &[String]) -> usize {
    let text = lower.join("\n");
    IMPRINT_MARKERS
        .iter()
        .filter(|re| re.is_match(&text))
        .count()
}

static DOT_LEADER: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"(?:\.\s?){5,}\s*(?:\d+|[ivxlc]+)?\s*$").unwrap());

static ALSO_BY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"^(?:also\s+by\b|by\s+the\s+same\s+author|other\s+(?:books|titles|works)\s+by\b|also\s+available\b|also\s+from\b|other\s+titles\b|books\s+by\b|also\s+in\s+this\s+series|other\s+books\s+in\s+(?:this|the)\s+series|du\s+m[êe]me\s+auteur|chez\s+le\s+m[êe]me\s+[ée]diteur|vom\s+(?:gleichen|selben)\s+autor|von\s+(?:derselben|demselben)\s+autor|weitere\s+titel|bisher\s+erschienen|ebenfalls\s+(?:von|im)\b|(?:ouvrages|livres)\s+du\s+m[êe]me\s+auteur|другие\s+книги\b|книги\s+(?:того\s+же|этого)\s+автора|того\s+же\s+автора|также\s+(?:автора|в\s+серии)|von\s+.{3,80}?\s+(?:sind|ist)\s+(?:au(?:ß|ss)erdem|ebenfalls|bereits)\s+erschienen|книги\s+.{3,80}?\s+в\s+нашем\s+издательстве)",
    )
    .unwrap()
});

/// Whether a line is the heading of an "also by" list ("Also by Ann
/// Lee", "Chez le même éditeur", "Von Ann Lee sind außerdem erschienen"):
/// never a title, however large it is set.
pub(crate) fn is_also_by_heading(text: &str) -> bool {
    ALSO_BY.is_match(text.trim().to_lowercase().as_str())
}

/// A line that belongs to the imprint rather than to an "also by" list.
static IMPRINT_LINE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?:©|\(c\)|\bcopyright\b|\bpublished\b|all rights reserved|cataloging|cataloguing|library of congress|\bcip\b|printed in|first edition|édition|auflage|版权|图书在版编目)",
    )
    .unwrap()
});

static IMPRINT_MARKERS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    [
        r"©|\(c\)\s*\d{4}|\bcopyright\b|\bcopr\.",
        r"all rights reserved|tous droits|alle rechte vorbehalten|todos los derechos|все права защищены|版权所有",
        r"catalog(?:u)?ing[- ]in[- ]publication|\bcip\b|catalogue record|图书在版编目",
        r"library of congress|\blccn\b|deutsche(?:n)? nationalbibliothek|british library|dépôt légal",
        r"\bisbn\b",
        r"(?m)\bpublished\b(?:\s+\w+){0,4}\s+by\b|first published|edition published|\bpublished\s+(?:in\s+)?\d{4}|\bpublished in\b|is an imprint of|\bpublié|\bparu\s+en\b|^выпуск\s+\d{4}|^издано\b|出版发行|出版者",
        r"printed in\b|printed on\b|printed by\b|imprimé|gedruckt|\bprinting\b|reprinted|отпечатано|подписано в печать|印\s*刷",
        r"typeset\s+(?:in|by|with|using)\b|\bset\s+in\b|\bsatz:|cover design|umschlag|封面设计|责任编辑",
        r"permission is granted|verbatim cop|licen[cs]e[ds]? under|creative commons|\bcc by\b|open access",
        r"\bedition\b|\bauflage\b|\bédition\b|版\s*次",
    ]
    .iter()
    .map(|p| Pattern::new(p).unwrap())
    .collect()
});

static PRICE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?:[$£€¥]\s?\d{1,4}[.,]\d{2}\b|\b\d{1,4}[.,]\d{2}\s?(?:€|元|eur\b|usd\b|cad\b|gbp\b|chf\b)|\b(?:usd|cad|gbp|eur|us\s?\$|can\s?\$|a\$|定\s*价)\s?[:：]?\s?\d)")
        .unwrap()
});

static CITATION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r#"(?:^\s*\[\d{1,3}\]|^\s*(?:[a-z]+\s*)?=\s*[{"]|@[a-z]+\{|\(\d{4}[a-z]?\)|\bet al\b|\b\d{1,4}\s?\(\d{1,3}\)\s?[,:]|\bpp\.\s?\d|\bvol\.\s?\d|\bin proceedings\b|\bproc\.\s|“[^”]{8,}”)"#,
    )
    .unwrap()
});

/// The line looks like part of a bibliographic citation: a numbered
/// reference, a BibTeX field, an author-year `(2005)`, `et al.`,
/// `vol(issue)`, `pp.`, a quoted article title.
pub fn citation_like(text: &str) -> bool {
    let lower = text.to_lowercase();
    // Every branch of CITATION needs one of these characters or words, and
    // most lines hold none: skip the pattern then (same answer), since it
    // runs on nearly every line and is slow on non-ASCII text (`\b`).
    let may = lower.contains(['[', '=', '@', '(', '“'])
        || ["et al", "pp.", "vol.", "in proceedings", "proc."]
            .iter()
            .any(|w| lower.contains(w));
    may && CITATION.is_match(&lower)
}

/// The page or line prints a price (a back cover or a price list).
pub fn has_price(text: &str) -> bool {
    PRICE.is_match(&text.to_lowercase())
}

/// Character-weighted median font size of the page's lines.
fn body_size(page: &PageText) -> f32 {
    let mut sizes: Vec<(f32, usize)> = page
        .lines
        .iter()
        .filter(|l| l.size > 0.0)
        .map(|l| (l.size, l.text.chars().count()))
        .collect();
    if sizes.is_empty() {
        return 0.0;
    }
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: usize = sizes.iter().map(|s| s.1).sum();
    let mut acc = 0;
    for (s, n) in &sizes {
        acc += n;
        if acc * 2 >= total {
            return *s;
        }
    }
    sizes[sizes.len() - 1].0
}

/// Repairs the usual OCR confusions inside digit groups: `O`/`o` read for
/// `0`, `l`/`I`/`|` read for `1`. Only runs made of digits, confusable
/// letters, hyphens and single spaces, holding at least three real digits
/// and not glued to other letters, are touched, so words stay words.
pub fn repair_ocr_digits(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let conf = |c: char| matches!(c, 'O' | 'o' | 'l' | 'I' | '|');
    let member = |c: char| c.is_ascii_digit() || conf(c);
    let mut out = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if !member(chars[i]) || (i > 0 && chars[i - 1].is_alphabetic()) {
            i += 1;
            continue;
        }
        // Extend the run over members, hyphens and single spaces between members.
        let mut j = i;
        let mut end = i; // exclusive end of the last member seen
        while j < chars.len() {
            let c = chars[j];
            if member(c) {
                j += 1;
                end = j;
            } else if matches!(c, '-' | '‐' | '‑' | '–' | ' ')
                && j + 1 < chars.len()
                && member(chars[j + 1])
            {
                j += 1;
            } else {
                break;
            }
        }
        let glued = end < chars.len() && chars[end].is_alphabetic();
        let digits = chars[i..end].iter().filter(|c| c.is_ascii_digit()).count();
        // Each space-separated piece must itself start next to a digit or be
        // all digits/confusables (it is, by construction); words like "I" in
        // prose are only touched when digits surround them in the same run.
        if !glued && digits >= 3 {
            for c in out.iter_mut().take(end).skip(i) {
                *c = match *c {
                    'O' | 'o' => '0',
                    'l' | 'I' | '|' => '1',
                    x => x,
                };
            }
        }
        i = end.max(i + 1);
    }
    out.into_iter().collect()
}

/// Text before byte offset `at` in `s`, trimmed.
pub fn before(s: &str, at: usize) -> &str {
    s[..at].trim()
}

/// Number of words (whitespace-separated tokens with a letter) in `s`.
pub fn words(s: &str) -> usize {
    s.split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_alphabetic()))
        .count()
}

/// Helpers to build page text in unit tests.
/// Adds a candidate read from page `p`, or raises the score (and reason)
/// of the same value already found on that page: one candidate per value
/// and page, with its best evidence.
pub fn keep_best(
    out: &mut Vec<Candidate>,
    field: Field,
    p: &PageCtx,
    value: Value,
    score: f32,
    why: String,
) {
    match out
        .iter_mut()
        .find(|c| c.field == field && c.value == value && c.page == Some(p.index()))
    {
        Some(c) if c.score >= score => {}
        Some(c) => {
            c.score = score;
            c.why = why;
        }
        None => out.push(Candidate {
            field,
            value,
            score,
            page: Some(p.index()),
            via: p.via(),
            why,
        }),
    }
}

#[cfg(test)]
pub mod testutil {
    use crate::model::{PageText, Rect, TextLine, Via};

    /// A page of US-letter size whose lines are `(text, font size, top)`,
    /// each starting at x = 72 and as wide as its text.
    pub fn page(index: u32, lines: &[(&str, f32, f32)]) -> PageText {
        PageText {
            index,
            width: 612.0,
            height: 792.0,
            lines: lines
                .iter()
                .map(|&(text, size, top)| TextLine {
                    text: text.to_string(),
                    bbox: Rect {
                        x0: 72.0,
                        top,
                        x1: 72.0 + 0.5 * size * text.chars().count() as f32,
                        bottom: top + size,
                    },
                    size,
                    bold: false,
                })
                .collect(),
            image_ratio: 0.0,
            image: None,
            via: Via::Text,
            ocr_confidence: None,
        }
    }

    /// Lines of body text (10 pt, 12 pt apart) starting at `top`.
    pub fn body(index: u32, top: f32, lines: &[&str]) -> PageText {
        let v: Vec<(&str, f32, f32)> = lines
            .iter()
            .enumerate()
            .map(|(i, t)| (*t, 10.0, top + 12.0 * i as f32))
            .collect();
        page(index, &v)
    }

    /// The same page read by OCR.
    pub fn ocr(mut p: PageText) -> PageText {
        p.via = Via::Ocr;
        p.ocr_confidence = Some(80.0);
        p
    }

    /// Filler prose lines (to make a page a body page).
    pub const PROSE: &str =
        "The answer, as we shall see, lies partly in the method and partly in the record of it.";
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    fn kinds(pages: &[PageText], count: u32) -> Vec<PageKind> {
        let doc = DocText {
            pages,
            page_count: count,
        };
        read(&doc).iter().map(|p| p.kind).collect()
    }

    #[test]
    fn book_front_matter_kinds() {
        let half = page(0, &[("The Ledger and the Lantern", 18.0, 200.0)]);
        let also = body(
            1,
            100.0,
            &[
                "Also by Rosalind Ashcombe",
                "Ink and Ledger: Bookkeeping in Late Georgian Bristol",
                "(ISBN 978-1-85237-713-7)",
                "Tending the Sick",
                "(ISBN 978-1-85237-758-8)",
            ],
        );
        let title = page(
            2,
            &[
                ("The Ledger and the Lantern", 24.0, 150.0),
                ("Quantitative Tools for Archivists", 16.0, 200.0),
                ("Rosalind Ashcombe", 14.0, 300.0),
                ("Second edition", 12.0, 400.0),
                ("Ashdown & Pryce", 12.0, 650.0),
                ("LONDON AND NEW YORK", 10.0, 670.0),
            ],
        );
        let copy = body(
            3,
            80.0,
            &[
                "Second edition published 2022",
                "by Ashdown & Pryce",
                "© 2015, 2022 Rosalind Ashcombe",
                "Library of Congress Cataloging-in-Publication Data",
                "ISBN: 978-1-914673-40-5 (hbk)",
            ],
        );
        let contents = body(
            4,
            80.0,
            &[
                "Contents",
                "Preface . . . . . . . . . ix",
                "1 Sources into data . . . . . . 1",
            ],
        );
        let prose: Vec<&str> = std::iter::repeat_n(PROSE, 30).collect();
        let text = body(5, 80.0, &prose);
        let pages = [half, also, title, copy, contents, text];
        assert_eq!(
            kinds(&pages, 200),
            vec![
                PageKind::HalfTitle,
                PageKind::AlsoBy,
                PageKind::Title,
                PageKind::Imprint,
                PageKind::Contents,
                PageKind::Body
            ]
        );
    }

    #[test]
    fn references_heading_marks_following_lines_and_next_page() {
        let mut lines: Vec<&str> = std::iter::repeat_n(PROSE, 10).collect();
        lines.push("References");
        lines.push("Barth R (2018). Data synthesis. Computers, 144, 284–296.");
        let p1 = body(10, 80.0, &lines);
        let p2 = body(
            11,
            80.0,
            &[
                "Veldkamp B, Mertens L (2007). Self- and super-adjusting trees.",
                "Journal of Modelling Software, 21(5), 1–19.",
                "Affiliation:",
                "Bas Veldkamp",
                "Journal of Modelling Software published by the Foundation",
            ],
        );
        let pages = [p1, p2];
        let doc = DocText {
            pages: &pages,
            page_count: 12,
        };
        let ctx = read(&doc);
        assert!(!ctx[0].in_references(3));
        assert!(ctx[0].in_references(11));
        assert!(ctx[1].in_references(0));
        assert!(!ctx[1].in_references(4), "affiliation block ends the list");
        assert_eq!(ctx[1].kind, PageKind::References);
    }

    #[test]
    fn contents_entry_is_not_a_references_heading() {
        let p = body(
            3,
            80.0,
            &[
                "Inhaltsverzeichnis",
                "1 Modellierung . . . . . . . . 1",
                "Literatur . . . . . . . . . . 140",
            ],
        );
        assert_eq!(page_kind(&p, 15), PageKind::Contents);
    }

    #[test]
    fn back_cover_with_price() {
        let p = body(
            15,
            500.0,
            &["COOKING / General", "£14.99", "ISBN 979-8-41736-662-8"],
        );
        assert_eq!(page_kind(&p, 16), PageKind::BackCover);
    }

    #[test]
    fn ocr_digit_repair_touches_numbers_only() {
        assert_eq!(
            repair_ocr_digits("ISBN 978-O-91423-1O3-0"),
            "ISBN 978-0-91423-103-0"
        );
        assert_eq!(repair_ocr_digits("Copyright l972 by"), "Copyright 1972 by");
        assert_eq!(
            repair_ocr_digits("ISBN 978 l 9l4673 4O 5"),
            "ISBN 978 1 914673 40 5"
        );
        assert_eq!(repair_ocr_digits("Oliver Il Ol"), "Oliver Il Ol");
        assert_eq!(repair_ocr_digits("O-ring 12"), "O-ring 12");
    }

    #[test]
    fn continuation_by_tops_finds_what_the_scan_finds() {
        // Two columns, lines of one height (ties on top), a line set
        // higher than its index, overlapping boxes, a zero top of either
        // sign and a line of a huge size: every line's continuation is the
        // one the line-by-line reading finds.
        let mut rows: Vec<(&str, f32, f32)> = Vec::new();
        for i in 0..12 {
            rows.push(("left column words", 10.0, 100.0 + 11.0 * (i / 2) as f32));
            rows.push(("right column words", 10.0, 100.0 + 11.0 * (i / 3) as f32));
        }
        rows.push(("set above the rest", 9.0, 80.0));
        rows.push(("a zero top", 10.0, 0.0));
        rows.push(("a negative zero top", 10.0, -0.0));
        rows.push(("huge", 300.0, 120.0));
        let mut p = page(0, &rows);
        for (i, l) in p.lines.iter_mut().enumerate() {
            if i % 2 == 1 && i < 24 {
                l.bbox.x0 += 250.0;
                l.bbox.x1 += 250.0;
            }
        }
        let pages = [p];
        let doc = DocText {
            pages: &pages,
            page_count: 1,
        };
        let ctx = read(&doc);
        assert!(ctx[0].by_top.is_some());
        let mut found = 0;
        for i in 0..ctx[0].len() {
            assert_eq!(
                ctx[0].continuation(i),
                ctx[0].continuation_scan(i),
                "line {i}"
            );
            found += usize::from(ctx[0].continuation(i).is_some());
        }
        assert!(found >= 12, "{found}");
    }

    #[test]
    fn continuation_of_a_page_with_a_box_not_finite_reads_every_line() {
        let mut p = page(
            0,
            &[("first line", 10.0, 100.0), ("second line", 10.0, 111.0)],
        );
        p.lines[1].bbox.bottom = f32::NAN;
        let pages = [p];
        let doc = DocText {
            pages: &pages,
            page_count: 1,
        };
        let ctx = read(&doc);
        assert!(ctx[0].by_top.is_none());
        assert_eq!(ctx[0].continuation(0), Some(1));
    }

    #[test]
    fn continuation_stays_in_the_column() {
        let mut p = page(
            0,
            &[
                ("left column line ending in doi:10.1016/j.", 10.0, 100.0),
                ("right column text", 10.0, 100.0),
                ("gloenvcha.2013.09.004 and more", 10.0, 112.0),
                ("right column next", 10.0, 112.0),
            ],
        );
        p.lines[1].bbox.x0 = 320.0;
        p.lines[1].bbox.x1 = 520.0;
        p.lines[3].bbox.x0 = 320.0;
        p.lines[3].bbox.x1 = 520.0;
        let pages = [p];
        let doc = DocText {
            pages: &pages,
            page_count: 10,
        };
        let ctx = read(&doc);
        assert_eq!(ctx[0].continuation(0), Some(2));
        assert_eq!(ctx[0].continuation(1), Some(3));
        assert_eq!(ctx[0].previous(2), Some(0));
    }

    #[test]
    fn finders_survive_odd_text() {
        use crate::extract::{doi, edition, isbn, lccn, publisher, year};
        let odd = [
            "",
            "   ",
            "ISBN",
            "ISBN:",
            "ISBN 978-",
            "doi:",
            "10./",
            "© ",
            "Copyright c",
            "LCCN -",
            "第版",
            "İSBN 978-1-914673-40-5 İ",
            "ﬁrst edition published 2O2O by Ünïcödé Press, ",
            "—3 版. —苏州：出版社，",
            "published by",
            "1. Auflage",
            "99999999999999999999999999",
        ];
        let lines: Vec<(&str, f32, f32)> = odd
            .iter()
            .enumerate()
            .map(|(k, t)| (*t, 10.0, 50.0 + 12.0 * k as f32))
            .collect();
        let mut p = page(0, &lines);
        p.height = 0.0;
        let pages = [p.clone(), ocr(page(1, &lines))];
        let doc = DocText {
            pages: &pages,
            page_count: 2,
        };
        let n = isbn::find(&doc).len()
            + doi::find(&doc).len()
            + lccn::find(&doc).len()
            + year::find(&doc).len()
            + edition::find(&doc).len()
            + publisher::find(&doc).len();
        assert!(n < 20, "{n} candidates from junk");
    }

    #[test]
    fn citation_shapes() {
        assert!(citation_like(
            "Altmoser B, Vereczkey T (2005). kite: S4 Infrastructure."
        ));
        assert!(citation_like("[4] Donald Knuth. The TeXbook."));
        assert!(citation_like("Journal of Modelling Software, 46(7), 1–26."));
        assert!(citation_like(
            "  ee = {http://dx.doi.org/10.1007/978-3-642-24107-9_8},"
        ));
        assert!(citation_like(
            "= {http://dx.doi.org/10.1007/978-3-642-24107-9_8},"
        ));
        assert!(!citation_like("ISBN 978-1-947326-36-1"));
        assert!(!citation_like("Second edition published 2022"));
    }
}
