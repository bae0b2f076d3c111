//! Pictures: a title drawn as pixels (glyph outlines from a DejaVu face,
//! filled with a small scanline rasteriser, 4x4 supersampling), and a
//! procedural "engraving" for frontispieces. Neither leaves text behind.

use std::sync::Arc;

use image::GrayImage;

use super::fonts::{Face, Family, Fonts};
use super::rng::Rng;

struct Outline {
    edges: Vec<(f32, f32, f32, f32)>,
    start: (f32, f32),
    last: (f32, f32),
    scale: f32,
    dx: f32,
    dy: f32,
}

impl Outline {
    fn pt(&self, x: f32, y: f32) -> (f32, f32) {
        (self.dx + x * self.scale, self.dy - y * self.scale)
    }
    fn line(&mut self, p: (f32, f32)) {
        self.edges.push((self.last.0, self.last.1, p.0, p.1));
        self.last = p;
    }
}

impl ttf_parser::OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        let p = self.pt(x, y);
        self.start = p;
        self.last = p;
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.pt(x, y);
        self.line(p);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (p0, c, p1) = (self.last, self.pt(x1, y1), self.pt(x, y));
        for i in 1..=8 {
            let t = i as f32 / 8.0;
            let u = 1.0 - t;
            self.line((
                u * u * p0.0 + 2.0 * u * t * c.0 + t * t * p1.0,
                u * u * p0.1 + 2.0 * u * t * c.1 + t * t * p1.1,
            ));
        }
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (p0, c1, c2, p1) = (self.last, self.pt(x1, y1), self.pt(x2, y2), self.pt(x, y));
        for i in 1..=10 {
            let t = i as f32 / 10.0;
            let u = 1.0 - t;
            let f = |a: f32, b: f32, c: f32, d: f32| {
                u * u * u * a + 3.0 * u * u * t * b + 3.0 * u * t * t * c + t * t * t * d
            };
            self.line((f(p0.0, c1.0, c2.0, p1.0), f(p0.1, c1.1, c2.1, p1.1)));
        }
    }
    fn close(&mut self) {
        let s = self.start;
        self.line(s);
    }
}

/// Fills the edges (non-zero winding) into a coverage image.
fn fill(edges: &[(f32, f32, f32, f32)], w: u32, h: u32, ink: u8, paper: u8) -> GrayImage {
    const SS: usize = 4;
    let mut cover = vec![0u16; (w * h) as usize];
    let mut xs: Vec<(f32, i32)> = Vec::new();
    for row in 0..h as usize * SS {
        let sy = (row as f32 + 0.5) / SS as f32;
        xs.clear();
        for &(x0, y0, x1, y1) in edges {
            if (y0 <= sy && y1 > sy) || (y1 <= sy && y0 > sy) {
                let t = (sy - y0) / (y1 - y0);
                xs.push((x0 + t * (x1 - x0), if y1 > y0 { 1 } else { -1 }));
            }
        }
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut wind = 0;
        for i in 0..xs.len() {
            let before = wind;
            wind += xs[i].1;
            if before == 0 && wind != 0 {
                let start = xs[i].0;
                let end = xs[i + 1..]
                    .iter()
                    .scan(wind, |wd, e| {
                        *wd += e.1;
                        Some((*wd, e.0))
                    })
                    .find(|(wd, _)| *wd == 0)
                    .map(|(_, x)| x)
                    .unwrap_or(start);
                let (a, b) = (
                    (start * SS as f32).round() as i64,
                    (end * SS as f32).round() as i64,
                );
                let y = row / SS;
                for sx in a.max(0)..b.min(w as i64 * SS as i64) {
                    cover[y * w as usize + sx as usize / SS] += 1;
                }
            }
        }
    }
    let full = (SS * SS) as f32;
    GrayImage::from_fn(w, h, |x, y| {
        let c = (cover[(y * w + x) as usize] as f32 / full).min(1.0);
        image::Luma([(paper as f32 + (ink as f32 - paper as f32) * c) as u8])
    })
}

/// The title drawn as a picture, wrapped to at most three lines. `None`
/// when the DejaVu faces are missing or cannot draw the title.
pub fn title_picture(
    fonts: &Fonts,
    title: &str,
    rng: &mut Rng,
) -> Option<(Arc<GrayImage>, u32, u32)> {
    let face = Face::new(
        *rng.pick(&[Family::Serif, Family::Sans]),
        rng.chance(0.6),
        false,
    );
    let font = fonts.ttf(face)?;
    if !font.covers(title) {
        return None;
    }
    let parsed = ttf_parser::Face::parse(&font.data, 0).ok()?;
    let px = 64.0f32;
    let scale = px / font.units_per_em;
    let adv = |c: char| font.glyph(c).map_or(0.0, |g| g.1) * px / 1000.0;
    // Greedy wrap at ~18 characters per line.
    let mut lines: Vec<String> = Vec::new();
    for word in title.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + word.chars().count() < 18 => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let width = lines
        .iter()
        .map(|l| l.chars().map(adv).sum::<f32>())
        .fold(0.0, f32::max);
    let pad = 24.0;
    let w = (width + 2.0 * pad) as u32;
    let line_h = px * 1.25;
    let h = (lines.len() as f32 * line_h + 2.0 * pad) as u32;
    let mut ol = Outline {
        edges: Vec::new(),
        start: (0.0, 0.0),
        last: (0.0, 0.0),
        scale,
        dx: 0.0,
        dy: 0.0,
    };
    for (i, l) in lines.iter().enumerate() {
        let lw: f32 = l.chars().map(adv).sum();
        let mut x = (w as f32 - lw) / 2.0;
        let base = pad + (i as f32 + 1.0) * line_h - px * 0.25;
        for c in l.chars() {
            if let Some((gid, _)) = font.glyph(c) {
                ol.dx = x;
                ol.dy = base;
                parsed.outline_glyph(ttf_parser::GlyphId(gid), &mut ol);
            }
            x += adv(c);
        }
    }
    let paper = rng.range(150, 255) as u8;
    let ink = rng.range(0, 60) as u8;
    let img = fill(&ol.edges, w, h, ink, paper);
    Some((Arc::new(img), w, h))
}

/// A grey picture of hatched bands and blobs, standing in for a plate.
pub fn engraving(rng: &mut Rng, w: u32, h: u32) -> Arc<GrayImage> {
    let blobs: Vec<(f32, f32, f32)> = (0..rng.range(3, 8))
        .map(|_| {
            (
                rng.f64() as f32 * w as f32,
                rng.f64() as f32 * h as f32,
                rng.uniform(15.0, 70.0) as f32,
            )
        })
        .collect();
    let period = rng.range(3, 7) as u32;
    Arc::new(GrayImage::from_fn(w, h.max(1), |x, y| {
        let mut v = 0.85 - 0.4 * y as f32 / h as f32;
        for (bx, by, r) in &blobs {
            let d = ((x as f32 - bx).powi(2) + (y as f32 - by).powi(2)).sqrt();
            if d < *r {
                v -= 0.35 * (1.0 - d / r);
            }
        }
        let hatch = if (x + y) % period == 0 { 0.8 } else { 1.0 };
        image::Luma([((v * hatch).clamp(0.0, 1.0) * 255.0) as u8])
    }))
}
