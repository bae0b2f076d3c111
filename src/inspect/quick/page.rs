//! A page read by the quick reader, in the shape pdfium's page reading
//! gives (`super::super::page`): the page geometry, the images and the
//! glyphs `lines` builds lines from.
//!
//! Two things pdfium's text page does are mirrored, as the line builder
//! was tuned on its output:
//! - a text object that repeats the one just drawn, a hair to the side,
//!   is a fake bold (the same words printed twice) and is dropped;
//! - between characters that stand apart further than a share of a space
//!   pdfium generates a space, which `lines` takes as a hint only.

use super::content::{PageContent, Shown};
use crate::inspect::lines::Glyph;
use crate::inspect::page::{FORCE_BOLD, Geometry, PageObjects, font_is_bold, is_invisible};
use unicode_normalization::UnicodeNormalization;

/// How many earlier text objects a text object is compared with for a
/// fake bold (pdfium looks at the last five).
const SAME_OBJECT_LOOKBACK: usize = 5;

/// The images of a page, placed as pdfium places them.
pub(super) fn objects(content: &PageContent, geo: &Geometry) -> PageObjects {
    let mut found = PageObjects {
        images: Vec::new(),
        largest: None,
        invisible_text: content
            .shown
            .iter()
            .any(|s| is_invisible(s.render_mode as i32)),
    };
    for img in &content.images {
        let Some(rect) = bounds(&img.corners, geo) else {
            continue;
        };
        found.note_largest(rect, img.pixels.filter(|&(w, h)| w > 0 && h > 0), geo);
        found.images.push(rect);
    }
    found
}

/// The glyphs of a page, in displayed-page coordinates.
pub(super) fn glyphs(content: &PageContent, geo: &Geometry) -> Vec<Glyph> {
    let shown = without_fake_bold(&content.shown, content);
    let bold: Vec<bool> = content
        .fonts
        .iter()
        .map(|f| {
            font_is_bold(&String::from_utf8_lossy(f.name()), f.weight())
                || f.flags() & FORCE_BOLD != 0
        })
        .collect();
    // Each font's space width, for pdfium's generated spaces.
    let spaces: Vec<Option<f64>> = content.fonts.iter().map(|f| space_width(f)).collect();
    let margin = 2.0;
    let mut out = Vec::with_capacity(shown.len());
    let mut prev: Option<&Shown> = None;
    let mut last_width = 0.0;
    for s in shown {
        let font = &content.fonts[s.font as usize];
        if let Some(p) = prev {
            if p.object != s.object {
                last_width = 0.0;
            }
            if let Some(g) = generated_space(p, s, &mut last_width, &spaces, geo) {
                out.push(g);
            }
        }
        prev = Some(s);
        if skipped(s) {
            continue;
        }
        let m = &s.trm;
        let (asc, desc) = (font.ascent(), font.descent());
        let corners = [
            apply(m, 0.0, desc),
            apply(m, s.width, desc),
            apply(m, s.width, asc),
            apply(m, 0.0, asc),
        ];
        let Some(bbox) = bounds(&corners, geo) else {
            continue;
        };
        let (cx, cy) = ((bbox.x0 + bbox.x1) / 2.0, (bbox.top + bbox.bottom) / 2.0);
        // Text outside the page box is not seen by readers (as in pdfium's
        // reading).
        if cx < -margin || cy < -margin || cx > geo.width + margin || cy > geo.height + margin {
            continue;
        }
        let (ox, oy) = apply(m, 0.0, 0.0);
        let size = m[2].hypot(m[3]) as f32;
        let size = if size.is_finite() && size > 0.1 {
            size
        } else {
            bbox.height().max(bbox.width())
        };
        let glyph = Glyph {
            ch: s.ch,
            bbox,
            origin: geo.map(ox as f32, oy as f32),
            size,
            angle: geo.map_angle(angle(m)),
            bold: bold[s.font as usize] && !s.ch.is_whitespace(),
            hidden: is_invisible(s.render_mode as i32),
            generated: false,
        };
        if is_decomposed(s.ch) {
            out.extend(s.ch.nfkc().map(|ch| Glyph { ch, ..glyph }));
        } else {
            out.push(glyph);
        }
    }
    out
}

/// Characters left out, as the pdfium reader leaves them out: line
/// breaks; characters beyond the Basic Multilingual Plane from a
/// `/ToUnicode` map, which pdfium hands over as two UTF-16 halves that
/// are no characters ([`Shown::halves`]; math italic letters, emoji —
/// the same characters named by glyph names, `u1D461`, are kept); and the
/// replacement character, which is no text.
fn skipped(s: &Shown) -> bool {
    s.ch == '\r' || s.ch == '\n' || s.ch == '\u{FFFD}' || s.halves
}

/// Characters pdfium's text page gives as their compatibility
/// decomposition, each with the whole character's box: the Latin
/// ligatures (U+FB00 to U+FB06: "ﬁ" is "fi") and Arabic presentation
/// forms (pdfium normalises right-to-left text to its base letters).
fn is_decomposed(ch: char) -> bool {
    matches!(ch, '\u{FB00}'..='\u{FB06}' | '\u{FB50}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
}

/// The characters left when text objects repeating one of the last few
/// (same characters, same size, moved by less than most of a character)
/// are dropped.
fn without_fake_bold<'a>(shown: &'a [Shown], content: &PageContent) -> Vec<&'a Shown> {
    let mut out: Vec<&Shown> = Vec::with_capacity(shown.len());
    // Start and end (in `shown`) of the last kept text objects.
    let mut recent: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < shown.len() {
        let obj = shown[i].object;
        let end = shown[i..]
            .iter()
            .position(|s| s.object != obj)
            .map_or(shown.len(), |n| i + n);
        let run = &shown[i..end];
        let repeat = recent
            .iter()
            .rev()
            .take(SAME_OBJECT_LOOKBACK)
            .any(|&(a, b)| same_object(&shown[a..b], run, content));
        if !repeat {
            out.extend(run);
            recent.push((i, end));
        }
        i = end;
    }
    out
}

/// `b` draws what `a` drew, at nearly the same place: pdfium's test for
/// a fake bold (`CPDF_TextPage::IsSameTextObject`).
fn same_object(a: &[Shown], b: &[Shown], content: &PageContent) -> bool {
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    if a.iter().zip(b).any(|(x, y)| x.ch != y.ch) {
        return false;
    }
    // The two objects' boxes overlap for at least half the width of the
    // second.
    let (ra, rb) = (object_box(a, content), object_box(b, content));
    let overlap = (
        ra[2].min(rb[2]) - ra[0].max(rb[0]),
        ra[3].min(rb[3]) - ra[1].max(rb[1]),
    );
    if overlap.0 <= 0.0
        || overlap.1 <= 0.0
        || (rb[2] - rb[0] - overlap.0).abs() > (rb[2] - rb[0]) / 2.0
    {
        return false;
    }
    let (fa, fb) = (a[0].trm, b[0].trm);
    let size_a = fa[2].hypot(fa[3]);
    let size_b = fb[2].hypot(fb[3]);
    if (size_a - size_b).abs() > 1e-3 * size_a.max(1.0) {
        return false;
    }
    let last = a.last().expect("not empty");
    let char_width = last.width * size_a;
    let (dx, dy) = (fb[4] - fa[4], fb[5] - fa[5]);
    dx.abs() <= 0.9 * char_width && dy.abs() <= size_a.max(char_width) / 8.0
}

/// The user-space box `[x0 y0 x1 y1]` around a text object's glyphs.
fn object_box(run: &[Shown], content: &PageContent) -> [f64; 4] {
    let mut r = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    for s in run {
        let font = &content.fonts[s.font as usize];
        for (u, v) in [(0.0, font.descent()), (s.width, font.ascent())] {
            let (x, y) = apply(&s.trm, u, v);
            r = [r[0].min(x), r[1].min(y), r[2].max(x), r[3].max(y)];
        }
    }
    r
}

/// The space pdfium generates between `prev` and `next` when they stand
/// on one baseline further apart than its threshold
/// (`CPDF_TextPage::ProcessTextObject` and `ProcessInsertObject`).
/// Within one text object: half the font's space width, or for fonts
/// whose space is wider than a third of an em (or that have none) a share
/// of the wider of this character and the one measured at the last such
/// test of the object (`last_width`, in thousandths of an em), a share
/// that shrinks as it widens; between text objects a share of the wider
/// of the two characters. Pdfium gives the space no width, at the next
/// character's origin.
fn generated_space(
    prev: &Shown,
    next: &Shown,
    last_width: &mut f64,
    spaces: &[Option<f64>],
    geo: &Geometry,
) -> Option<Glyph> {
    if prev.ch.is_whitespace() || next.ch.is_whitespace() {
        return None;
    }
    let m = &prev.trm;
    let size = m[2].hypot(m[3]);
    if !(size > 0.0 && m[0].hypot(m[1]) > 0.0) {
        return None;
    }
    // The next origin in the previous glyph's text space (font size 1).
    let (dx, dy) = (next.trm[4] - m[4], next.trm[5] - m[5]);
    let det = m[0] * m[3] - m[1] * m[2];
    if det.abs() < 1e-12 {
        return None;
    }
    let u = (dx * m[3] - dy * m[2]) / det;
    let v = (dy * m[0] - dx * m[1]) / det;
    if v.abs() > 0.5 || u < 0.0 {
        return None;
    }
    let gap = u - prev.width;
    let spaced = if prev.object == next.object {
        // Pdfium tests only where a kerning or character spacing moved
        // the next character.
        if gap.abs() < 1e-6 {
            return None;
        }
        let threshold = match spaces[prev.font as usize] {
            Some(space) if space > 0.0 && space <= 1.0 / 3.0 => space / 2.0,
            _ => {
                let this_width = next.width.abs() * 1000.0;
                let widest = this_width.max(*last_width);
                *last_width = this_width;
                normalize_threshold(widest, [300.0, 500.0, 700.0]) / 1000.0
            }
        };
        threshold > 0.0 && gap >= threshold
    } else {
        let widest = prev.width.abs().max(next.width.abs()) * 1000.0;
        let threshold = normalize_threshold(widest, [400.0, 700.0, 800.0]) / 1000.0;
        threshold > 0.0 && gap > threshold
    };
    if !spaced {
        return None;
    }
    let (x, y) = (next.trm[4] as f32, next.trm[5] as f32);
    Some(Glyph {
        ch: ' ',
        bbox: geo.map_rect(x, y, x, y),
        origin: geo.map(x, y),
        size: size as f32,
        angle: geo.map_angle(angle(m)),
        bold: false,
        hidden: is_invisible(prev.render_mode as i32),
        generated: true,
    })
}

/// The width of a font's space (code 32 when it is a space), if it has one.
fn space_width(font: &super::font::Font) -> Option<f64> {
    let mut text = String::new();
    font.unicode(32, &mut text);
    (text == " ").then(|| font.width(32))
}

/// Pdfium's `NormalizeThreshold(w, t1, t2, t3)`, in thousandths of an
/// em: a wider character gets a smaller share.
fn normalize_threshold(w: f64, [t1, t2, t3]: [f64; 3]) -> f64 {
    if w < t1 {
        w / 2.0
    } else if w < t2 {
        w / 4.0
    } else if w < t3 {
        w / 5.0
    } else {
        w / 6.0
    }
}

fn apply(m: &[f64; 6], x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

/// The baseline's counter-clockwise angle in user space, in [0, 2π). A
/// glyph mirrored left to right (the reversed E of the XeTeX logo) runs
/// backwards, as in pdfium, and is left out of its line.
fn angle(m: &[f64; 6]) -> f32 {
    (m[1].atan2(m[0]) as f32).rem_euclid(std::f32::consts::TAU)
}

/// The displayed-page box around user-space corners.
fn bounds(corners: &[(f64, f64)], geo: &Geometry) -> Option<crate::model::Rect> {
    geo.map_points(corners.iter().map(|&(x, y)| (x as f32, y as f32)))
}
