//! The one preprocessing step: upscaling a page image given below
//! [`MIN_SCAN_DPI`] (200 dpi) to that resolution. Scans are rendered at
//! their own resolution bounded to 200-400 dpi ([`super::render_dpi`]), so
//! only a render capped for a poster-sized page, or an `OCR_DPI` set
//! below 200, is upscaled.
//!
//! Issue 18 measured whether the old upscale (below 250 dpi to 300)
//! still pays now that a 150 dpi scan is rendered at 200 dpi instead of
//! 300: on the 6 scanned gold PDFs (54 pages OCRed, machine loaded) the
//! render at 200 dpi read as Tesseract had read the 300 dpi render (field
//! score 0.927 against 0.865 for the 300 dpi render: one LCCN found more
//! and one garbled author name left out instead of given) at 2.00
//! Tesseract CPU-s a page against 2.60; see the README's speed section.
//!
//! Measured before (word recall / precision against the born-digital text
//! of the same pages, 54 scanned pages): rendered at 150 dpi 0.860 /
//! 0.881; at 300 dpi 0.871 / 0.877; at 150 dpi and upscaled here
//! (Catmull-Rom) 0.873 / 0.875. Global Otsu binarisation before Tesseract
//! changed nothing measurable (0.872 / 0.879, page confidence 83.2 against
//! 84.3): Tesseract thresholds by Otsu itself and its LSTM reads the gray
//! image, so it is not done.

use fast_image_resize::images::Image;
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::GrayImage;

use super::MIN_SCAN_DPI;

/// Pages rendered at fewer dots per inch than this are upscaled ...
pub const UPSCALE_BELOW_DPI: f32 = MIN_SCAN_DPI;
/// ... to this resolution.
pub const TARGET_DPI: f32 = MIN_SCAN_DPI;

/// `img` upscaled to [`TARGET_DPI`] when its resolution `dpi` is below
/// [`UPSCALE_BELOW_DPI`], else `None` (use it as it is). The result has at
/// most `max_pixels` pixels: a render that was capped (a poster-sized
/// page) is upscaled only as far as that, or not at all; otherwise the
/// cap would be undone (issue 19: a 100,000 pt page rendered at 3 dpi was
/// "upscaled" to 174 GB).
pub fn upscale_if_low(img: &GrayImage, dpi: f32, max_pixels: u64) -> Option<GrayImage> {
    if !(dpi > 0.0 && dpi < UPSCALE_BELOW_DPI) || img.width() == 0 || img.height() == 0 {
        return None;
    }
    let (w0, h0) = (f64::from(img.width()), f64::from(img.height()));
    let room = (max_pixels as f64 / (w0 * h0)).sqrt();
    let f = f64::from(TARGET_DPI / dpi).min(room);
    let (w, h) = ((w0 * f).floor(), (h0 * f).floor());
    // Not worth a resize below 5% more pixels on a side.
    if f < 1.05 || w * h > max_pixels as f64 {
        return None;
    }
    let (w, h) = (w as u32, h as u32);
    let src = Image::from_vec_u8(
        img.width(),
        img.height(),
        img.as_raw().clone(),
        PixelType::U8,
    )
    .ok()?;
    let mut dst = Image::new(w, h, PixelType::U8);
    let opts = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    Resizer::new().resize(&src, &mut dst, &opts).ok()?;
    GrayImage::from_raw(w, h, dst.into_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upscales_only_low_resolutions() {
        let img = GrayImage::from_fn(100, 150, |x, _| image::Luma([if x < 50 { 0 } else { 255 }]));
        assert!(upscale_if_low(&img, 300.0, 1 << 30).is_none());
        assert!(upscale_if_low(&img, 250.0, 1 << 30).is_none());
        assert!(upscale_if_low(&img, 300.0, u64::MAX).is_none());
        assert!(upscale_if_low(&img, 200.0, 1 << 30).is_none());
        let up = upscale_if_low(&img, 100.0, 1 << 30).unwrap();
        assert_eq!(up.dimensions(), (200, 300));
        // Content stays where it was: dark left half, light right half.
        assert!(up.get_pixel(40, 150)[0] < 30);
        assert!(up.get_pixel(160, 150)[0] > 225);
    }

    /// Issue 19: a huge page, rendered capped at a few dpi, must not be
    /// scaled back up past the cap.
    #[test]
    fn upscale_stays_within_the_pixel_cap() {
        let img = GrayImage::from_pixel(1000, 1000, image::Luma([255]));
        // 3 dpi would ask for 67x; the cap allows 2x on a side.
        let up = upscale_if_low(&img, 3.0, 4_000_000).unwrap();
        assert!(u64::from(up.width()) * u64::from(up.height()) <= 4_000_000);
        assert_eq!(up.dimensions(), (2000, 2000));
        // An image already at the cap is left alone, whatever its dpi.
        assert!(upscale_if_low(&img, 0.001, 1_000_000).is_none());
        assert!(upscale_if_low(&img, f32::MIN_POSITIVE, 1_000_000).is_none());
        assert!(upscale_if_low(&img, f32::NAN, u64::MAX).is_none());
    }
}
