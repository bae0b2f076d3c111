//! Page layout analysis shared by the title and author finders.
//!
//! A title page is recognised by its shape more than by its words: a few
//! lines set large, names under them, an imprint at the foot. This module
//! turns the raw [`PageText`] lines into that shape once per document:
//!
//! - the document's body font size (what running text is set in), so that
//!   "large" means large for this document;
//! - page furniture (page numbers, running heads, watermarks: text repeated
//!   at the same place on several pages), which must never become a title;
//! - blocks: consecutive lines of one font size that belong together, so a
//!   title broken over two lines is read as one title with a space between;
//! - whether a page is a display page (title, half-title, copyright page)
//!   or a page of running text.
//!
//! The text folding used to compare values (`fold`, `tokens`, `token_f1`)
//! lives in [`text`](super::text) and is re-exported here, so that finders
//! and `decide` agree on what "same" means.

use super::lines::{LineKind, classify, title_penalty};
use super::text::join_lines;
pub use super::text::{fold, is_cjk, token_f1, tokens};
use crate::model::{DocText, PageText, TextLine, Via};
use std::collections::HashMap;

/// A run of lines set in one font size that read as one unit (a title over
/// two lines, a name list, a paragraph).
#[derive(Debug, Clone)]
pub struct Block {
    /// Indices into the page's `lines`, top to bottom.
    pub lines: Vec<usize>,
    /// The lines joined with [`join_lines`].
    pub text: String,
    /// Font size of the block's first row.
    pub size: f32,
    /// Bounding box of all its rows (points, y downwards).
    pub top: f32,
    pub bottom: f32,
    pub x0: f32,
    pub x1: f32,
}

/// One page's shape.
#[derive(Debug, Clone)]
pub struct PageLayout<'a> {
    /// The page as read.
    pub page: &'a PageText,
    /// Per line of `page`: page number, running head, watermark.
    pub furniture: Vec<bool>,
    /// The non-furniture lines with fragments of one baseline merged
    /// ("Copyright ©" + "2004 Jane Doe"), top to bottom.
    pub rows: Vec<TextLine>,
    /// Per row, what [`classify`] reads in it. Computed once here: the
    /// block builder, the title finder and the author finder all ask, and
    /// `classify` is among the costliest steps of extraction.
    pub(crate) kinds: Vec<LineKind>,
    /// Blocks of rows, top to bottom (`Block::lines` index `rows`).
    pub blocks: Vec<Block>,
    /// Per block, [`title_penalty`] of its text, which the title and the
    /// author finders both need (computed once: on a page of running text
    /// a block is a long paragraph and the test is slow).
    pub(crate) title_penalties: Vec<Option<f32>>,
    /// Lines of running text (body size, long): many of them = a text page.
    pub body_lines: usize,
}

impl PageLayout<'_> {
    /// A page set for display (title, half-title, copyright, dedication)
    /// rather than a page of running text.
    pub fn is_display(&self) -> bool {
        self.body_lines < 6 && self.content_lines().count() <= 30
    }

    /// The rows (merged non-furniture lines) with their indices.
    pub fn content_lines(&self) -> impl Iterator<Item = (usize, &TextLine)> {
        self.rows.iter().enumerate()
    }

    /// Whether a line of names (not one of block `i`'s own) starts right
    /// under block `i`: within `sizes` times its font size.
    pub(crate) fn byline_under(&self, i: usize, sizes: f32) -> bool {
        let b = &self.blocks[i];
        self.rows
            .iter()
            .zip(&self.kinds)
            .enumerate()
            .any(|(j, (l, k))| {
                matches!(k, LineKind::Names { .. })
                    && !b.lines.contains(&j)
                    && l.bbox.top >= b.bottom - 1.0
                    && l.bbox.top - b.bottom <= b.size.max(8.0) * sizes
            })
    }

    /// Whether block `i` ranks with the clean title candidates: no title
    /// penalty, or a single lower-case word (a package or program name)
    /// set clearly larger than, and above, every clean block, which are
    /// then the byline and the headings below it. A word lower down is a
    /// logo fragment.
    pub(crate) fn ranks_as_title(&self, i: usize) -> bool {
        let clean = || {
            self.title_penalties
                .iter()
                .zip(&self.blocks)
                .filter(|(p, _)| **p == Some(0.0))
                .map(|(_, b)| b)
        };
        let b = &self.blocks[i];
        let one_lower_word = !b.text.trim().contains(char::is_whitespace)
            && b.text.trim().starts_with(char::is_lowercase);
        match self.title_penalties[i] {
            Some(p) => {
                p == 0.0
                    || one_lower_word
                        && clean().all(|c| b.size >= c.size * 1.3 && b.bottom <= c.top + 1.0)
            }
            None => false,
        }
    }

    /// The block with the largest font, first one on ties.
    pub fn largest_block(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, b) in self.blocks.iter().enumerate() {
            if best.is_none_or(|j| b.size > self.blocks[j].size * 1.02) {
                best = Some(i);
            }
        }
        best
    }
}

/// The whole document's shape.
#[derive(Debug, Clone)]
pub struct Layout<'a> {
    /// Font size of running text (median over characters).
    pub body_size: f32,
    /// The pages read, in the order given.
    pub pages: Vec<PageLayout<'a>>,
    /// Total page count of the document.
    pub page_count: u32,
}

impl<'a> Layout<'a> {
    /// Analyses every page of `doc` (furniture needs all pages at once).
    pub fn new(doc: &DocText<'a>) -> Layout<'a> {
        let body_size = body_size(doc.pages);
        let furniture = furniture(doc.pages);
        let pages = doc
            .pages
            .iter()
            .zip(furniture)
            .map(|(page, furniture)| {
                let rows = rows(page, &furniture);
                let kinds: Vec<LineKind> = rows.iter().map(|l| classify(&l.text)).collect();
                let tolerance = if page.via == Via::Ocr { 0.2 } else { 0.08 };
                let blocks = blocks(&rows, &kinds, page.width, tolerance);
                let title_penalties = blocks.iter().map(|b| title_penalty(&b.text)).collect();
                let body_lines = rows
                    .iter()
                    .filter(|l| is_body_line(l, page, body_size))
                    .count();
                PageLayout {
                    page,
                    furniture,
                    rows,
                    kinds,
                    blocks,
                    title_penalties,
                    body_lines,
                }
            })
            .collect();
        Layout {
            body_size,
            pages,
            page_count: doc.page_count,
        }
    }

    /// Front matter: the first half of the document. Back pages (colophon,
    /// about the author, back cover) are read too, but no title is taken from
    /// their font sizes.
    pub fn is_front(&self, page: &PageText) -> bool {
        page.index < self.page_count.div_ceil(2).max(1)
    }
}

/// Median font size weighted by characters; 10 pt when there is no text.
fn body_size(pages: &[PageText]) -> f32 {
    let mut sizes: Vec<(f32, usize)> = pages
        .iter()
        .flat_map(|p| p.lines.iter())
        .filter(|l| l.size > 0.0)
        .map(|l| {
            (
                l.size,
                l.text.chars().filter(|c| !c.is_whitespace()).count(),
            )
        })
        .collect();
    let total: usize = sizes.iter().map(|s| s.1).sum();
    if total == 0 {
        return 10.0;
    }
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut acc = 0;
    for (size, n) in sizes {
        acc += n;
        if acc * 2 >= total {
            return size;
        }
    }
    10.0
}

/// A line of running text: body size and long enough to be part of a
/// paragraph (CJK lines carry more per character).
fn is_body_line(l: &TextLine, page: &PageText, body: f32) -> bool {
    let near_body = l.size <= body * 1.15 && l.size >= body * 0.8;
    let chars = l.text.chars().filter(|c| !c.is_whitespace()).count();
    let cjk = l.text.chars().filter(|c| is_cjk(*c)).count();
    let long = chars + cjk >= 45 || l.bbox.width() >= page.width * 0.55;
    near_body && long
}

/// A page number alone on its line: "12", "xiv", "- 3 -", "Page 4".
pub fn is_page_number(text: &str) -> bool {
    let t = text
        .trim()
        .trim_matches(|c: char| c == '-' || c == '–' || c.is_whitespace());
    let t = t
        .strip_prefix("Page ")
        .or_else(|| t.strip_prefix("page "))
        .unwrap_or(t);
    !t.is_empty()
        && (t.chars().all(|c| c.is_ascii_digit())
            || (t.len() <= 6 && t.chars().all(|c| "ivxlcdm".contains(c))))
}

/// Marks page numbers and text repeated at the same height on at least
/// three pages (running heads, journal headers, footers, watermarks).
/// Digits are ignored in the comparison so "2  Title" and "4  Title" match.
fn furniture(pages: &[PageText]) -> Vec<Vec<bool>> {
    let key = |l: &TextLine| -> String {
        fold(&l.text)
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Each line's key, computed once (folding is not cheap).
    let keys: Vec<Vec<String>> = pages
        .iter()
        .map(|p| p.lines.iter().map(key).collect())
        .collect();
    let mut seen: HashMap<&str, Vec<(u32, f32)>> = HashMap::new();
    for (p, keys) in pages.iter().zip(&keys) {
        for (l, k) in p.lines.iter().zip(keys) {
            if !k.is_empty() {
                seen.entry(k.as_str())
                    .or_default()
                    .push((p.index, l.bbox.top));
            }
        }
    }
    pages
        .iter()
        .zip(&keys)
        .map(|(p, keys)| {
            p.lines
                .iter()
                .zip(keys)
                .map(|(l, k)| {
                    if is_page_number(&l.text) {
                        return true;
                    }
                    let Some(places) = seen.get(k.as_str()) else {
                        return false;
                    };
                    let tol = (p.height * 0.015).max(4.0);
                    let mut pages_at: Vec<u32> = places
                        .iter()
                        .filter(|(_, top)| (top - l.bbox.top).abs() <= tol)
                        .map(|(i, _)| *i)
                        .collect();
                    pages_at.dedup();
                    pages_at.len() >= 3
                })
                .collect()
        })
        .collect()
}

/// Two font sizes are the same when within 8%.
pub fn same_size(a: f32, b: f32) -> bool {
    same_size_within(a, b, 0.08)
}

/// Two font sizes are the same when within `tolerance` (a share of the
/// larger). OCR estimates sizes from glyph heights, so lines of one size
/// differ by capitals and descenders there.
pub fn same_size_within(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * a.max(b)
}

/// Merges the non-furniture lines that sit on one baseline next to each
/// other (a text layer may cut a line where the font changes, or around a
/// superscript); lines far apart on one baseline (two columns of author
/// names) stay apart, and so do two names more than an em apart (the
/// names of a LaTeX `\and` byline, 1.3 em apart).
fn rows(page: &PageText, furniture: &[bool]) -> Vec<TextLine> {
    let mut order: Vec<&TextLine> = page
        .lines
        .iter()
        .zip(furniture)
        .filter(|(l, f)| !**f && !l.text.trim().is_empty())
        .map(|(l, _)| l)
        .collect();
    order.sort_by(|a, b| {
        a.bbox
            .top
            .total_cmp(&b.bbox.top)
            .then(a.bbox.x0.total_cmp(&b.bbox.x0))
    });
    let mut out: Vec<(TextLine, usize)> = Vec::new(); // (row, chars of its main fragment)
    for l in order {
        let chars = l.text.chars().count();
        let near = out.iter().rposition(|(r, _)| {
            let size = r.size.max(l.size);
            let gap = l.bbox.x0 - r.bbox.x1;
            (r.bbox.top - l.bbox.top).abs() <= size * 0.35
                && gap >= -size * 0.5
                && gap <= size * 1.5
                && !(gap > size && two_names(&r.text, &l.text))
        });
        match near {
            Some(k) => {
                let (r, main) = &mut out[k];
                let joiner = match (r.text.chars().last(), l.text.chars().next()) {
                    (Some(a), Some(b)) if is_cjk(a) && is_cjk(b) => "",
                    _ => " ",
                };
                r.text = format!("{}{joiner}{}", r.text.trim_end(), l.text.trim_start());
                r.bbox.top = r.bbox.top.min(l.bbox.top);
                r.bbox.bottom = r.bbox.bottom.max(l.bbox.bottom);
                r.bbox.x1 = r.bbox.x1.max(l.bbox.x1);
                if chars > *main {
                    r.size = l.size;
                    r.bold = l.bold;
                    *main = chars;
                }
            }
            None => out.push((l.clone(), chars)),
        }
    }
    out.into_iter().map(|(r, _)| r).collect()
}

/// Both lines read as a person's name each.
fn two_names(a: &str, b: &str) -> bool {
    let names = |t: &str| matches!(classify(t), LineKind::Names { names, .. } if names.len() == 1);
    names(a) && names(b)
}

/// Groups rows into blocks: a row joins the nearest open block above it
/// that has its font size, overlaps it horizontally (or is centred with
/// it) and is close below it.
///
/// `kinds`: [`classify`] of each row.
fn blocks(rows: &[TextLine], kinds: &[LineKind], page_width: f32, tolerance: f32) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    // Where sizes are rough (OCR), a byline does not continue the block
    // above it nor the other way round: size alone cannot keep a title and
    // the names under it apart there. (Looked up per row, not classified
    // again for every open block a row is tried against: that made this
    // loop most of a cold run's CPU.)
    let bylines: Vec<bool> = kinds
        .iter()
        .map(|k| {
            matches!(
                k,
                LineKind::Names { .. } | LineKind::Connector { .. } | LineKind::Credit
            )
        })
        .collect();
    for (i, l) in rows.iter().enumerate() {
        let b = l.bbox;
        let byline = bylines[i];
        let fits = |blk: &Block| {
            let last_i = *blk.lines.last().unwrap();
            let last = &rows[last_i];
            let last_byline = bylines[last_i];
            let gap = b.top - last.bbox.bottom;
            let pitch = b.top - last.bbox.top;
            let overlap = b.x0 < blk.x1 && b.x1 > blk.x0;
            let centred = ((b.x0 + b.x1) / 2.0 - (blk.x0 + blk.x1) / 2.0).abs() < page_width * 0.08;
            // A byline in another weight than the line above it starts
            // anew even at the same size (a bold title over its author).
            let restyled = byline != last_byline && l.bold != last.bold;
            (same_size(l.size, blk.size) && !restyled
                || same_size_within(l.size, blk.size, tolerance) && byline == last_byline)
                && pitch > l.size * 0.5
                && gap < l.size * 0.9
                && pitch < l.size * 1.9
                && (overlap || centred)
        };
        // The most recent fitting block (blocks are built top to bottom).
        match out.iter().rposition(fits) {
            Some(j) => {
                let blk = &mut out[j];
                blk.lines.push(i);
                blk.bottom = blk.bottom.max(b.bottom);
                blk.x0 = blk.x0.min(b.x0);
                blk.x1 = blk.x1.max(b.x1);
            }
            None => out.push(Block {
                lines: vec![i],
                text: String::new(),
                size: l.size,
                top: b.top,
                bottom: b.bottom,
                x0: b.x0,
                x1: b.x1,
            }),
        }
    }
    for blk in &mut out {
        blk.text = join_lines(blk.lines.iter().map(|&i| rows[i].text.as_str()));
    }
    out
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Building realistic pages from (text, font size, top) tuples.
    use crate::model::{PageText, Rect, TextLine, Via};

    /// A line centred on a 432 x 648 pt page, about 0.5 em per character.
    pub fn line(text: &str, size: f32, top: f32) -> TextLine {
        let width = (text.chars().count() as f32 * size * 0.5).min(380.0);
        let x0 = (432.0 - width) / 2.0;
        TextLine {
            text: text.to_string(),
            bbox: Rect {
                x0,
                top,
                x1: x0 + width,
                bottom: top + size,
            },
            size,
            bold: false,
        }
    }

    /// A left-aligned line starting at `x0`.
    pub fn line_at(text: &str, size: f32, top: f32, x0: f32) -> TextLine {
        let mut l = line(text, size, top);
        let w = l.bbox.width();
        l.bbox.x0 = x0;
        l.bbox.x1 = x0 + w;
        l
    }

    pub fn page(index: u32, lines: &[(&str, f32, f32)]) -> PageText {
        page_of(
            index,
            lines.iter().map(|(t, s, top)| line(t, *s, *top)).collect(),
        )
    }

    pub fn page_of(index: u32, lines: Vec<TextLine>) -> PageText {
        PageText {
            index,
            width: 432.0,
            height: 648.0,
            lines,
            image_ratio: 0.0,
            image: None,
            via: Via::Text,
            ocr_confidence: None,
        }
    }

    /// `count` lines of running text `text` in 10 pt from `top`, `pitch`
    /// apart, each from `x0` to `x1`.
    pub fn prose(
        text: &str,
        top: f32,
        count: usize,
        pitch: f32,
        x0: f32,
        x1: f32,
    ) -> Vec<TextLine> {
        (0..count)
            .map(|k| {
                let mut l = line_at(text, 10.0, top + k as f32 * pitch, x0);
                l.bbox.x1 = x1;
                l
            })
            .collect()
    }

    /// The first page of a bulletin article set in one size: running head,
    /// bold title "The quillmark package", byline "Ada Lindqvist",
    /// abstract and running text, all in 10 pt.
    pub fn bulletin_article_page() -> PageText {
        let mut lines = vec![
            line_at("Bulletin of the Society, Volume 3, No. 2", 10.0, 45.0, 72.0),
            TextLine {
                bold: true,
                ..line("The quillmark package", 10.0, 80.0)
            },
            line("Ada Lindqvist", 10.0, 97.0),
            line("Abstract", 10.0, 121.0),
        ];
        lines.extend(prose(
            "The quillmark package lets you set marks in the margin of a page and",
            140.0,
            30,
            13.0,
            72.0,
            520.0,
        ));
        page_of(0, lines)
    }

    /// A page of running text in 10 pt with a page number at the foot.
    pub fn body_page(index: u32, head: Option<&str>) -> PageText {
        let mut lines = Vec::new();
        if let Some(h) = head {
            lines.push(line_at(h, 8.0, 30.0, 54.0));
        }
        const WORDS: [&str; 7] = [
            "record", "archive", "ledger", "parish", "harbour", "charter", "map",
        ];
        for k in 0..30 {
            let w = WORDS[(index as usize * 3 + k) % WORDS.len()];
            let text = format!("Much of what follows depends on a careful reading of the {w} and");
            lines.push(line_at(&text, 10.0, 60.0 + k as f32 * 16.0, 54.0));
            lines.last_mut().unwrap().bbox.x1 = 378.0;
        }
        lines.push(line(&(index + 1).to_string(), 10.0, 610.0));
        page_of(index, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    #[test]
    fn title_over_two_lines_is_one_block() {
        let p = page(
            3,
            &[
                ("The Ledger and the", 25.9, 127.3),
                ("Lantern", 25.9, 154.8),
                ("Quantitative Tools for Archivists", 15.1, 193.5),
                ("Rosalind Ashcombe", 15.1, 281.7),
            ],
        );
        let pages = [p];
        let doc = DocText {
            pages: &pages,
            page_count: 16,
        };
        let layout = Layout::new(&doc);
        let blocks = &layout.pages[0].blocks;
        assert_eq!(blocks[0].text, "The Ledger and the Lantern");
        assert_eq!(blocks[1].text, "Quantitative Tools for Archivists");
        assert_eq!(blocks[2].text, "Rosalind Ashcombe");
        assert!(layout.pages[0].is_display());
    }

    #[test]
    fn running_heads_and_page_numbers_are_furniture() {
        let mut pages = vec![page(
            0,
            &[("DRAFT", 40.0, 300.0), ("A Real Title", 20.0, 100.0)],
        )];
        for i in 1..5 {
            let mut p = body_page(i, Some("Chapter 1. Beginnings"));
            p.lines.push(line("DRAFT", 40.0, 300.0));
            pages.push(p);
        }
        let doc = DocText {
            pages: &pages,
            page_count: 40,
        };
        let layout = Layout::new(&doc);
        let first = &layout.pages[0];
        assert!(first.furniture[0], "watermark repeated on every page");
        assert!(!first.furniture[1]);
        let body = &layout.pages[2];
        assert!(body.furniture[0], "running head");
        assert!(*body.furniture.last().unwrap() || body.furniture[body.furniture.len() - 2]);
        assert!(!body.is_display());
        assert!((layout.body_size - 10.0).abs() < 0.01);
    }

    #[test]
    fn ocr_sizes_are_compared_loosely_but_bylines_stay_apart() {
        let lines = [
            ("The Ledger and the", 15.7, 127.0),
            ("Lantern", 17.3, 150.0),
            ("Quantitative Tools for Archivists", 12.0, 190.0),
            ("Rosalind Ashcombe", 11.0, 205.0),
        ];
        let mut p = page(3, &lines);
        let text = page(3, &lines);
        p.via = Via::Ocr;
        let pages = [p, text];
        let doc = DocText {
            pages: &pages,
            page_count: 16,
        };
        let layout = Layout::new(&doc);
        let ocr: Vec<&str> = layout.pages[0]
            .blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(
            ocr,
            vec![
                "The Ledger and the Lantern",
                "Quantitative Tools for Archivists",
                "Rosalind Ashcombe"
            ]
        );
        // A text layer's sizes are exact: 15.7 and 17.3 are two sizes.
        assert_eq!(layout.pages[1].blocks.len(), 4);
    }
}
