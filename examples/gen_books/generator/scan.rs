//! The scanned variant of a born-digital book: every page rendered with
//! pdftoppm (poppler-utils), turned by 0.3–1.5°, blurred, speckled with
//! noise, JPEG-compressed, and wrapped as an image-only PDF with no text
//! layer.

use std::path::Path;
use std::process::Command;

use image::GrayImage;

use super::pdf::{self, Info};
use super::rng::Rng;

/// Is pdftoppm on PATH?
pub fn pdftoppm_available() -> bool {
    Command::new("pdftoppm")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stderr.is_empty())
}

/// Rotates about the centre by `deg` degrees (bilinear, white outside).
fn rotate(img: &GrayImage, deg: f64) -> GrayImage {
    let (w, h) = img.dimensions();
    let (s, c) = deg.to_radians().sin_cos();
    let (cx, cy) = (w as f64 / 2.0, h as f64 / 2.0);
    GrayImage::from_fn(w, h, |x, y| {
        let dx = x as f64 - cx;
        let dy = y as f64 - cy;
        let sx = c * dx + s * dy + cx;
        let sy = -s * dx + c * dy + cy;
        let (x0, y0) = (sx.floor(), sy.floor());
        let (fx, fy) = (sx - x0, sy - y0);
        let px = |xx: f64, yy: f64| -> f64 {
            if xx < 0.0 || yy < 0.0 || xx >= w as f64 || yy >= h as f64 {
                255.0
            } else {
                img.get_pixel(xx as u32, yy as u32).0[0] as f64
            }
        };
        let v = px(x0, y0) * (1.0 - fx) * (1.0 - fy)
            + px(x0 + 1.0, y0) * fx * (1.0 - fy)
            + px(x0, y0 + 1.0) * (1.0 - fx) * fy
            + px(x0 + 1.0, y0 + 1.0) * fx * fy;
        image::Luma([v.round().clamp(0.0, 255.0) as u8])
    })
}

/// A separable three-tap blur, `strength` in 0..1 (a lens slightly out of
/// focus); much faster than a Gaussian on page-sized images.
fn soften(img: &GrayImage, strength: f32) -> GrayImage {
    let a = 0.25 * strength.clamp(0.0, 1.0);
    let (w, h) = img.dimensions();
    let src = img.as_raw();
    let mut tmp = vec![0f32; src.len()];
    let (w, h) = (w as usize, h as usize);
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let l = src[if x > 0 { i - 1 } else { i }] as f32;
            let r = src[if x + 1 < w { i + 1 } else { i }] as f32;
            tmp[i] = a * (l + r) + (1.0 - 2.0 * a) * src[i] as f32;
        }
    }
    let mut out = vec![0u8; src.len()];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let u = tmp[if y > 0 { i - w } else { i }];
            let d = tmp[if y + 1 < h { i + w } else { i }];
            out[i] = (a * (u + d) + (1.0 - 2.0 * a) * tmp[i])
                .round()
                .clamp(0.0, 255.0) as u8;
        }
    }
    GrayImage::from_raw(w as u32, h as u32, out).expect("same size")
}

/// Paper tone, noise and dust.
fn age(img: &mut GrayImage, rng: &mut Rng, noise: f64) {
    let paper = rng.uniform(0.88, 0.98);
    let ink = rng.uniform(0.0, 40.0);
    for p in img.pixels_mut() {
        let v = p.0[0] as f64;
        // Map white to paper and black to grey ink, then add noise.
        let v = ink + (v / 255.0) * (255.0 * paper - ink) + rng.noise() * noise;
        p.0[0] = v.round().clamp(0.0, 255.0) as u8;
    }
    let (w, h) = img.dimensions();
    for _ in 0..rng.range(20, 200) {
        let (x, y) = (rng.below(w as usize) as u32, rng.below(h as usize) as u32);
        let d = rng.range(0, 90) as u8;
        img.put_pixel(x, y, image::Luma([d]));
    }
}

/// Renders `born` and writes its scanned variant to `out`.
pub fn scan(
    born: &Path,
    out: &Path,
    rng: &mut Rng,
    sizes: &[(f32, f32)],
    info: &Info,
) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let dpi = *rng.pick(&[150, 150, 200, 120]);
    let status = Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-gray", "-png"])
        .arg(born)
        .arg(dir.path().join("p"))
        .status()
        .map_err(|e| format!("running pdftoppm: {e}"))?;
    if !status.success() {
        return Err(format!("pdftoppm failed on {}", born.display()));
    }
    let mut files: Vec<_> = std::fs::read_dir(dir.path())
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    if files.len() != sizes.len() {
        return Err(format!(
            "pdftoppm gave {} pages, expected {}",
            files.len(),
            sizes.len()
        ));
    }
    let quality = rng.range(35, 75) as u8;
    let blur = rng.uniform(0.4, 1.0) as f32;
    let noise = rng.uniform(2.0, 7.0);
    let sign = if rng.chance(0.5) { 1.0 } else { -1.0 };
    let mut pages = Vec::new();
    for (f, (w, h)) in files.iter().zip(sizes) {
        let img = image::open(f)
            .map_err(|e| format!("reading {}: {e}", f.display()))?
            .to_luma8();
        // Each page sits a little differently on the glass.
        let angle = sign * rng.uniform(0.3, 1.5) * if rng.chance(0.2) { -1.0 } else { 1.0 };
        let img = rotate(&img, angle);
        let mut img = soften(&img, blur);
        age(&mut img, rng, noise);
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, quality)
            .encode_image(&img)
            .map_err(|e| format!("JPEG: {e}"))?;
        pages.push((jpeg, img.width(), img.height(), *w, *h));
    }
    let bytes = pdf::write_jpeg_pages(&pages, info);
    std::fs::write(out, bytes).map_err(|e| format!("writing {}: {e}", out.display()))
}
