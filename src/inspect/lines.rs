//! Line building: turns the loose glyphs pdfium reports for a page into
//! [`TextLine`]s in reading order.
//!
//! Pdfium's own text stream is not good enough for `extract`: it inserts
//! generated spaces and line breaks by its own heuristics, runs columns
//! together and keeps stream order. So the pdfium layer hands over only the
//! glyphs the PDF really draws (with their origin, advance box, scaled font
//! size, weight and whether they are drawn invisibly) and this module decides:
//!
//! 1. Glyphs are grouped by writing direction (the nearest multiple of 90
//!    degrees, or 5-degree steps for diagonal labels) and by visibility, so that an invisible OCR layer never interleaves with
//!    visible text and rotated text (spines, arXiv side stamps) stays whole.
//!    Each group is measured in its own frame, rotated by the group's median
//!    angle, so slightly skewed scans with an OCR layer still line up.
//! 2. Glyphs with nearly the same baseline form a row; superscripts and
//!    subscripts (smaller glyphs within half an em of a larger row) join it.
//! 3. A row is cut into separate lines where glyphs are more than an em
//!    apart, so that columns are never merged.
//! 4. Inside a line a space is written where the PDF has a space glyph or
//!    where the gap between glyphs is wider than a fraction of the font size.
//!    Pdfium's generated spaces are not taken as text, but where one sits
//!    in a narrow gap it settles the case (tightly justified lines and
//!    overhanging glyphs like an italic "f" leave word gaps under 0.2 em).
//!    Hyphens are kept as printed.
//!
//! Everything here is pure geometry (no pdfium), so it is unit-tested with
//! hand-made glyphs.

use crate::model::{Rect, TextLine};

/// One glyph as drawn on the page, in top-left-origin page points
/// (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    pub ch: char,
    /// Advance box (font ascent to descent, origin to advance).
    pub bbox: Rect,
    /// Baseline origin of the glyph.
    pub origin: (f32, f32),
    /// Font size scaled by the text matrix, in points.
    pub size: f32,
    /// Counter-clockwise angle of the glyph's baseline on the page, radians.
    pub angle: f32,
    pub bold: bool,
    /// Drawn with an invisible text render mode (an OCR text layer).
    pub hidden: bool,
    /// A space pdfium generated (not drawn by the PDF): only a hint that a
    /// word ends here, used when the gap alone is ambiguous.
    pub generated: bool,
}

/// A built line plus facts `extract` does not need but `inspect` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltLine {
    pub line: TextLine,
    /// The line's glyphs are drawn invisibly (scanner OCR layer).
    pub hidden: bool,
}

/// A space is written when glyphs are further apart than this share of the
/// font size. TeX's narrowest shrunk word space is about 0.22 em, while
/// kerning and tracking stay well under 0.1 em.
const SPACE_GAP_EM: f32 = 0.2;
/// With a pdfium-generated space in the gap, this much suffices. Pdfium
/// decides its spaces from the fonts' true advances, while the boxes seen
/// here grow to the glyph outline: an italic "f" overhangs its advance by
/// up to 0.3 em and can eat a whole word space.
const HINTED_SPACE_GAP_EM: f32 = -0.1;
/// Glyphs further apart than this (after subtracting any space glyphs in
/// between) belong to different lines: a column gutter or a tab stop.
/// Narrow two-column layouts (IEEE) have gutters of about 1.2 em.
const COLUMN_GAP_EM: f32 = 1.0;
/// Unless pdfium put a space there: then the glyphs follow each other in
/// the content stream, and a loose justified line (TeX stretches a sentence
/// space past 1 em) is not a column gutter. Kept below the 2 em gutter of
/// tight two-column journals whose streams run across both columns.
const HINTED_COLUMN_GAP_EM: f32 = 1.5;
/// A gap this many times the row's median word gap is a gutter even with a
/// generated space in it, when it is also wider than [`COLUMN_GAP_EM`]:
/// two names of a LaTeX `\and` byline sit about 1.3 em apart, their words
/// 0.3 em. Justification stretches every space of a line, and TeX's
/// sentence space (1.33 times a word space, stretching three times as
/// much) stays within 2.5 times the others even on a line stretched to
/// twice its natural spacing.
const COLUMN_GAP_RATIO: f32 = 3.0;
/// After a ligature glyph ("ﬁ", "ﬂ", "ﬀ") without pdfium's space hint, a
/// space needs a gap this wide: fonts whose ligature box is one letter
/// wide leave a gap of up to an em before the rest of the word ("ﬁ le").
const LIGATURE_SPACE_GAP_EM: f32 = 0.9;
/// Baselines closer than this share of the smaller font size are one row.
const SAME_BASELINE_EM: f32 = 0.3;
/// A smaller row whose baseline is within this share of a larger row's font
/// size is a superscript or subscript of it.
const SCRIPT_SHIFT_EM: f32 = 0.5;
/// A row counts as script-sized when its largest glyph is at most this share
/// of the neighbouring row's.
const SCRIPT_SIZE_RATIO: f32 = 0.85;

/// Builds the lines of one page from its glyphs. Returns lines in reading
/// order: horizontal text from top to bottom, then left to right; rotated
/// text after it.
pub fn build_lines(glyphs: &[Glyph]) -> Vec<BuiltLine> {
    // Group by (direction, hidden).
    let mut groups: Vec<((u16, bool), Vec<usize>)> = Vec::new();
    for (i, g) in glyphs.iter().enumerate() {
        if !(g.size.is_finite() && g.size > 0.0) {
            continue;
        }
        let key = (direction(g.angle), g.hidden);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }

    let mut keyed: Vec<(u16, f32, f32, BuiltLine)> = Vec::new();
    for ((dir, hidden), idx) in groups {
        let angle = median_angle(glyphs, &idx, dir);
        let frame = Frame::new(angle);
        for (v, u, line) in build_group(glyphs, &idx, &frame) {
            keyed.push((dir, v, u, BuiltLine { line, hidden }));
        }
    }
    // Horizontal text first (by baseline, then x), then each rotated
    // direction in its own reading order.
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.total_cmp(&b.2))
    });
    keyed.into_iter().map(|(_, _, _, l)| l).collect()
}

/// Within this angle (radians, about 11 degrees) of a multiple of 90
/// degrees text counts as that direction, de-skewed by its median angle.
const SKEW_LIMIT: f32 = 0.2;

/// Writing direction of a glyph: 0 (left to right), 1 (upwards),
/// 2 (upside down), 3 (downwards) for text near a multiple of 90 degrees;
/// otherwise 4 + the angle in 5-degree steps (diagonal chart labels).
fn direction(angle: f32) -> u16 {
    use std::f32::consts::{FRAC_PI_2, TAU};
    if !angle.is_finite() {
        return 0;
    }
    let a = angle.rem_euclid(TAU);
    let q = (a / FRAC_PI_2).round();
    if (a - q * FRAC_PI_2).abs() <= SKEW_LIMIT {
        return (q as u16) % 4;
    }
    4 + ((a.to_degrees() / 5.0).round() as u16) % 72
}

/// The angle a direction group is measured along: its median angle,
/// unwrapped around the group's nominal angle so that 359.5 and 0.5
/// degrees average to 0.
fn median_angle(glyphs: &[Glyph], idx: &[usize], dir: u16) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};
    let centre = if dir < 4 {
        dir as f32 * FRAC_PI_2
    } else {
        ((dir - 4) as f32 * 5.0).to_radians()
    };
    let mut a: Vec<f32> = idx
        .iter()
        .map(|&i| {
            let d = (glyphs[i].angle - centre + PI).rem_euclid(TAU) - PI;
            if d.is_finite() { d } else { 0.0 }
        })
        .collect();
    if a.is_empty() {
        return centre;
    }
    // The element a full sort would put in the middle, without the sort.
    let mid = a.len() / 2;
    centre + *a.select_nth_unstable_by(mid, f32::total_cmp).1
}

/// A text frame: `u` runs along the baseline, `v` across it (downwards from
/// the reader's point of view).
struct Frame {
    dir: (f32, f32),
    normal: (f32, f32),
}

impl Frame {
    fn new(angle: f32) -> Frame {
        // Page coordinates have y downwards, so a counter-clockwise angle
        // goes up the screen.
        let dir = (angle.cos(), -angle.sin());
        let normal = (-dir.1, dir.0);
        Frame { dir, normal }
    }

    fn project(&self, g: &Glyph) -> FGlyph {
        let (x, y) = g.origin;
        let u0 = x * self.dir.0 + y * self.dir.1;
        let v = x * self.normal.0 + y * self.normal.1;
        // The box is axis-aligned on the page: for a glyph turned by the
        // frame angle, width = advance*|cos| + height*|sin| (and the
        // converse), with the glyph height about one font size.
        let (c, s) = (self.dir.0.abs(), self.dir.1.abs());
        let (w, h) = (g.bbox.width(), g.bbox.height());
        let adv = if c >= s {
            (w - g.size * s) / c.max(1e-3)
        } else {
            (h - g.size * c) / s.max(1e-3)
        };
        let adv = if adv.is_finite() { adv.max(0.0) } else { 0.0 };
        FGlyph {
            u0,
            u1: u0 + adv,
            v,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct FGlyph {
    u0: f32,
    u1: f32,
    v: f32,
}

struct Row {
    v: f32,
    size: f32,
    members: Vec<usize>,
    umin: f32,
    umax: f32,
}

/// Builds the lines of one direction/visibility group; returns
/// (baseline, start, line) for ordering.
fn build_group(glyphs: &[Glyph], idx: &[usize], frame: &Frame) -> Vec<(f32, f32, TextLine)> {
    // Indexed like `glyphs`; only this group's entries are filled in.
    let mut fg = vec![FGlyph::default(); glyphs.len()];
    for &i in idx {
        fg[i] = frame.project(&glyphs[i]);
    }
    // Spaces (drawn or generated) only mark word ends: they must not start
    // or bend rows (pdfium gives generated ones a size of 1 pt).
    let (spaces, mut order): (Vec<usize>, Vec<usize>) =
        idx.iter().partition(|&&i| is_space(glyphs[i].ch));
    order.sort_by(|&a, &b| {
        fg[a]
            .v
            .total_cmp(&fg[b].v)
            .then(fg[a].u0.total_cmp(&fg[b].u0))
    });

    // 1. Rows of nearly equal baselines.
    let mut rows = baseline_rows(glyphs, &fg, &order);
    place_spaces(&mut rows, &fg, &spaces);

    // 2. Superscripts and subscripts join the larger neighbouring row.
    merge_scripts(&mut rows, glyphs, &fg);

    // 3. + 4. Cut rows into lines, write spaces.
    let mut out = Vec::new();
    for row in &rows {
        cut_row(glyphs, &fg, row, &mut out);
    }
    out.into_iter()
        .filter(|(_, _, l)| !l.text.trim().is_empty())
        .collect()
}

/// Groups the glyphs `order` (no spaces, sorted by baseline then start)
/// into rows of nearly equal baselines.
fn baseline_rows(glyphs: &[Glyph], fg: &[FGlyph], order: &[usize]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for &i in order {
        let g = &glyphs[i];
        let f = fg[i];
        let joins = rows
            .last()
            .is_some_and(|r| (f.v - r.v).abs() <= SAME_BASELINE_EM * r.size.min(g.size).max(1.0));
        if joins {
            let r = rows.last_mut().unwrap();
            r.members.push(i);
            if g.size > r.size {
                // The row's baseline is its largest glyphs': a raised small
                // letter that opened the row (the "A" of a LaTeX logo) must
                // not hold it, or the logo's lowered "E" falls out of it.
                r.v = f.v;
            }
            r.size = r.size.max(g.size);
            r.umin = r.umin.min(f.u0);
            r.umax = r.umax.max(f.u1);
        } else {
            rows.push(Row {
                v: f.v,
                size: g.size,
                members: vec![i],
                umin: f.u0,
                umax: f.u1,
            });
        }
    }
    rows
}

/// Puts each space into the row it sits in, if any.
fn place_spaces(rows: &mut [Row], fg: &[FGlyph], spaces: &[usize]) {
    for &i in spaces {
        let f = fg[i];
        let at = rows.partition_point(|r| r.v < f.v);
        let best = [at.wrapping_sub(1), at]
            .into_iter()
            .filter_map(|j| rows.get(j).map(|r| (j, r)))
            .filter(|(_, r)| {
                (f.v - r.v).abs() <= SAME_BASELINE_EM * r.size && f.u0 >= r.umin && f.u0 <= r.umax
            })
            .min_by(|a, b| (f.v - a.1.v).abs().total_cmp(&(f.v - b.1.v).abs()));
        if let Some((j, _)) = best {
            rows[j].members.push(i);
        }
    }
}

/// What a glyph is to the glyph kept before it on a row.
enum Joint {
    /// The same glyph drawn again (fake bold, a shadow): dropped.
    Duplicate,
    /// Across a column gap: it starts a new line.
    NewLine,
    /// On the same line, with a word space before it or not.
    Word { space: bool },
}

/// What has been read along a row since the last glyph kept.
struct Cursor {
    /// The width of real space glyphs since the last glyph.
    spaces_width: f32,
    /// A generated space since the last glyph.
    hinted: bool,
    /// The end of the line's glyphs so far.
    last_u1: f32,
    /// The size of the last glyph kept.
    last_size: f32,
}

impl Cursor {
    /// How glyph `i` joins glyph `prev`, the last one kept; `word_gap` is
    /// the row's median gap between words.
    fn joint(
        &self,
        glyphs: &[Glyph],
        fg: &[FGlyph],
        prev: usize,
        i: usize,
        word_gap: Option<f32>,
    ) -> Joint {
        let g = &glyphs[i];
        let f = fg[i];
        let pg = &glyphs[prev];
        let pf = fg[prev];
        // Fake bold and shadows: the same glyph drawn twice, nearly on top
        // of itself. Not a ligature spelled out ("ff" from one glyph):
        // those come one after the other in the stream at exactly the same
        // origin.
        let ligature = i.abs_diff(prev) == 1 && g.origin == pg.origin;
        if pg.ch == g.ch
            && !ligature
            && (f.u0 - pf.u0).abs() < 0.15 * g.size
            && (f.v - pf.v).abs() < 0.15 * g.size
        {
            return Joint::Duplicate;
        }
        let em = self.last_size.max(g.size);
        let gap = f.u0 - self.last_u1;
        let column_gap = if self.hinted {
            let relative = word_gap.map_or(f32::INFINITY, |w| w * COLUMN_GAP_RATIO);
            (HINTED_COLUMN_GAP_EM * em).min(relative.max(COLUMN_GAP_EM * em))
        } else {
            COLUMN_GAP_EM * em
        };
        if gap - self.spaces_width.max(0.0) > column_gap {
            return Joint::NewLine;
        }
        let space = if is_ligature(pg.ch) && self.spaces_width <= 0.0 {
            // A ligature glyph's box is often narrower than its advance
            // ("ﬁ" measured as one letter): the gap after it is a word
            // space only where pdfium, which knows the advance, put one,
            // or where it is a wide one.
            self.hinted || gap > LIGATURE_SPACE_GAP_EM * em
        } else {
            self.spaces_width > 0.0
                || gap > SPACE_GAP_EM * em
                || (self.hinted && gap > HINTED_SPACE_GAP_EM * em)
        };
        Joint::Word { space }
    }
}

/// Cuts one row into lines at column gaps, with word spaces, onto `out`.
fn cut_row(glyphs: &[Glyph], fg: &[FGlyph], row: &Row, out: &mut Vec<(f32, f32, TextLine)>) {
    let mut members = row.members.clone();
    // At equal positions spaces sort first: a generated space sits at the
    // origin of the glyph after it.
    members.sort_by(|&a, &b| {
        fg[a]
            .u0
            .total_cmp(&fg[b].u0)
            .then(is_space(glyphs[b].ch).cmp(&is_space(glyphs[a].ch)))
    });
    let word_gap = median_word_gap(glyphs, fg, &members);
    let mut pending: Vec<(usize, bool)> = Vec::new(); // (glyph, space before)
    let mut at = Cursor {
        spaces_width: 0.0,
        hinted: false,
        last_u1: f32::NEG_INFINITY,
        last_size: 0.0,
    };
    for &i in &members {
        let g = &glyphs[i];
        let f = fg[i];
        if is_space(g.ch) {
            if g.generated {
                at.hinted = true;
            } else {
                at.spaces_width += f.u1 - f.u0;
            }
            continue;
        }
        let mut space = false;
        if let Some(&(prev, _)) = pending.last() {
            match at.joint(glyphs, fg, prev, i, word_gap) {
                Joint::Duplicate => continue,
                Joint::NewLine => {
                    out.push(finish_line(glyphs, fg, &pending, row.v));
                    pending.clear();
                }
                Joint::Word { space: s } => space = s,
            }
        }
        if pending.is_empty() {
            at.last_u1 = f.u1;
        } else {
            at.last_u1 = at.last_u1.max(f.u1);
        }
        pending.push((i, space));
        at.spaces_width = 0.0;
        at.hinted = false;
        at.last_size = g.size;
    }
    if !pending.is_empty() {
        out.push(finish_line(glyphs, fg, &pending, row.v));
    }
}

/// The median gap between words of a row (glyphs further apart than a
/// space), when the row has at least three.
fn median_word_gap(glyphs: &[Glyph], fg: &[FGlyph], members: &[usize]) -> Option<f32> {
    let mut gaps = Vec::new();
    let mut last: Option<(f32, f32)> = None; // (u1, size)
    for &i in members {
        let g = &glyphs[i];
        if is_space(g.ch) {
            continue;
        }
        let f = fg[i];
        if let Some((u1, size)) = last {
            let gap = f.u0 - u1;
            if gap > SPACE_GAP_EM * size.max(g.size) {
                gaps.push(gap);
            }
        }
        last = Some((last.map_or(f.u1, |(u1, _)| u1.max(f.u1)), g.size));
    }
    if gaps.len() < 3 {
        return None;
    }
    gaps.sort_by(f32::total_cmp);
    Some(gaps[(gaps.len() - 1) / 2])
}

fn merge_scripts(rows: &mut Vec<Row>, glyphs: &[Glyph], fg: &[FGlyph]) {
    let mut i = 0;
    while i < rows.len() {
        let small = &rows[i];
        let mut target: Option<usize> = None;
        for j in [i.wrapping_sub(1), i + 1] {
            let Some(big) = rows.get(j) else { continue };
            let fits = small.size <= SCRIPT_SIZE_RATIO * big.size
                && (small.v - big.v).abs() <= SCRIPT_SHIFT_EM * big.size
                && small.umin >= big.umin - big.size
                && small.umax <= big.umax + big.size
                && !drawn_over(small, big, glyphs, fg);
            if fits && target.is_none_or(|t| rows[t].size < big.size) {
                target = Some(j);
            }
        }
        if let Some(t) = target {
            let small = rows.remove(i);
            let t = if t > i { t - 1 } else { t };
            let big = &mut rows[t];
            big.members.extend(small.members);
            big.umin = big.umin.min(small.umin);
            big.umax = big.umax.max(small.umax);
            // Re-examine from the merged row's neighbourhood.
            i = t.saturating_sub(1);
        } else {
            i += 1;
        }
    }
}

/// Letters a smaller row draws over the larger row's letters, beyond which
/// it is a line of its own set across the other (an author's name laid
/// over a large title), not a superscript, which sits beside the letters.
const OVERDRAWN_LETTERS: usize = 2;

/// Whether `small` draws more than [`OVERDRAWN_LETTERS`] letters over
/// `big`'s letters (each overlapping a letter of `big` by more than half
/// its own width).
fn drawn_over(small: &Row, big: &Row, glyphs: &[Glyph], fg: &[FGlyph]) -> bool {
    let letters = |r: &Row| -> Vec<(f32, f32)> {
        r.members
            .iter()
            // Digits too: a line of text set over a large form number.
            .filter(|&&m| glyphs[m].ch.is_alphanumeric())
            .map(|&m| (fg[m].u0, fg[m].u1))
            .collect()
    };
    let under = letters(big);
    letters(small)
        .into_iter()
        .filter(|&(a0, a1)| {
            under
                .iter()
                .any(|&(b0, b1)| a1.min(b1) - a0.max(b0) > (a1 - a0) * 0.5)
        })
        .nth(OVERDRAWN_LETTERS)
        .is_some()
}

/// The Latin ligatures of the Alphabetic Presentation Forms block.
fn is_ligature(c: char) -> bool {
    ('\u{FB00}'..='\u{FB06}').contains(&c)
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{200B}'
}

fn finish_line(
    glyphs: &[Glyph],
    fg: &[FGlyph],
    pending: &[(usize, bool)],
    v: f32,
) -> (f32, f32, TextLine) {
    let mut text = String::new();
    let mut bbox: Option<Rect> = None;
    let mut sizes: Vec<(f32, usize)> = Vec::new();
    let mut bold = 0usize;
    let mut count = 0usize;
    let (mut chars, mut spaces) = place_accents(glyphs, fg, pending);
    close_letter_spacing(glyphs, fg, pending, &chars, &mut spaces);
    mark_superscripts(glyphs, fg, pending, &mut chars, &mut spaces);
    for (k, &(i, _)) in pending.iter().enumerate() {
        let g = &glyphs[i];
        let Some(ch) = chars[k] else {
            continue;
        };
        if spaces[k] && !text.is_empty() && !text.ends_with(' ') {
            text.push(' ');
        }
        push_char(&mut text, ch);
        count += 1;
        if g.bold {
            bold += 1;
        }
        let s = (g.size * 10.0).round() / 10.0;
        match sizes.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => sizes.push((s, 1)),
        }
        bbox = Some(match bbox {
            None => g.bbox,
            Some(b) => Rect {
                x0: b.x0.min(g.bbox.x0),
                top: b.top.min(g.bbox.top),
                x1: b.x1.max(g.bbox.x1),
                bottom: b.bottom.max(g.bbox.bottom),
            },
        });
    }
    // Dominant size by character count; ties go to the larger size.
    let size = sizes
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.0.total_cmp(&b.0)))
        .map(|s| s.0)
        .unwrap_or(0.0);
    let u = pending.first().map(|&(i, _)| fg[i].u0).unwrap_or(0.0);
    let line = TextLine {
        text: cyrillic_by_code(text.trim_end()),
        bbox: bbox.unwrap_or_default(),
        size,
        bold: bold * 2 > count,
    };
    (v, u, line)
}

/// Letters of a line before it can count as Cyrillic read by its codes.
const CODE_READ_MIN_LETTERS: usize = 4;

/// A line of an 8-bit Cyrillic font (TeX's T2A, Windows-1251) that has no
/// ToUnicode map and glyph names pdfium does not know reaches us as the
/// raw codes, read as Latin-1: "Íå î÷åíü". Both encodings put А–я at 0xC0
/// to 0xFF (the Adobe Glyph List's `afii10017`–`afii10097`), so a line
/// whose letters are nearly all in that block, with no ASCII letter, is
/// read back as Cyrillic ("Не очень"). Latin text with accents always has
/// plain letters besides.
fn cyrillic_by_code(text: &str) -> String {
    let high = |c: char| ('\u{C0}'..='\u{FF}').contains(&c) || c == '\u{A8}' || c == '\u{B8}';
    let letters = text
        .chars()
        .filter(|&c| c.is_alphabetic() || high(c))
        .count();
    let in_block = text.chars().filter(|&c| high(c)).count();
    if letters < CODE_READ_MIN_LETTERS
        || text.chars().any(|c| c.is_ascii_alphabetic())
        || in_block * 10 < letters * 9
    {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c as u32 {
            0xC0..=0xFF => char::from_u32(c as u32 - 0xC0 + 0x410).unwrap_or(c),
            0xA8 => 'Ё',
            0xB8 => 'ё',
            _ => c,
        })
        .collect()
}

/// The combining form of a spacing accent that TeX-style typesetting
/// draws as a glyph of its own over or under a letter ("Z¨ollner",
/// "Franc¸ois").
fn combining(c: char) -> Option<char> {
    Some(match c {
        '\u{A8}' => '\u{308}',             // diaeresis
        '\u{B4}' | '\u{2CA}' => '\u{301}', // acute
        '`' | '\u{2CB}' => '\u{300}',      // grave
        '\u{2C6}' | '^' => '\u{302}',      // circumflex
        '\u{2DC}' | '~' => '\u{303}',      // tilde
        '\u{AF}' | '\u{2C9}' => '\u{304}', // macron
        '\u{2D8}' => '\u{306}',            // breve
        '\u{2D9}' => '\u{307}',            // dot above
        '\u{2DA}' => '\u{30A}',            // ring above
        '\u{2DD}' => '\u{30B}',            // double acute
        '\u{2C7}' => '\u{30C}',            // caron
        '\u{B8}' => '\u{327}',             // cedilla
        '\u{2DB}' => '\u{328}',            // ogonek
        _ => return None,
    })
}

/// Per glyph of a line: the character to write (`None` for an accent that
/// went into its letter) and whether a space comes before it.
///
/// An accent drawn as its own glyph joins the neighbouring letter it sits
/// over (its middle falls inside the letter's advance), when the two make
/// one precomposed character: "Z¨ollner" reads "Zöllner". An accent beside
/// a letter, as in program text ("a^b"), stays as printed.
fn place_accents(
    glyphs: &[Glyph],
    fg: &[FGlyph],
    pending: &[(usize, bool)],
) -> (Vec<Option<char>>, Vec<bool>) {
    let mut chars: Vec<Option<char>> = pending.iter().map(|&(i, _)| Some(glyphs[i].ch)).collect();
    let mut spaces: Vec<bool> = pending.iter().map(|&(_, s)| s).collect();
    for k in 0..pending.len() {
        let i = pending[k].0;
        let Some(mark) = combining(glyphs[i].ch) else {
            continue;
        };
        let middle = (fg[i].u0 + fg[i].u1) / 2.0;
        let under = |j: usize| {
            let f = fg[pending[j].0];
            f.u0 < middle && middle < f.u1
        };
        // The letter the accent sits over: after it (TeX writes "\"o" as
        // the accent, then the letter), else before it (a cedilla).
        let target = [k + 1, k.wrapping_sub(1)]
            .into_iter()
            .filter(|&j| j < pending.len() && under(j))
            .find_map(|j| {
                let letter = chars[j]?;
                let base = if letter == '\u{131}' { 'i' } else { letter };
                let composed = unicode_normalization::char::compose(base, mark)?;
                Some((j, composed))
            });
        if let Some((j, composed)) = target {
            chars[j] = Some(composed);
            chars[k] = None;
            if spaces[k] && j > k {
                spaces[j] = true;
            }
        }
    }
    (chars, spaces)
}

/// A line set letter by letter ("l u a - w i d o w", spaced small
/// capitals) reads as words: when every gap is wide enough for a space and
/// so each written word would be one letter, spaces stay only where the
/// gap is clearly wider than the letters' own tracking, or nowhere when all
/// gaps are alike.
fn close_letter_spacing(
    glyphs: &[Glyph],
    fg: &[FGlyph],
    pending: &[(usize, bool)],
    chars: &[Option<char>],
    spaces: &mut [bool],
) {
    let kept: Vec<usize> = (0..pending.len()).filter(|&k| chars[k].is_some()).collect();
    if kept.len() < LETTER_SPACED_MIN || !kept[1..].iter().all(|&k| spaces[k]) {
        return;
    }
    let gaps: Vec<f32> = kept
        .windows(2)
        .map(|w| fg[pending[w[1]].0].u0 - fg[pending[w[0]].0].u1)
        .collect();
    let mut sorted = gaps.clone();
    sorted.sort_by(f32::total_cmp);
    let tracking = sorted[sorted.len() / 2];
    let em = glyphs[pending[kept[0]].0].size.max(1.0);
    for (w, gap) in kept.windows(2).zip(gaps) {
        spaces[w[1]] = gap > tracking * 1.6 && gap > tracking + 0.15 * em;
    }
}

/// A glyph whose baseline sits this share of its neighbour's font size
/// above the neighbour's is raised: footnote marks and affiliation letters
/// rise 0.3 to 0.45 em, while the raised "A" of the LaTeX logo (0.2 em) is
/// a capital and is never rewritten.
const SUPERSCRIPT_RISE_EM: f32 = 0.18;
/// Raised glyphs smaller than this share of their neighbour are not marks
/// but the text beside a drop capital.
const SUPERSCRIPT_MIN_RATIO: f32 = 0.4;
/// A raised run longer than this (letters and digits) is text set small,
/// not a mark.
const SUPERSCRIPT_MAX_RUN: usize = 3;

/// The superscript form of a footnote or affiliation mark's character
/// (digits and lower-case Latin letters); `None` for others.
fn superscript_form(c: char) -> Option<char> {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    const LETTERS: [char; 26] = [
        'ᵃ',
        'ᵇ',
        'ᶜ',
        'ᵈ',
        'ᵉ',
        'ᶠ',
        'ᵍ',
        'ʰ',
        'ⁱ',
        'ʲ',
        'ᵏ',
        'ˡ',
        'ᵐ',
        'ⁿ',
        'ᵒ',
        'ᵖ',
        '\u{107A5}',
        'ʳ',
        'ˢ',
        'ᵗ',
        'ᵘ',
        'ᵛ',
        'ʷ',
        'ˣ',
        'ʸ',
        'ᶻ',
    ];
    match c {
        '0'..='9' => Some(DIGITS[c as usize - '0' as usize]),
        'a'..='z' => Some(LETTERS[c as usize - 'a' as usize]),
        _ => None,
    }
}

/// Marks that are footnote or affiliation marks whatever their size.
fn is_note_mark(c: char) -> bool {
    matches!(
        c,
        '*' | '∗' | '†' | '‡' | '§' | '¶' | '⁎' | '⋆' | '★' | '#' | '✉'
    )
}

/// Superscript marks glued to the word before them ("Smith" with a raised
/// "a", a title ending in a raised "1") are written in their superscript
/// forms ("Smithᵃ", "Guide¹"), so that names and titles can tell the mark
/// from the word: a run of raised digits, lower-case letters, commas and
/// note marks (at most [`SUPERSCRIPT_MAX_RUN`] letters and digits), smaller
/// than the glyph it follows (or, at the start of a line, precedes) and
/// raised above its baseline. A raised run that opens a line before a word
/// ("¹Department of …") is parted from the word by a space. Raised letters
/// after a digit are an ordinal ("2nd") and stay as printed.
fn mark_superscripts(
    glyphs: &[Glyph],
    fg: &[FGlyph],
    pending: &[(usize, bool)],
    chars: &mut [Option<char>],
    spaces: &mut [bool],
) {
    let n = pending.len();
    let raised_against = |k: usize, r: usize| {
        let (g, rg) = (&glyphs[pending[k].0], &glyphs[pending[r].0]);
        g.size <= SCRIPT_SIZE_RATIO * rg.size
            && g.size >= SUPERSCRIPT_MIN_RATIO * rg.size
            && fg[pending[r].0].v - fg[pending[k].0].v >= SUPERSCRIPT_RISE_EM * rg.size
    };
    let markable_chars: Vec<bool> = chars
        .iter()
        .map(|c| c.is_some_and(|c| superscript_form(c).is_some() || c == ',' || is_note_mark(c)))
        .collect();
    let markable = |k: usize| markable_chars[k];
    let mut k = 0;
    while k < n {
        let glued = k > 0 && !spaces[k];
        let (reference, end) = if glued && markable(k) && raised_against(k, k - 1) {
            // Raised glyphs glued to the one before them.
            let mut end = k + 1;
            while end < n && markable(end) && !spaces[end] && raised_against(end, k - 1) {
                end += 1;
            }
            (k - 1, end)
        } else if k == 0 && markable(0) {
            // A run opening the line, measured against the glyph after it.
            let size = glyphs[pending[0].0].size;
            let same_size = |j: usize| (glyphs[pending[j].0].size - size).abs() <= 0.05 * size;
            let mut end = 1;
            while end < n && markable(end) && !spaces[end] && same_size(end) {
                end += 1;
            }
            if end == n || !(0..end).all(|j| raised_against(j, end)) {
                k += 1;
                continue;
            }
            (end, end)
        } else {
            k += 1;
            continue;
        };
        let alnum = (k..end)
            .filter(|&j| chars[j].is_some_and(char::is_alphanumeric))
            .count();
        let after_word = chars[reference]
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, ')' | '.' | ',' | ']'));
        let ordinal = reference < k
            && chars[reference].is_some_and(|c| c.is_ascii_digit())
            && chars[k..end].iter().flatten().any(char::is_ascii_lowercase);
        if after_word && alnum <= SUPERSCRIPT_MAX_RUN && !ordinal {
            for c in chars[k..end].iter_mut().flatten() {
                if let Some(s) = superscript_form(*c) {
                    *c = s;
                }
            }
            if reference == end && chars[end].is_some_and(char::is_alphabetic) {
                spaces[end] = true;
            }
        }
        k = end;
    }
}

/// Letters in a row, each apart from the next, before a line counts as
/// letter-spaced: fewer are more often initials or symbols ("A B C").
const LETTER_SPACED_MIN: usize = 6;

/// Appends a glyph's text: ligatures are spelled out (so "ﬁ" matches "fi"),
/// pdfium's marker for a line-end hyphen becomes '-', the raw codes of
/// TeX's T1 (Cork) encoding become their characters, other control
/// characters are dropped.
fn push_char(s: &mut String, c: char) {
    if let Some(t) = cork(c) {
        s.push_str(t);
        return;
    }
    match c {
        '\u{FB00}' => s.push_str("ff"),
        '\u{FB01}' => s.push_str("fi"),
        '\u{FB02}' => s.push_str("fl"),
        '\u{FB03}' => s.push_str("ffi"),
        '\u{FB04}' => s.push_str("ffl"),
        '\u{FB05}' | '\u{FB06}' => s.push_str("st"),
        '\u{2}' | '\u{AD}' => s.push('-'),
        c if c.is_control() || c == '\u{FFFE}' || c == '\u{FEFF}' => {}
        c => s.push(c),
    }
}

/// A glyph of a font in TeX's T1 (Cork) encoding without a ToUnicode map
/// reaches us as its raw code. The codes below 0x20 are control
/// characters nowhere else, so they are read as T1: dashes, quotation
/// marks and ligatures ("1760\u{15}1827" is "1760–1827"). 0x00–0x0F are
/// left alone: accents, and tab and line feed.
fn cork(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{10}' => "\u{201C}",
        '\u{11}' => "\u{201D}",
        '\u{12}' => "\u{201E}",
        '\u{13}' => "\u{AB}",
        '\u{14}' => "\u{BB}",
        '\u{15}' => "\u{2013}",
        '\u{16}' => "\u{2014}",
        '\u{1B}' => "ff",
        '\u{1C}' => "fi",
        '\u{1D}' => "fl",
        '\u{1E}' => "ffi",
        '\u{1F}' => "ffl",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyrillic_read_by_its_codes_is_read_back() {
        let read = |t: &str| texts(&build_lines(&word_glyphs(t, 10.0, 30.0, 10.0, false))).join("");
        assert_eq!(read("Íå î÷åíü äàëåêî"), "Не очень далеко");
        // Latin text with accents, and short runs, stay.
        assert_eq!(read("Été à Noël"), "Été à Noël");
        assert_eq!(read("ÉTÉ"), "ÉTÉ");
    }

    #[test]
    fn raw_t1_codes_are_read_as_their_characters() {
        let mut s = String::new();
        for c in "Kinship, 1698\u{15}1744 \u{10}\u{1C}eld\u{11}\u{7}".chars() {
            push_char(&mut s, c);
        }
        assert_eq!(s, "Kinship, 1698\u{2013}1744 \u{201C}field\u{201D}");
    }

    /// Lays out `text` as glyphs starting at (x, baseline) with a simple
    /// fixed advance of 0.5 em per character; a `' '` in the text advances
    /// without a glyph unless `space_glyphs`.
    fn word_glyphs(text: &str, x: f32, baseline: f32, size: f32, space_glyphs: bool) -> Vec<Glyph> {
        let mut out = Vec::new();
        let mut cx = x;
        let adv = 0.5 * size;
        for ch in text.chars() {
            if ch != ' ' || space_glyphs {
                out.push(Glyph {
                    ch,
                    bbox: Rect {
                        x0: cx,
                        top: baseline - 0.75 * size,
                        x1: cx + adv,
                        bottom: baseline + 0.25 * size,
                    },
                    origin: (cx, baseline),
                    size,
                    angle: 0.0,
                    bold: false,
                    hidden: false,
                    generated: false,
                });
            }
            cx += adv;
        }
        out
    }

    fn texts(lines: &[BuiltLine]) -> Vec<&str> {
        lines.iter().map(|l| l.line.text.as_str()).collect()
    }

    #[test]
    fn gaps_become_spaces_and_rows_read_top_down() {
        // Second line given first: output must still be top to bottom.
        let mut g = word_glyphs("second line", 72.0, 120.0, 10.0, false);
        g.extend(word_glyphs("first line", 72.0, 100.0, 10.0, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["first line", "second line"]);
        assert_eq!(lines[0].line.size, 10.0);
        let b = lines[0].line.bbox;
        assert!(
            (b.x0 - 72.0).abs() < 1e-3 && (b.top - 92.5).abs() < 1e-3,
            "{b:?}"
        );
    }

    /// `word` laid out by [`word_glyphs`], with the spacing accent `mark`
    /// drawn over (or under) the letter at `at`, as TeX's `\accent` draws
    /// it: before the letter in the content stream, or `after` it.
    fn accented(word: &str, at: usize, mark: char, after: bool) -> Vec<Glyph> {
        let mut g = word_glyphs(word, 10.0, 50.0, 10.0, false);
        let mut accent = g[at];
        accent.ch = mark;
        g.insert(if after { at + 1 } else { at }, accent);
        g
    }

    #[test]
    fn accents_drawn_as_own_glyphs_join_their_letters() {
        // The accent comes before its letter in the stream ("Z¨ollner"),
        // or after it (a cedilla: "Franc¸ois").
        let read = |w: &str, at: usize, mark: char, after: bool| {
            build_lines(&accented(w, at, mark, after))[0]
                .line
                .text
                .clone()
        };
        assert_eq!(read("Zollner", 1, '¨', false), "Zöllner");
        assert_eq!(read("Godel", 1, '¨', true), "Gödel");
        assert_eq!(read("Francois", 4, '¸', true), "François");
        // TeX's dotless i under an acute.
        assert_eq!(read("Mart\u{131}n", 4, '´', false), "Martín");
    }

    #[test]
    fn accents_beside_letters_stay_as_printed() {
        // Program text: the caret and tilde have advances of their own.
        let g = word_glyphs("a^b ~c x¨", 10.0, 50.0, 10.0, false);
        assert_eq!(texts(&build_lines(&g)), vec!["a^b ~c x¨"]);
        // Over a letter it has no precomposed form with: kept.
        let g = accented("qx", 1, '¸', false);
        assert_eq!(texts(&build_lines(&g)), vec!["q¸x"]);
    }

    #[test]
    fn letter_spaced_lines_read_as_words() {
        // 0.5 em letters, 0.3 em tracking and one word gap of 0.8 em.
        let mut g = Vec::new();
        let mut x = 10.0;
        for ch in "lua-widow control".chars() {
            if ch == ' ' {
                x += 5.0;
                continue;
            }
            g.extend(word_glyphs(&ch.to_string(), x, 50.0, 10.0, false));
            x += 8.0;
        }
        assert_eq!(texts(&build_lines(&g)), vec!["lua-widow control"]);
        // Evenly spaced throughout: one word.
        let g = word_glyphs("p r e l i m", 10.0, 50.0, 10.0, false);
        assert_eq!(texts(&build_lines(&g)), vec!["prelim"]);
        // Ordinary words are untouched, and so are a few initials.
        let g = word_glyphs("a b c", 10.0, 50.0, 10.0, false);
        assert_eq!(texts(&build_lines(&g)), vec!["a b c"]);
    }

    #[test]
    fn space_glyphs_do_not_double_up() {
        let g = word_glyphs("a  b", 10.0, 50.0, 12.0, true);
        assert_eq!(texts(&build_lines(&g)), vec!["a b"]);
    }

    #[test]
    fn tight_glyphs_stay_one_word_and_hyphen_is_kept() {
        // 0.5 em advance with 0.05 em tracking: no space.
        let mut g = Vec::new();
        for (k, ch) in "pre-".chars().enumerate() {
            let x = 10.0 + k as f32 * 5.5;
            g.extend(word_glyphs(&ch.to_string(), x, 40.0, 10.0, false));
        }
        assert_eq!(texts(&build_lines(&g)), vec!["pre-"]);
    }

    #[test]
    fn columns_are_not_merged() {
        // Two columns on the same baselines, 20 pt apart at 10 pt type.
        let mut g = Vec::new();
        for (k, y) in [100.0, 112.0].iter().enumerate() {
            g.extend(word_glyphs(&format!("left {k}"), 50.0, *y, 10.0, false));
            g.extend(word_glyphs(
                &format!("right {k}"),
                50.0 + 30.0 + 20.0,
                *y,
                10.0,
                false,
            ));
        }
        let lines = build_lines(&g);
        assert_eq!(
            texts(&lines),
            vec!["left 0", "right 0", "left 1", "right 1"]
        );
    }

    #[test]
    fn tex_logo_with_raised_a_and_lowered_e_stays_one_word() {
        // "LaTeX" as TeX sets it at 20 pt: a small "A" raised 0.2 em, the
        // "E" lowered 0.5 ex (about 0.22 em), the rest on the baseline.
        let size = 20.0;
        let mut g = word_glyphs("L", 100.0, 200.0, size, false);
        g.extend(word_glyphs(
            "A",
            110.0,
            200.0 - 0.2 * size,
            0.75 * size,
            false,
        ));
        g.extend(word_glyphs("T", 118.0, 200.0, size, false));
        g.extend(word_glyphs("E", 128.0, 200.0 + 0.22 * size, size, false));
        g.extend(word_glyphs("X", 138.0, 200.0, size, false));
        g.extend(word_glyphs("support", 160.0, 200.0, size, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["LATEX support"]);
    }

    #[test]
    fn superscript_joins_its_line_and_size_is_dominant() {
        let mut g = word_glyphs("Smith", 100.0, 200.0, 12.0, false);
        // Footnote mark raised by 4 pt at 7 pt, right after the name.
        g.extend(word_glyphs("1", 130.0, 196.0, 7.0, false));
        g.extend(word_glyphs("and Jones", 100.0, 216.0, 12.0, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["Smith¹", "and Jones"]);
        assert_eq!(lines[0].line.size, 12.0);
    }

    /// `text` at 12 pt from x = 100 on the baseline 200, with each
    /// character after a `^` raised 4 pt at 7 pt.
    fn with_raised(text: &str) -> Vec<Glyph> {
        let mut out = Vec::new();
        let mut x = 100.0;
        let mut raised = false;
        for ch in text.chars() {
            if ch == '^' {
                raised = true;
                continue;
            }
            let (size, base) = if raised { (7.0, 196.0) } else { (12.0, 200.0) };
            out.extend(word_glyphs(&ch.to_string(), x, base, size, false));
            x += 0.5 * size;
            raised = false;
        }
        out
    }

    #[test]
    fn raised_marks_are_written_as_superscripts() {
        let read = |t: &str| texts(&build_lines(&with_raised(t))).join(" | ");
        // Affiliation letters, a comma between them, a second author.
        assert_eq!(
            read("Mira Tollan^a^,^b, Pem Ostrow^c"),
            "Mira Tollanᵃ,ᵇ, Pem Ostrowᶜ"
        );
        // Footnote marks after a title word and a star.
        assert_eq!(read("A Field Guide^1"), "A Field Guide¹");
        assert_eq!(read("Notes on Kelp^*"), "Notes on Kelp*");
        // A mark opening an affiliation line is parted from its word.
        assert_eq!(read("^2Department of Tides"), "² Department of Tides");
        // Ordinals stay as printed, and so does a raised word of text.
        assert_eq!(read("the 2^n^d edition"), "the 2nd edition");
        assert_eq!(read("Tidewater^a^b^c^d and more"), "Tidewaterabcd and more");
    }

    #[test]
    fn a_small_line_below_a_title_is_not_a_subscript() {
        let mut g = word_glyphs("A Big Title", 100.0, 200.0, 24.0, false);
        g.extend(word_glyphs("by Someone", 100.0, 222.0, 10.0, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["A Big Title", "by Someone"]);
        assert!(lines[0].line.size > lines[1].line.size);
    }

    #[test]
    fn a_name_laid_over_a_large_title_is_a_line_of_its_own() {
        // The name's baseline is within half the title's em of the title's,
        // as a superscript's would be, but it is drawn across the title's
        // letters, not beside them.
        let mut g = word_glyphs("The tallyho and allied packages", 60.0, 200.0, 24.0, false);
        g.extend(word_glyphs("Odile Marcheteau", 150.0, 207.0, 12.0, false));
        let lines = build_lines(&g);
        assert_eq!(
            texts(&lines),
            vec!["The tallyho and allied packages", "Odile Marcheteau"]
        );
    }

    #[test]
    fn duplicate_glyphs_for_fake_bold_are_dropped() {
        let mut g = word_glyphs("Bold", 10.0, 30.0, 10.0, false);
        g.extend(word_glyphs("Bold", 10.3, 30.0, 10.0, false));
        assert_eq!(texts(&build_lines(&g)), vec!["Bold"]);
    }

    #[test]
    fn hidden_layer_is_flagged_and_kept_apart() {
        let mut g = word_glyphs("visible", 10.0, 30.0, 10.0, false);
        let mut h = word_glyphs("scanned words", 10.0, 30.0, 10.0, false);
        for x in &mut h {
            x.hidden = true;
        }
        g.extend(h);
        let lines = build_lines(&g);
        assert_eq!(lines.len(), 2);
        let hidden: Vec<_> = lines
            .iter()
            .filter(|l| l.hidden)
            .map(|l| l.line.text.as_str())
            .collect();
        assert_eq!(hidden, vec!["scanned words"]);
    }

    #[test]
    fn upward_text_reads_along_its_baseline_after_horizontal_text() {
        // "arXiv" written bottom to top along the left margin.
        let size = 10.0;
        let mut g = Vec::new();
        for (k, ch) in "arXiv 1".chars().enumerate() {
            if ch == ' ' {
                continue;
            }
            let y = 500.0 - k as f32 * 5.0;
            g.push(Glyph {
                ch,
                bbox: Rect {
                    x0: 20.0 - 7.5,
                    top: y - 5.0,
                    x1: 20.0 + 2.5,
                    bottom: y,
                },
                origin: (20.0, y),
                size,
                angle: std::f32::consts::FRAC_PI_2,
                bold: true,
                hidden: false,
                generated: false,
            });
        }
        g.extend(word_glyphs("Body", 100.0, 300.0, 10.0, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["Body", "arXiv 1"]);
        assert!(lines[1].line.bold);
        assert!(lines[1].line.bbox.height() > lines[1].line.bbox.width());
    }

    #[test]
    fn slightly_skewed_ocr_layer_stays_one_line() {
        // A 1 degree skew over a long line drifts the baseline by 7 pt,
        // more than the row tolerance, yet it is one line.
        let a = 1.0f32.to_radians();
        let size = 10.0;
        let mut g = Vec::new();
        let text = "a rather long line of words that keeps going across the page";
        for (k, ch) in text.chars().enumerate() {
            if ch == ' ' {
                continue;
            }
            let d = k as f32 * 5.0;
            let (x, y) = (50.0 + d * a.cos(), 300.0 - d * a.sin());
            g.push(Glyph {
                ch,
                bbox: Rect {
                    x0: x,
                    top: y - 7.5,
                    x1: x + 5.0,
                    bottom: y + 2.5,
                },
                origin: (x, y),
                size,
                angle: a,
                bold: false,
                hidden: true,
                generated: false,
            });
        }
        let mut next = g.clone();
        for x in &mut next {
            x.origin.1 += 14.0;
            x.bbox.top += 14.0;
            x.bbox.bottom += 14.0;
        }
        g.extend(next);
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec![text, text]);
    }

    #[test]
    fn generated_space_settles_a_narrow_gap() {
        // "of its" with a 0.15 em gap: no space from the gap alone, one
        // with pdfium's generated space in it.
        let mut g = word_glyphs("of", 10.0, 30.0, 10.0, false);
        g.extend(word_glyphs("its", 21.5, 30.0, 10.0, false));
        assert_eq!(texts(&build_lines(&g)), vec!["ofits"]);
        let mut hint = word_glyphs(" ", 21.5, 30.0, 10.0, true);
        hint[0].generated = true;
        hint[0].bbox.x1 = hint[0].bbox.x0;
        g.extend(hint);
        assert_eq!(texts(&build_lines(&g)), vec!["of its"]);
    }

    #[test]
    fn stretched_space_with_pdfium_hint_stays_in_line_and_spaces_do_not_split_rows() {
        // A sentence space stretched to 1.1 em in a justified line; the
        // generated space sits on a baseline 0.3 pt off and has pdfium's
        // size of 1 pt for generated characters.
        let mut g = word_glyphs("[37].", 10.0, 30.0, 10.0, false);
        let mut hint = word_glyphs(" ", 46.0, 30.3, 10.0, true);
        hint[0].generated = true;
        hint[0].size = 1.0;
        g.extend(hint);
        g.extend(word_glyphs("Besides", 46.0, 30.0, 10.0, false));
        assert_eq!(texts(&build_lines(&g)), vec!["[37]. Besides"]);
        // Without the hint the same gap is a column gutter.
        g.retain(|x| !x.generated);
        assert_eq!(texts(&build_lines(&g)), vec!["[37].", "Besides"]);
    }

    /// Words at the given x, each after a generated space, 10 pt.
    fn hinted_words(words: &[(&str, f32)]) -> Vec<Glyph> {
        let mut g = Vec::new();
        for (k, &(w, x)) in words.iter().enumerate() {
            if k > 0 {
                let mut hint = word_glyphs(" ", x, 30.0, 10.0, true);
                hint[0].generated = true;
                hint[0].bbox.x1 = hint[0].bbox.x0;
                g.extend(hint);
            }
            g.extend(word_glyphs(w, x, 30.0, 10.0, false));
        }
        g
    }

    #[test]
    fn two_names_of_a_byline_are_two_lines_though_pdfium_put_a_space_between() {
        // "Ulla Berg" and "Anna de Wit" 1.3 em apart, their words 0.3 em.
        let g = hinted_words(&[
            ("Ulla", 10.0),
            ("Berg", 33.0),
            ("Anna", 66.0),
            ("de", 89.0),
            ("Wit", 102.0),
        ]);
        assert_eq!(texts(&build_lines(&g)), vec!["Ulla Berg", "Anna de Wit"]);
        // A justified line: every space stretched to 0.5 em, the sentence
        // space to 1.1 em. One line.
        let g = hinted_words(&[
            ("It", 10.0),
            ("ends.", 25.0),
            ("Then", 61.0),
            ("it", 86.0),
            ("goes", 101.0),
        ]);
        assert_eq!(texts(&build_lines(&g)), vec!["It ends. Then it goes"]);
    }

    #[test]
    fn ligature_spelled_as_two_chars_is_not_a_duplicate() {
        // pdfium reports "ff" from one glyph as two 'f' at the same origin,
        // one after the other in the stream.
        let mut g = word_glyphs("di", 10.0, 30.0, 10.0, false);
        let f = word_glyphs("f", 20.0, 30.0, 10.0, false)[0];
        g.extend([f, f]);
        g.extend(word_glyphs("erent", 25.0, 30.0, 10.0, false));
        assert_eq!(texts(&build_lines(&g)), vec!["different"]);
    }

    #[test]
    fn diagonal_label_is_one_line() {
        let a = 45.0f32.to_radians();
        let mut g = Vec::new();
        for (k, ch) in "Throughput".chars().enumerate() {
            let d = k as f32 * 4.0;
            let (x, y) = (300.0 + d * a.cos(), 400.0 - d * a.sin());
            // Axis-aligned box of a 4 pt advance, 8 pt tall glyph at 45 deg.
            let e = (4.0 + 8.0) * a.cos();
            g.push(Glyph {
                ch,
                bbox: Rect {
                    x0: x - 8.0 * a.sin(),
                    top: y - e,
                    x1: x - 8.0 * a.sin() + e,
                    bottom: y,
                },
                origin: (x, y),
                size: 8.0,
                angle: a,
                bold: false,
                hidden: false,
                generated: false,
            });
        }
        assert_eq!(texts(&build_lines(&g)), vec!["Throughput"]);
    }

    #[test]
    fn ligatures_are_spelled_out() {
        let g = word_glyphs("\u{FB01}nd", 10.0, 30.0, 10.0, false);
        assert_eq!(texts(&build_lines(&g)), vec!["find"]);
    }

    #[test]
    fn a_narrow_ligature_box_does_not_split_its_word() {
        // "ﬁ" measured as one letter wide: 0.3 em short of its advance.
        let mut g = word_glyphs("\u{FB01}", 10.0, 30.0, 10.0, false);
        g[0].bbox.x1 -= 3.0;
        g.extend(word_glyphs("le ﬀ", 15.0, 30.0, 10.0, false));
        // After "ﬀ" (as narrow), a word space where pdfium put one.
        let mut last = g.pop().unwrap();
        last.bbox.x1 -= 3.0;
        g.push(last);
        let mut space = word_glyphs(" ", 35.0, 30.0, 10.0, true)[0];
        space.generated = true;
        g.push(space);
        g.extend(word_glyphs("and", 38.0, 30.0, 10.0, false));
        assert_eq!(texts(&build_lines(&g)), vec!["file ff and"]);
    }

    #[test]
    fn a_line_set_over_large_digits_is_not_merged_into_them() {
        // A form number at 40 pt with a 12 pt note drawn across its digits,
        // baseline within half the number's em.
        let mut g = word_glyphs("1040", 60.0, 200.0, 40.0, false);
        g.extend(word_glyphs("NOTE BOOKLET", 62.0, 190.0, 12.0, false));
        let lines = build_lines(&g);
        assert_eq!(texts(&lines), vec!["NOTE BOOKLET", "1040"]);
    }
}
