//! Reading one page through pdfium's C API: the page box and rotation, the
//! image rectangles (handed to [`super::area`]) and the glyphs (handed to
//! [`super::lines`]).
//!
//! `pdfium-render`'s per-character wrappers made about ten calls and two
//! allocations per glyph, each behind its global lock; the glyph loop here
//! makes five and asks font, size, angle and render mode once per text
//! object, which pdfium reports for every glyph of the object alike.
//!
//! Pdfium quirks handled here, each measured on real files:
//! - font sizes are the font size times the text matrix's vertical scale:
//!   Distiller and Cairo set the size in the text matrix and report an
//!   unscaled size of 1.0;
//! - pdfium's generated characters (spaces and line breaks it guesses) are
//!   skipped; `lines` decides spaces from glyph gaps;
//! - text drawn with an invisible render mode is an OCR layer: kept, flagged;
//! - image objects inside form XObjects report bounds in form space, so the
//!   enclosing forms' matrices are applied.

use super::PdfError;
use super::lines::Glyph;
use crate::model::Rect;
use pdfium_render::prelude::{
    FPDF_PAGE, FPDF_PAGEOBJECT, FPDF_TEXTPAGE, FS_MATRIX, FS_QUADPOINTSF, FS_RECTF,
    PdfiumLibraryBindings,
};
use std::collections::HashMap;
use std::ffi::c_void;

/// Page object types (`FPDF_PAGEOBJ_*` in fpdf_edit.h).
const OBJ_TEXT: i32 = 1;
const OBJ_IMAGE: i32 = 3;
const OBJ_FORM: i32 = 5;
/// Text render modes 3 (invisible) and 7 (invisible, added to the clip).
const MODE_INVISIBLE: i32 = 3;
const MODE_INVISIBLE_CLIP: i32 = 7;
/// The font descriptor's ForceBold flag (bit 19).
pub(super) const FORCE_BOLD: i32 = 1 << 18;

/// A loaded page and its text page, closed on drop.
pub(super) struct Page {
    lib: &'static dyn PdfiumLibraryBindings,
    page: FPDF_PAGE,
    text: FPDF_TEXTPAGE,
}

impl Page {
    /// Takes ownership of a page handle from `FPDF_LoadPage` and loads its
    /// text page.
    ///
    /// # Safety
    /// `page` is a live handle from `FPDF_LoadPage` that nothing else closes,
    /// and its document stays open for the life of the returned `Page`.
    pub(super) unsafe fn new(
        lib: &'static dyn PdfiumLibraryBindings,
        page: FPDF_PAGE,
    ) -> Result<Page, PdfError> {
        // SAFETY: `page` is a live page handle (this function's contract); a null result is
        // checked below.
        let text = unsafe { lib.FPDFText_LoadPage(page) };
        if text.is_null() {
            // SAFETY: `page` is live and owned here; it is closed once, as no `Page` will own
            // it.
            unsafe { lib.FPDF_ClosePage(page) };
            return Err(PdfError::Pdfium(
                "the page's text could not be loaded".into(),
            ));
        }
        Ok(Page { lib, page, text })
    }

    /// The displayed page size in points.
    pub(super) fn size(&self) -> (f32, f32) {
        // SAFETY: `self.page` is live until drop (`Page::new`'s contract).
        unsafe {
            (
                self.lib.FPDF_GetPageWidthF(self.page),
                self.lib.FPDF_GetPageHeightF(self.page),
            )
        }
    }

    pub(super) fn geometry(&self) -> Geometry {
        let (width, height) = self.size();
        // SAFETY: `self.page` is live until `Page` is dropped (`Page::new`'s contract).
        let quarter_turns = match unsafe { self.lib.FPDFPage_GetRotation(self.page) } {
            r @ 1..=3 => r as u8,
            _ => 0,
        };
        let (uw, uh) = if quarter_turns % 2 == 1 {
            (height, width)
        } else {
            (width, height)
        };
        // FPDF_GetPageBoundingBox gives the crop box clipped to the media
        // box, which is what width/height measure.
        let mut b = FS_RECTF {
            left: 0.0,
            top: 0.0,
            right: 0.0,
            bottom: 0.0,
        };
        // SAFETY: `self.page` is live until drop, and `b` is an `FS_RECTF` pdfium writes into.
        let (left, bottom) = if unsafe { self.lib.FPDF_GetPageBoundingBox(self.page, &mut b) } != 0
        {
            (b.left, b.bottom)
        } else {
            (0.0, 0.0)
        };
        Geometry {
            left,
            bottom,
            right: left + uw,
            top: bottom + uh,
            quarter_turns,
            width,
            height,
        }
    }

    /// One walk over the page objects: image rectangles (also inside form
    /// XObjects) and whether any text is drawn invisibly.
    pub(super) fn objects(&self, geo: &Geometry) -> PageObjects {
        let mut found = PageObjects {
            images: Vec::new(),
            largest: None,
            invisible_text: false,
        };
        // SAFETY: `self.page` is live until drop.
        let n = unsafe { self.lib.FPDFPage_CountObjects(self.page) };
        for i in 0..n.max(0) {
            // SAFETY: `self.page` is live and `i` is below its object count; a null object is
            // skipped.
            let obj = unsafe { self.lib.FPDFPage_GetObject(self.page, i) };
            if !obj.is_null() {
                self.visit(obj, &[], geo, &mut found, 0);
            }
        }
        found
    }

    fn visit(
        &self,
        obj: FPDF_PAGEOBJECT,
        forms: &[FS_MATRIX],
        geo: &Geometry,
        found: &mut PageObjects,
        depth: usize,
    ) {
        let lib = self.lib;
        // SAFETY: `obj` is a non-null object of this page (or of a form on it), alive while the
        // page is.
        match unsafe { lib.FPDFPageObj_GetType(obj) } {
            OBJ_TEXT if !found.invisible_text => {
                // SAFETY: `obj` is a non-null text object of this live page.
                let mode = unsafe { lib.FPDFTextObj_GetTextRenderMode(obj) };
                found.invisible_text = is_invisible(mode);
            }
            OBJ_IMAGE => {
                let mut q = FS_QUADPOINTSF {
                    x1: 0.0,
                    y1: 0.0,
                    x2: 0.0,
                    y2: 0.0,
                    x3: 0.0,
                    y3: 0.0,
                    x4: 0.0,
                    y4: 0.0,
                };
                // SAFETY: `obj` is a non-null image object of this live page; `q` is an
                // `FS_QUADPOINTSF` pdfium writes into.
                if unsafe { lib.FPDFPageObj_GetRotatedBounds(obj, &mut q) } == 0 {
                    return;
                }
                let mut pts = [(q.x1, q.y1), (q.x2, q.y2), (q.x3, q.y3), (q.x4, q.y4)];
                // Innermost form first: form space → its parent's space → page.
                for m in forms.iter().rev() {
                    for p in &mut pts {
                        *p = (m.a * p.0 + m.c * p.1 + m.e, m.b * p.0 + m.d * p.1 + m.f);
                    }
                }
                if let Some(rect) = geo.map_points(pts) {
                    found.note_largest(rect, self.pixel_size(obj), geo);
                    found.images.push(rect);
                }
            }
            OBJ_FORM if depth < MAX_FORM_DEPTH => {
                let mut m = FS_MATRIX {
                    a: 0.0,
                    b: 0.0,
                    c: 0.0,
                    d: 0.0,
                    e: 0.0,
                    f: 0.0,
                };
                // SAFETY: `obj` is a non-null form object of this live page; `m` is an
                // `FS_MATRIX` pdfium writes into.
                if unsafe { lib.FPDFPageObj_GetMatrix(obj, &mut m) } == 0 {
                    return;
                }
                let mut chain = forms.to_vec();
                chain.push(m);
                // SAFETY: `obj` is a non-null form object of this live page.
                let n = unsafe { lib.FPDFFormObj_CountObjects(obj) };
                for i in 0..n.max(0) {
                    // SAFETY: `obj` is a live form object and `i` is below its object count; a
                    // null child is skipped.
                    let child = unsafe { lib.FPDFFormObj_GetObject(obj, i as _) };
                    if !child.is_null() {
                        self.visit(child, &chain, geo, found, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// An image object's size in pixels, as its stream dictionary says
    /// (nothing is decoded).
    fn pixel_size(&self, obj: FPDF_PAGEOBJECT) -> Option<(u32, u32)> {
        let (mut w, mut h) = (0u32, 0u32);
        // SAFETY: `obj` is a non-null image object of this live page; `w` and `h` are locals
        // pdfium writes into.
        let ok = unsafe { self.lib.FPDFImageObj_GetImagePixelSize(obj, &mut w, &mut h) } != 0;
        (ok && w > 0 && h > 0).then_some((w, h))
    }

    /// The glyphs the page really draws, in displayed-page coordinates.
    /// `invisible_text`: the page has text objects in an invisible render
    /// mode; only then is a text object's mode asked for.
    pub(super) fn glyphs(&self, geo: &Geometry, invisible_text: bool) -> Vec<Glyph> {
        let (lib, tp) = (self.lib, self.text);
        // SAFETY: `self.text` is the live text page of this `Page`, closed only on drop.
        let count = unsafe { lib.FPDFText_CountChars(tp) }.max(0);
        let mut out = Vec::with_capacity(count as usize);
        let mut fonts = FontCache::default();
        // Font size, angle, boldness and render mode of the last text
        // object seen: runs of glyphs share one.
        let mut last: Option<(FPDF_PAGEOBJECT, Style)> = None;
        let margin = 2.0;
        for i in 0..count {
            // SAFETY: `self.text` is live and `i` is below its character count.
            let Some(ch) = char::from_u32(unsafe { lib.FPDFText_GetUnicode(tp, i) }) else {
                continue;
            };
            if ch == '\r' || ch == '\n' {
                continue;
            }
            // Pdfium's guessed spaces go to `lines` as hints only.
            // SAFETY: `self.text` is live and `i` is below its character count.
            let generated = unsafe { lib.FPDFText_IsGenerated(tp, i) } == 1;
            if generated && ch != ' ' {
                continue;
            }
            let mut b = FS_RECTF {
                left: 0.0,
                top: 0.0,
                right: 0.0,
                bottom: 0.0,
            };
            // SAFETY: `self.text` is live, `i` is below its character count, and `b` is an
            // `FS_RECTF` pdfium writes into.
            if unsafe { lib.FPDFText_GetLooseCharBox(tp, i, &mut b) } == 0 {
                continue;
            }
            let bbox = geo.map_rect(b.left, b.bottom, b.right, b.top);
            let (cx, cy) = ((bbox.x0 + bbox.x1) / 2.0, (bbox.top + bbox.bottom) / 2.0);
            // Text outside the page box is not seen by readers (printer
            // marks, text pushed off the page to hide it).
            if cx < -margin || cy < -margin || cx > geo.width + margin || cy > geo.height + margin {
                continue;
            }
            let (mut ox, mut oy) = (0.0f64, 0.0f64);
            // SAFETY: `self.text` is live, `i` is below its character count, and `ox`, `oy` are
            // locals pdfium writes into.
            let origin = if unsafe { lib.FPDFText_GetCharOrigin(tp, i, &mut ox, &mut oy) } != 0 {
                geo.map(ox as f32, oy as f32)
            } else {
                (bbox.x0, bbox.bottom)
            };
            let space_like = ch.is_whitespace();
            // SAFETY: `self.text` is live and `i` is below its character count; the object may
            // be null, which is checked before use.
            let obj = unsafe { lib.FPDFText_GetTextObject(tp, i) };
            let style = self.style_of(i, obj, generated, invisible_text, &mut last, &mut fonts);
            let mut size = style.size;
            if !(size.is_finite() && size > 0.1) {
                size = bbox.height().max(bbox.width());
            }
            out.push(Glyph {
                ch,
                bbox,
                origin,
                size,
                angle: geo.map_angle(style.angle),
                bold: style.bold && !space_like,
                hidden: style.hidden,
                generated,
            });
        }
        out
    }

    /// The style of glyph `i`, drawn by text object `obj`: the style of
    /// the `last` text object when it is the same one (runs of glyphs share
    /// one), else asked for and remembered.
    fn style_of(
        &self,
        i: i32,
        obj: FPDF_PAGEOBJECT,
        generated: bool,
        invisible_text: bool,
        last: &mut Option<(FPDF_PAGEOBJECT, Style)>,
        fonts: &mut FontCache,
    ) -> Style {
        if generated {
            // Pdfium makes these up between objects: asked for one by one
            // (they are spaces, never bold).
            return self.style(i, obj, invisible_text, None);
        }
        match *last {
            Some((o, s)) if !obj.is_null() && o == obj => s,
            _ => {
                let s = self.style(i, obj, invisible_text, Some(fonts));
                if !obj.is_null() {
                    *last = Some((obj, s));
                }
                s
            }
        }
    }

    /// The style of glyph `i`, drawn by text object `obj` (null if none);
    /// without `fonts`, not bold.
    fn style(
        &self,
        i: i32,
        obj: FPDF_PAGEOBJECT,
        invisible_text: bool,
        fonts: Option<&mut FontCache>,
    ) -> Style {
        let (lib, tp) = (self.lib, self.text);
        // SAFETY: `tp` is the live text page and `i` one of its characters (the glyph loop's
        // index).
        let unscaled = unsafe { lib.FPDFText_GetFontSize(tp, i) } as f32;
        let mut m = FS_MATRIX {
            a: 0.0,
            b: 0.0,
            c: 0.0,
            d: 0.0,
            e: 0.0,
            f: 0.0,
        };
        // The length of the text matrix's vertical axis, so that turned
        // text keeps its size (0 when it cannot be had, which sends the
        // size to the glyph-box fallback).
        // SAFETY: `tp` is live, `i` one of its characters, and `m` an `FS_MATRIX` pdfium writes
        // into.
        let scale = if unsafe { lib.FPDFText_GetMatrix(tp, i, &mut m) } != 0 {
            m.c.hypot(m.d)
        } else {
            0.0
        };
        // Pdfium measures the angle clockwise (atan2(c, a) of the matrix);
        // lines and `map_angle` measure it counter-clockwise. Read the
        // other way, text turned a quarter (an arXiv stamp, a landscape
        // table) came out backwards.
        // SAFETY: `tp` is live and `i` one of its characters.
        let clockwise = unsafe { lib.FPDFText_GetCharAngle(tp, i) };
        let angle = if clockwise.is_sign_negative() {
            0.0
        } else {
            (std::f32::consts::TAU - clockwise).rem_euclid(std::f32::consts::TAU)
        };
        let hidden = invisible_text
            && !obj.is_null()
            // SAFETY: `obj` was checked non-null just before, and is a text object of this live
            // page.
            && is_invisible(unsafe { lib.FPDFTextObj_GetTextRenderMode(obj) });
        Style {
            size: (unscaled * scale).abs(),
            angle,
            bold: fonts.is_some_and(|f| f.is_bold(lib, tp, i)),
            hidden,
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // SAFETY: both handles are live and owned by this value.
        unsafe {
            self.lib.FPDFText_ClosePage(self.text);
            self.lib.FPDF_ClosePage(self.page);
        }
    }
}

/// What a glyph's text object says about all of its glyphs.
#[derive(Clone, Copy)]
struct Style {
    /// Scaled font size (may be 0 or not finite: see the glyph loop).
    size: f32,
    /// In user space, radians.
    angle: f32,
    bold: bool,
    hidden: bool,
}

/// Font name → bold, so each font of a page is judged once.
#[derive(Default)]
struct FontCache {
    bold_by_name: HashMap<Vec<u8>, bool>,
    name: Vec<u8>,
}

impl FontCache {
    fn is_bold(&mut self, lib: &dyn PdfiumLibraryBindings, tp: FPDF_TEXTPAGE, i: i32) -> bool {
        let mut flags = 0;
        self.name.resize(128, 0);
        // A name longer than the buffer: pdfium copies nothing and says
        // how long it is; ask again with room for it.
        let len = loop {
            // SAFETY: the buffer is as long as said; pdfium writes a
            // NUL-terminated name and returns its length with the NUL.
            let len = unsafe {
                lib.FPDFText_GetFontInfo(
                    tp,
                    i,
                    self.name.as_mut_ptr() as *mut c_void,
                    self.name.len() as _,
                    &mut flags,
                )
            } as usize;
            if len <= self.name.len() {
                break len;
            }
            self.name.resize(len, 0);
        };
        let name = &self.name[..len.saturating_sub(1).min(self.name.len())];
        if let Some(&b) = self.bold_by_name.get(name) {
            return b;
        }
        // SAFETY: `tp` is the caller's live text page and `i` one of its characters.
        let weight = unsafe { lib.FPDFText_GetFontWeight(tp, i) };
        let b = font_is_bold(&String::from_utf8_lossy(name), weight) || flags & FORCE_BOLD != 0;
        self.bold_by_name.insert(name.to_vec(), b);
        b
    }
}

/// Bold by weight (600 and up; -1 is unknown) or by the font's name
/// ("Times-Bold", "NimbusSans-Semibold").
pub(super) fn font_is_bold(name: &str, weight: i32) -> bool {
    if weight >= 600 {
        return true;
    }
    let n = name.to_ascii_lowercase();
    ["bold", "black", "heavy", "semibold", "demi"]
        .iter()
        .any(|k| n.contains(k))
}

pub(super) fn is_invisible(mode: i32) -> bool {
    mode == MODE_INVISIBLE || mode == MODE_INVISIBLE_CLIP
}

/// What one walk over the page objects finds.
pub(super) struct PageObjects {
    /// Rectangles of all image objects, in displayed-page coordinates,
    /// including images nested in form XObjects.
    pub images: Vec<Rect>,
    /// The image covering the most of the page: its rectangle clipped to
    /// the page, its whole rectangle and its size in pixels.
    pub largest: Option<(Rect, Rect, (u32, u32))>,
    /// Some text object is drawn in an invisible render mode.
    pub invisible_text: bool,
}

impl PageObjects {
    /// Keeps `rect` as the largest image when it covers more of the page
    /// than the largest so far (and its pixel size is known).
    pub(super) fn note_largest(&mut self, rect: Rect, pixels: Option<(u32, u32)>, geo: &Geometry) {
        let Some(pixels) = pixels else { return };
        let clip = Rect {
            x0: rect.x0.max(0.0),
            top: rect.top.max(0.0),
            x1: rect.x1.min(geo.width),
            bottom: rect.bottom.min(geo.height),
        };
        if !(clip.x1 > clip.x0 && clip.bottom > clip.top) {
            return;
        }
        let area = |r: &Rect| (r.x1 - r.x0) * (r.bottom - r.top);
        if self
            .largest
            .as_ref()
            .is_none_or(|(r, _, _)| area(&clip) > area(r))
        {
            self.largest = Some((clip, rect, pixels));
        }
    }
}

/// Forms nest; a malicious file could nest them deeply (pdfium guards
/// against true cycles itself).
const MAX_FORM_DEPTH: usize = 12;

/// Maps pdfium's page space (PDF user space: y up, origin at the media box
/// corner, unrotated) to the displayed page: top-left origin, y down,
/// `/Rotate` applied.
pub(super) struct Geometry {
    /// The page box (crop box clipped to the media box), in user space.
    left: f32,
    bottom: f32,
    right: f32,
    top: f32,
    /// Clockwise display rotation in quarter turns.
    quarter_turns: u8,
    /// Displayed size in points.
    pub width: f32,
    pub height: f32,
}

impl Geometry {
    /// The geometry of a page box `[x0 y0 x1 y1]` (the crop box clipped to
    /// the media box, normalised) shown turned `rotate` degrees clockwise
    /// (0, 90, 180 or 270): what pdfium's page size and bounding box give.
    pub(super) fn from_box(b: [f64; 4], rotate: u32) -> Geometry {
        let quarter_turns = ((rotate / 90) % 4) as u8;
        let (uw, uh) = ((b[2] - b[0]) as f32, (b[3] - b[1]) as f32);
        let (width, height) = if quarter_turns % 2 == 1 {
            (uh, uw)
        } else {
            (uw, uh)
        };
        Geometry {
            left: b[0] as f32,
            bottom: b[1] as f32,
            right: b[2] as f32,
            top: b[3] as f32,
            quarter_turns,
            width,
            height,
        }
    }

    pub(super) fn map(&self, x: f32, y: f32) -> (f32, f32) {
        match self.quarter_turns {
            1 => (y - self.bottom, x - self.left),
            2 => (self.right - x, y - self.bottom),
            3 => (self.top - y, self.right - x),
            _ => (x - self.left, self.top - y),
        }
    }

    /// The displayed-page rectangle around user-space points; `None` when
    /// a coordinate is not finite.
    pub(super) fn map_points(&self, pts: impl IntoIterator<Item = (f32, f32)>) -> Option<Rect> {
        let (mut l, mut b, mut r, mut t) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for (x, y) in pts {
            l = l.min(x);
            r = r.max(x);
            b = b.min(y);
            t = t.max(y);
        }
        (l.is_finite() && b.is_finite() && r.is_finite() && t.is_finite())
            .then(|| self.map_rect(l, b, r, t))
    }

    /// A user-space rectangle as a displayed-page rectangle.
    pub(super) fn map_rect(&self, left: f32, bottom: f32, right: f32, top: f32) -> Rect {
        let (ax, ay) = self.map(left, bottom);
        let (bx, by) = self.map(right, top);
        Rect {
            x0: ax.min(bx),
            top: ay.min(by),
            x1: ax.max(bx),
            bottom: ay.max(by),
        }
    }

    /// Text angles are measured in user space; display rotation turns them
    /// clockwise.
    pub(super) fn map_angle(&self, a: f32) -> f32 {
        a - self.quarter_turns as f32 * std::f32::consts::FRAC_PI_2
    }
}
