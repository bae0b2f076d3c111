//! Turns Tesseract's words into [`TextLine`]s in PDF points: drops noise
//! words, converts pixel boxes to points, estimates each line's font size
//! and puts lines in page order. Also computes the page confidence.
//!
//! The thresholds below were chosen on the scanned corpus pages against the
//! text layer of the same pages in their born-digital originals (word
//! recall and precision, see the `ocr` module docs for the figures).

use super::hocr::{Line, PxBox, Word};
use crate::model::{Rect, TextLine};

/// Words Tesseract is less sure of than this are left out of the lines.
/// Below it are mostly dot leaders, rules and speckle read as letters
/// ("smewemewamesermmsrmeenee"); dropping them raised precision from 0.82
/// to 0.88 for 0.9 points of recall. Real words that low are nearly all in
/// reference lists and indexes, not on title or copyright pages. Author
/// names with letters outside the OCR language come out around 30-60, so
/// the cut stays well below that.
pub const MIN_WORD_CONF: f32 = 20.0;

/// A word with no letter or digit ("|", "~", ";") must be this sure to be
/// kept: such marks are usually rules, specks or leader dots, but a
/// confident "&" or "—" belongs to a name or title ("Ashdown & Pryce").
pub const MIN_MARK_CONF: f32 = 60.0;

/// A line set this much larger than the page's median line is "big" ...
const BIG_LINE: f32 = 1.6;
/// ... and its words must be this sure to be kept. Big type is read easily
/// (title words come out at 90+); big and unsure is a picture read as
/// text: the back-cover barcode came out as a 67 pt "Wnt" at 21, which the
/// title finder, looking for the largest line, would take for the title.
pub const MIN_BIG_WORD_CONF: f32 = 50.0;

/// A word of letters: at least two alphabetic characters, as in
/// [`crate::model::PageText::word_count`].
pub fn is_real_word(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

/// Whether a recognised word goes into the page text; `big` when its
/// line is set much larger than the page's usual type.
pub fn keep_word(w: &Word, big: bool) -> bool {
    let has_alnum = w.text.chars().any(char::is_alphanumeric);
    if !has_alnum {
        return w.conf >= MIN_MARK_CONF && !is_leader(&w.text);
    }
    w.conf
        >= if big {
            MIN_BIG_WORD_CONF
        } else {
            MIN_WORD_CONF
        }
}

/// Dot leaders and rules of a contents page or index ("......", "-----").
fn is_leader(text: &str) -> bool {
    text.chars().count() >= 3
        && text
            .chars()
            .all(|c| matches!(c, '.' | '-' | '_' | '·' | '…' | '—' | '–' | '=' | '~'))
}

/// Mean confidence (0-100) over the real words Tesseract found, noise
/// included: a page read badly should say so. `None` when there is no real
/// word at all (a blank page or a picture) — nothing was read, well or badly.
pub fn mean_confidence(lines: &[Line]) -> Option<f32> {
    let (sum, n) = lines
        .iter()
        .flat_map(|l| &l.words)
        .filter(|w| is_real_word(&w.text))
        .fold((0.0f64, 0usize), |(s, n), w| (s + w.conf as f64, n + 1));
    (n > 0).then(|| (sum / n as f64) as f32)
}

/// Pixel → point scale of one page image.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    pub x: f32,
    pub y: f32,
}

impl Scale {
    /// `img_w`×`img_h` pixels showing a page of `page_w`×`page_h` points.
    pub fn new(img_w: u32, img_h: u32, page_w: f32, page_h: f32) -> Scale {
        Scale {
            x: page_w / img_w.max(1) as f32,
            y: page_h / img_h.max(1) as f32,
        }
    }

    fn rect(&self, b: &PxBox) -> Rect {
        Rect {
            x0: b.x0 * self.x,
            top: b.y0 * self.y,
            x1: b.x1 * self.x,
            bottom: b.y1 * self.y,
        }
    }
}

/// A gap between two words of a line wider than this many row sizes
/// separates two texts set on one baseline, when [`build_split`] is asked
/// to split them. Word spaces, even of a loosely justified line, are under
/// one row size.
pub const SPLIT_GAP_ROWS: f32 = 3.0;

/// Page lines from Tesseract's lines: noise words dropped, lines left empty
/// dropped, boxes and sizes in points, ordered top to bottom then left to
/// right (the `PageText` contract). With `split_wide`, a line is also cut where two words
/// stand more than [`SPLIT_GAP_ROWS`] row sizes apart. On a page whose
/// body text was masked out, Tesseract sees no columns and reads a
/// running foot's left and right parts ("USENIX Association", "15th
/// USENIX Conference ... 59") as one line; on the whole page it reads
/// them as two.
pub fn build_split(lines: &[Line], scale: Scale, split_wide: bool) -> Vec<TextLine> {
    let big = median_size(lines).map_or(f32::INFINITY, |m| m * BIG_LINE);
    let mut out: Vec<TextLine> = Vec::new();
    for line in lines {
        let is_big = line_size(line) > big;
        let kept: Vec<&Word> = line.words.iter().filter(|w| keep_word(w, is_big)).collect();
        let gap = if split_wide {
            SPLIT_GAP_ROWS * line_size(line)
        } else {
            f32::INFINITY
        };
        let size = font_size(line, &kept) * scale.y;
        for part in kept.chunk_by(|a, b| b.bbox.x0 - a.bbox.x1 <= gap) {
            let Some(first) = part.first() else {
                continue;
            };
            let bbox = part.iter().fold(first.bbox, |b, w| b.union(&w.bbox));
            let text = part
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            out.push(TextLine {
                text,
                bbox: scale.rect(&bbox),
                size,
                // Tesseract's LSTM engine reports no font weight.
                bold: false,
            });
        }
    }
    order(&mut out);
    out
}

/// Tesseract's row size of a line, or its box height (pixels).
fn line_size(line: &Line) -> f32 {
    line.x_size
        .filter(|s| *s > 0.0)
        .unwrap_or(line.bbox.height())
}

/// Median row size over the page's lines (pixels), `None` for no lines.
fn median_size(lines: &[Line]) -> Option<f32> {
    let mut sizes: Vec<f32> = lines.iter().map(line_size).collect();
    if sizes.is_empty() {
        return None;
    }
    sizes.sort_by(f32::total_cmp);
    Some(sizes[sizes.len() / 2])
}

/// Font size (em) per unit of Tesseract's row size `x_size` (descender
/// line to ascender line). Measured on 1220 lines of the scanned corpus
/// matched by text to the same lines in the born-digital originals: PDF
/// font size / `x_size` has median 1.068, 80% of lines within 0.98-1.10
/// (relative spread 5%). The line's box height does much worse (median
/// 0.89, spread 14%): it depends on which letters the line happens to have.
pub const EM_PER_ROW: f32 = 1.07;

/// Font size in pixels: Tesseract's row size scaled to an em, so OCR
/// sizes compare with text-layer sizes; without a row size, the tallest
/// kept word's box.
fn font_size(line: &Line, kept: &[&Word]) -> f32 {
    match line.x_size {
        Some(s) if s > 0.0 => s * EM_PER_ROW,
        _ => kept.iter().map(|w| w.bbox.height()).fold(0.0f32, f32::max),
    }
}

/// Top to bottom, and left to right within a visual row: lines whose
/// vertical middle lies within the row started by the line above them
/// share its rank. A key sort, so the order is total and stable.
pub fn order(lines: &mut [TextLine]) {
    lines.sort_by(|a, b| a.bbox.top.total_cmp(&b.bbox.top));
    let mut row = 0usize;
    let mut row_bottom = f32::NEG_INFINITY;
    let mut ranks = Vec::with_capacity(lines.len());
    for l in lines.iter() {
        let mid = (l.bbox.top + l.bbox.bottom) / 2.0;
        if mid > row_bottom {
            row += 1;
            row_bottom = l.bbox.bottom;
        }
        ranks.push(row);
    }
    let mut keyed: Vec<(usize, TextLine)> = ranks.into_iter().zip(lines.iter().cloned()).collect();
    keyed.sort_by(|(ra, a), (rb, b)| ra.cmp(rb).then(a.bbox.x0.total_cmp(&b.bbox.x0)));
    for (slot, (_, l)) in lines.iter_mut().zip(keyed) {
        *slot = l;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, conf: f32, x0: f32, y0: f32, x1: f32, y1: f32) -> Word {
        Word {
            text: text.to_string(),
            conf,
            bbox: PxBox { x0, y0, x1, y1 },
        }
    }

    fn line(words: Vec<Word>, x_size: Option<f32>) -> Line {
        let bbox = words
            .iter()
            .skip(1)
            .fold(words[0].bbox, |b, w| b.union(&w.bbox));
        Line {
            bbox,
            x_size,
            words,
        }
    }

    #[test]
    fn noise_is_dropped_and_marks_kept_when_sure() {
        assert!(keep_word(&word("Ashdown", 95.0, 0., 0., 1., 1.), false));
        assert!(keep_word(&word("&", 90.0, 0., 0., 1., 1.), false));
        assert!(!keep_word(&word("|", 40.0, 0., 0., 1., 1.), false));
        assert!(!keep_word(&word("........", 96.0, 0., 0., 1., 1.), false));
        assert!(!keep_word(&word("smewemewa", 3.0, 0., 0., 1., 1.), false));
        assert!(keep_word(&word("Oyarztin", 39.0, 0., 0., 1., 1.), false));
        assert!(!keep_word(&word("Wnt", 39.0, 0., 0., 1., 1.), true));
        assert!(keep_word(&word("Title", 90.0, 0., 0., 1., 1.), true));
    }

    #[test]
    fn lines_are_scaled_sized_and_ordered() {
        // 600x800 px image of a 300x400 pt page: 0.5 pt per pixel.
        let scale = Scale::new(600, 800, 300.0, 400.0);
        let lines = vec![
            // Right column first, as Tesseract reads blocks.
            line(
                vec![word("Right", 90.0, 320., 100., 400., 120.)],
                Some(24.0),
            ),
            line(
                vec![
                    word("Big", 96.0, 10., 98., 100., 140.),
                    word("~", 10.0, 110., 98., 120., 140.),
                    word("Title", 96.0, 130., 98., 250., 140.),
                ],
                Some(60.0),
            ),
            line(vec![word("zzqx", 5.0, 10., 300., 50., 320.)], Some(20.0)),
            line(vec![word("Below", 91.0, 10., 200., 90., 220.)], None),
            // A barcode read as a huge unsure word.
            line(vec![word("Wnt", 35.0, 300., 500., 400., 700.)], Some(250.0)),
        ];
        let out = build_split(&lines, scale, false);
        let texts: Vec<&str> = out.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Big Title", "Right", "Below"]);
        let big = &out[0];
        assert_eq!(
            big.bbox,
            Rect {
                x0: 5.0,
                top: 49.0,
                x1: 125.0,
                bottom: 70.0
            }
        );
        assert_eq!(big.size, 60.0 * EM_PER_ROW * 0.5);
        assert_eq!(out[1].size, 24.0 * EM_PER_ROW * 0.5);
        // No x_size: the word box height.
        assert_eq!(out[2].size, 10.0);
        assert!(big.size > out[1].size);
    }

    #[test]
    fn wide_gaps_split_a_line_only_when_asked() {
        // A running foot read as one line: left part, a gap of 20 row
        // sizes, right part; word spaces of half a row size.
        let scale = Scale::new(600, 800, 300.0, 400.0);
        let foot = vec![line(
            vec![
                word("USENIX", 90.0, 10., 700., 60., 710.),
                word("Association", 90.0, 65., 700., 140., 710.),
                word("15th", 90.0, 340., 700., 370., 710.),
                word("Conference", 90.0, 375., 700., 440., 710.),
            ],
            Some(10.0),
        )];
        let texts = |split| {
            build_split(&foot, scale, split)
                .into_iter()
                .map(|l| l.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(false), ["USENIX Association 15th Conference"]);
        assert_eq!(texts(true), ["USENIX Association", "15th Conference"]);
        let parts = build_split(&foot, scale, true);
        assert_eq!((parts[0].bbox.x1, parts[1].bbox.x0), (70.0, 170.0));
        assert_eq!(parts[0].size, parts[1].size);
    }

    #[test]
    fn confidence_counts_real_words_only() {
        let lines = vec![line(
            vec![
                word("Good", 90.0, 0., 0., 1., 1.),
                word("junkword", 10.0, 0., 0., 1., 1.),
                word("7", 0.0, 0., 0., 1., 1.),
                word("|", 0.0, 0., 0., 1., 1.),
            ],
            None,
        )];
        assert_eq!(mean_confidence(&lines), Some(50.0));
        let marks = vec![line(vec![word("—", 80.0, 0., 0., 1., 1.)], None)];
        assert_eq!(mean_confidence(&marks), None);
        assert_eq!(mean_confidence(&[]), None);
    }
}
