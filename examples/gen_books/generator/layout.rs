//! A small typesetter: a page is described as a list of blocks (paragraphs,
//! flexible space, a barcode, a picture) and laid out into positioned lines
//! and shapes. Paragraphs wrap on measured widths; `Fill` blocks share the
//! space left over, like TeX's `\vfill`; body pages flow into one or two
//! columns.

use std::sync::Arc;

use super::fonts::{Face, Fonts};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
    Justify,
}

/// What kind of page this is: it names the page in the truth's `seen`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    Cover,
    HalfTitle,
    AlsoBy,
    Frontispiece,
    Title,
    Copyright,
    Dedication,
    Contents,
    Body,
    About,
    Colophon,
    BackCover,
}

impl PageKind {
    pub fn label(self) -> &'static str {
        match self {
            PageKind::Cover => "cover",
            PageKind::HalfTitle => "half-title page",
            PageKind::AlsoBy => "also-by page",
            PageKind::Frontispiece => "frontispiece",
            PageKind::Title => "title page",
            PageKind::Copyright => "copyright page",
            PageKind::Dedication => "dedication",
            PageKind::Contents => "contents",
            PageKind::Body => "body text",
            PageKind::About => "about the author",
            PageKind::Colophon => "colophon",
            PageKind::BackCover => "back cover",
        }
    }
}

#[derive(Clone)]
pub enum Block {
    Text {
        text: String,
        face: Face,
        size: f32,
        align: Align,
        /// Space above, in points.
        before: f32,
    },
    /// Flexible vertical space with a weight.
    Fill(f32),
    /// An EAN-13 barcode for 13 digits, `height` points tall.
    Barcode {
        digits: String,
        height: f32,
        align: Align,
    },
    /// A grey picture `w` by `h` points.
    Picture {
        image: Arc<image::GrayImage>,
        w: f32,
        h: f32,
        align: Align,
    },
    /// A horizontal rule, a fraction of the measure wide.
    Rule { frac: f32, align: Align },
}

impl Block {
    pub fn text(
        text: impl Into<String>,
        face: Face,
        size: f32,
        align: Align,
        before: f32,
    ) -> Block {
        Block::Text {
            text: text.into(),
            face,
            size,
            align,
            before,
        }
    }
}

/// Positioned marks: text lines (baseline at `y`, PDF coordinates), filled
/// rectangles and images.
#[derive(Clone)]
pub enum Item {
    Text {
        x: f32,
        y: f32,
        face: Face,
        size: f32,
        text: String,
        /// Extra space per ASCII space (justified lines, base-14 only).
        word_spacing: f32,
    },
    /// A line turned 90° anticlockwise (reading upwards), its baseline
    /// starting at (`x`, `y`): margin stamps.
    Sideways {
        x: f32,
        y: f32,
        face: Face,
        size: f32,
        text: String,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
    Image {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        image: Arc<image::GrayImage>,
    },
}

#[derive(Clone)]
pub struct Page {
    pub w: f32,
    pub h: f32,
    pub items: Vec<Item>,
}

/// The geometry every page of a book shares.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub w: f32,
    pub h: f32,
    pub margin_x: f32,
    pub margin_top: f32,
    pub margin_bottom: f32,
}

/// A page to lay out: blocks, columns, and whether lines that do not fit
/// may be dropped (body filler) or the page must shrink until all fit.
pub struct PageSpec {
    pub kind: PageKind,
    pub blocks: Vec<Block>,
    pub columns: usize,
    pub truncate: bool,
    /// Folio printed at the foot (or head), e.g. "vii" or "12".
    pub folio: Option<String>,
    pub folio_top: bool,
    pub folio_face: Face,
    /// Running head text.
    pub running_head: Option<String>,
}

impl PageSpec {
    pub fn new(kind: PageKind, blocks: Vec<Block>, folio_face: Face) -> PageSpec {
        PageSpec {
            kind,
            blocks,
            columns: 1,
            truncate: false,
            folio: None,
            folio_top: false,
            folio_face,
            running_head: None,
        }
    }
}

fn leading(size: f32) -> f32 {
    size * 1.22
}

struct Line {
    text: String,
    width: f32,
    last: bool,
}

fn wrap(fonts: &Fonts, text: &str, face: Face, size: f32, measure: f32) -> Vec<Line> {
    let mut out = Vec::new();
    for hard in text.split('\n') {
        let words: Vec<&str> = hard.split_whitespace().collect();
        let mut cur = String::new();
        for w in words {
            let trial = if cur.is_empty() {
                w.to_string()
            } else {
                format!("{cur} {w}")
            };
            if fonts.width(face, &trial, size) <= measure || cur.is_empty() {
                cur = trial;
            } else {
                let width = fonts.width(face, &cur, size);
                out.push(Line {
                    text: std::mem::take(&mut cur),
                    width,
                    last: false,
                });
                cur = w.to_string();
            }
        }
        let width = fonts.width(face, &cur, size);
        out.push(Line {
            text: cur,
            width,
            last: true,
        });
    }
    out
}

fn x_for(align: Align, x0: f32, measure: f32, width: f32) -> f32 {
    match align {
        Align::Left | Align::Justify => x0,
        Align::Center => x0 + (measure - width) / 2.0,
        Align::Right => x0 + measure - width,
    }
}

/// Natural height of a block on a measure, without `Fill`.
fn height(fonts: &Fonts, b: &Block, measure: f32) -> f32 {
    match b {
        Block::Text {
            text,
            face,
            size,
            before,
            ..
        } => before + wrap(fonts, text, *face, *size, measure).len() as f32 * leading(*size),
        Block::Fill(_) => 0.0,
        Block::Barcode { height, .. } => height + 4.0,
        Block::Picture { h, .. } => h + 6.0,
        Block::Rule { .. } => 8.0,
    }
}

/// Lays out a page. Returns `None` when it does not fit and may not be
/// truncated: the caller shrinks the type and tries again.
pub fn layout(fonts: &Fonts, g: &Geometry, spec: &PageSpec) -> Option<Page> {
    let mut items = Vec::new();
    let top = g.h - g.margin_top;
    let bottom = g.margin_bottom;
    let gutter = 18.0;
    let cols = spec.columns.max(1);
    let full = g.w - 2.0 * g.margin_x;
    let measure = (full - gutter * (cols as f32 - 1.0)) / cols as f32;

    let natural: f32 = spec.blocks.iter().map(|b| height(fonts, b, measure)).sum();
    let fills: f32 = spec
        .blocks
        .iter()
        .map(|b| if let Block::Fill(w) = b { *w } else { 0.0 })
        .sum();
    let avail = top - bottom;
    if cols == 1 && natural > avail && !spec.truncate {
        return None;
    }
    let spare = (avail - natural).max(0.0);
    let mut col = 0usize;
    let mut y = top;
    let col_x = |c: usize| g.margin_x + c as f32 * (measure + gutter);
    'blocks: for b in &spec.blocks {
        match b {
            Block::Fill(w) => {
                if cols == 1 && fills > 0.0 {
                    y -= spare * w / fills;
                }
            }
            Block::Text {
                text,
                face,
                size,
                align,
                before,
            } => {
                y -= before;
                let lines = wrap(fonts, text, *face, *size, measure);
                for line in lines {
                    // The tolerance absorbs rounding when fills take all the spare space.
                    if y - leading(*size) < bottom - 0.5 {
                        if col + 1 < cols {
                            col += 1;
                            y = top;
                        } else {
                            break 'blocks;
                        }
                    }
                    y -= leading(*size);
                    let x0 = col_x(col);
                    let word_spacing =
                        if *align == Align::Justify && !line.last && !face.family.embedded() {
                            let spaces = line.text.matches(' ').count();
                            if spaces > 0 {
                                (measure - line.width) / spaces as f32
                            } else {
                                0.0
                            }
                        } else {
                            0.0
                        };
                    items.push(Item::Text {
                        x: x_for(*align, x0, measure, line.width),
                        y: y + leading(*size) - *size,
                        face: *face,
                        size: *size,
                        text: line.text,
                        word_spacing,
                    });
                }
            }
            Block::Barcode {
                digits,
                height,
                align,
            } => {
                let modules = super::ident::ean13_modules(digits);
                let module = 1.1f32;
                let width = module * modules.len() as f32;
                if y - height < bottom - 0.5 {
                    break;
                }
                let x0 = x_for(*align, col_x(col), measure, width);
                y -= height + 4.0;
                for (i, bar) in modules.iter().enumerate() {
                    if *bar {
                        items.push(Item::Rect {
                            x: x0 + i as f32 * module,
                            y,
                            w: module,
                            h: *height,
                        });
                    }
                }
            }
            Block::Picture { image, w, h, align } => {
                if y - h < bottom - 0.5 {
                    break;
                }
                let x0 = x_for(*align, col_x(col), measure, *w);
                y -= h + 6.0;
                items.push(Item::Image {
                    x: x0,
                    y,
                    w: *w,
                    h: *h,
                    image: image.clone(),
                });
            }
            Block::Rule { frac, align } => {
                let w = measure * frac;
                let x0 = x_for(*align, col_x(col), measure, w);
                y -= 8.0;
                items.push(Item::Rect {
                    x: x0,
                    y: y + 3.0,
                    w,
                    h: 0.6,
                });
            }
        }
    }
    let folio_size = 9.0;
    if let Some(f) = &spec.folio {
        let w = fonts.width(spec.folio_face, f, folio_size);
        let y = if spec.folio_top {
            g.h - g.margin_top * 0.55
        } else {
            g.margin_bottom * 0.5
        };
        items.push(Item::Text {
            x: (g.w - w) / 2.0,
            y,
            face: spec.folio_face,
            size: folio_size,
            text: f.clone(),
            word_spacing: 0.0,
        });
    }
    if let Some(h) = &spec.running_head {
        let w = fonts.width(spec.folio_face, h, folio_size);
        items.push(Item::Text {
            x: (g.w - w) / 2.0,
            y: g.h - g.margin_top * 0.55 + if spec.folio_top { 12.0 } else { 0.0 },
            face: spec.folio_face,
            size: folio_size,
            text: h.clone(),
            word_spacing: 0.0,
        });
    }
    Some(Page {
        w: g.w,
        h: g.h,
        items,
    })
}

/// Lays out a page, shrinking every type size by 8 % per try until it fits.
pub fn layout_fitting(fonts: &Fonts, g: &Geometry, spec: &mut PageSpec) -> Page {
    for _ in 0..12 {
        if let Some(p) = layout(fonts, g, spec) {
            return p;
        }
        for b in &mut spec.blocks {
            if let Block::Text { size, before, .. } = b {
                *size = (*size * 0.92).max(4.0);
                *before *= 0.85;
            }
        }
    }
    spec.truncate = true;
    layout(fonts, g, spec).expect("a truncating layout always fits")
}
