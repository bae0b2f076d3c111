//! Page images for the vision model: resize a rendered page so its long side
//! is about [`TARGET_LONG_SIDE`] pixels (fast_image_resize, aspect kept,
//! never upscaled), then encode it.
//!
//! Why resize: pages are rendered for OCR at 300 dpi (about 2550 × 3300 px
//! for Letter), far more than vision models look at (qwen2.5-vl tiles the
//! image into 28 px patches, so a 1280 px page already costs ~2000 tokens);
//! sending the full render only makes requests slower and larger.
//!
//! Encoding: grayscale pages (OCR renders, scans of text) as PNG, which is
//! lossless and small for text; colour pages (covers, photos) as JPEG, which
//! is several times smaller than PNG for photographic content while text at
//! this quality stays crisp. The encoded bytes are what the cache key hashes,
//! so encoding must stay deterministic for a given input (both encoders are).

use base64::Engine;
use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{ExtendedColorType, GrayImage, ImageEncoder, RgbImage};
use serde::{Deserialize, Serialize};

/// Long side, in pixels, of the image sent to the model.
pub const TARGET_LONG_SIDE: u32 = 1280;

/// JPEG quality for colour pages: high enough that small print stays legible.
const JPEG_QUALITY: u8 = 90;

/// A rendered page, borrowed: grayscale or RGB, as the render stage makes them.
#[derive(Debug, Clone, Copy)]
pub enum PageRef<'a> {
    Gray(&'a GrayImage),
    Rgb(&'a RgbImage),
}

impl<'a> From<&'a GrayImage> for PageRef<'a> {
    fn from(img: &'a GrayImage) -> Self {
        PageRef::Gray(img)
    }
}

impl<'a> From<&'a RgbImage> for PageRef<'a> {
    fn from(img: &'a RgbImage) -> Self {
        PageRef::Rgb(img)
    }
}

/// How the bytes of an [`EncodedImage`] are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
}

/// A page image ready to send: encoded bytes plus the sizes before and after
/// resizing (for diagnostics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedImage {
    pub bytes: Vec<u8>,
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
    pub source_width: u32,
    pub source_height: u32,
}

impl EncodedImage {
    /// blake3 of the encoded bytes: the image part of a [`VisionKey`](super::VisionKey).
    pub fn hash(&self) -> [u8; 32] {
        *blake3::hash(&self.bytes).as_bytes()
    }

    /// Standard (padded) base64 of the bytes, as Ollama's `images` field wants.
    pub fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.bytes)
    }
}

/// Why a page image could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("page image is empty ({0}x{1} px)")]
    Empty(u32, u32),
    #[error("resizing page image: {0}")]
    Resize(String),
    #[error("encoding page image: {0}")]
    Encode(#[from] image::ImageError),
}

/// Size after scaling so the long side is at most `long_side`, keeping the
/// aspect ratio; a smaller image keeps its size (upscaling adds no detail).
pub fn target_size(width: u32, height: u32, long_side: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= long_side || long == 0 {
        return (width, height);
    }
    let scale = long_side as f64 / long as f64;
    let w = ((width as f64 * scale).round() as u32).max(1);
    let h = ((height as f64 * scale).round() as u32).max(1);
    (w, h)
}

/// Resizes (long side [`TARGET_LONG_SIDE`]) and encodes a rendered page.
pub fn prepare<'a>(page: impl Into<PageRef<'a>>) -> Result<EncodedImage, ImageError> {
    prepare_with(page, TARGET_LONG_SIDE)
}

/// Like [`prepare`] with an explicit long side.
pub fn prepare_with<'a>(
    page: impl Into<PageRef<'a>>,
    long_side: u32,
) -> Result<EncodedImage, ImageError> {
    let (raw, width, height, pixel_type, color, format) = match page.into() {
        PageRef::Gray(img) => (
            img.as_raw().as_slice(),
            img.width(),
            img.height(),
            PixelType::U8,
            ExtendedColorType::L8,
            ImageFormat::Png,
        ),
        PageRef::Rgb(img) => (
            img.as_raw().as_slice(),
            img.width(),
            img.height(),
            PixelType::U8x3,
            ExtendedColorType::Rgb8,
            ImageFormat::Jpeg,
        ),
    };
    if width == 0 || height == 0 {
        return Err(ImageError::Empty(width, height));
    }
    let (w, h) = target_size(width, height, long_side);
    let resized;
    let pixels: &[u8] = if (w, h) == (width, height) {
        raw
    } else {
        let src = ImageRef::new(width, height, raw, pixel_type)
            .map_err(|e| ImageError::Resize(e.to_string()))?;
        let mut dst = Image::new(w, h, pixel_type);
        // Lanczos3 keeps thin strokes of small print readable when shrinking
        // by 2-3x; the cost (a few ms per page) is negligible next to the model.
        let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(
            fast_image_resize::FilterType::Lanczos3,
        ));
        Resizer::new()
            .resize(&src, &mut dst, &options)
            .map_err(|e| ImageError::Resize(e.to_string()))?;
        resized = dst.into_vec();
        &resized
    };
    let mut bytes = Vec::new();
    match format {
        ImageFormat::Png => PngEncoder::new(&mut bytes).write_image(pixels, w, h, color)?,
        ImageFormat::Jpeg => JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY)
            .write_image(pixels, w, h, color)?,
    }
    Ok(EncodedImage {
        bytes,
        format,
        width: w,
        height: h,
        source_width: width,
        source_height: height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{GenericImageView, Luma, Rgb};

    /// A page with a black left half and a white right half.
    fn half_black(w: u32, h: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, _| if x < w / 2 { Luma([0]) } else { Luma([255]) })
    }

    #[test]
    fn target_size_keeps_aspect_and_never_upscales() {
        assert_eq!(target_size(2550, 3300, 1280), (989, 1280));
        assert_eq!(target_size(3300, 2550, 1280), (1280, 989));
        assert_eq!(target_size(600, 800, 1280), (600, 800));
        assert_eq!(target_size(1280, 1280, 1280), (1280, 1280));
        assert_eq!(target_size(10000, 3, 1280), (1280, 1));
    }

    #[test]
    fn gray_page_is_shrunk_to_png_with_content_kept() {
        // Sizes in these tests are kept moderate: fast_image_resize's generic
        // code is compiled at the test crate's opt-level, slow in debug.
        let img = half_black(2000, 2600);
        let enc = prepare(&img).unwrap();
        assert_eq!(enc.format, ImageFormat::Png);
        assert_eq!((enc.width, enc.height), (985, 1280));
        assert_eq!((enc.source_width, enc.source_height), (2000, 2600));
        assert!(enc.bytes.starts_with(b"\x89PNG"));
        let back = image::load_from_memory(&enc.bytes).unwrap().to_luma8();
        assert_eq!(back.dimensions(), (985, 1280));
        assert!(back.get_pixel(100, 640)[0] < 20);
        assert!(back.get_pixel(900, 640)[0] > 235);
    }

    #[test]
    fn small_page_keeps_its_size() {
        let img = half_black(600, 800);
        let enc = prepare(&img).unwrap();
        assert_eq!((enc.width, enc.height), (600, 800));
        let back = image::load_from_memory(&enc.bytes).unwrap().to_luma8();
        assert_eq!(
            back.as_raw(),
            img.as_raw(),
            "PNG without resize is lossless"
        );
    }

    #[test]
    fn rgb_page_becomes_jpeg() {
        let img = RgbImage::from_fn(1500, 1900, |x, _| {
            if x < 750 {
                Rgb([200, 20, 20])
            } else {
                Rgb([20, 20, 200])
            }
        });
        let enc = prepare(&img).unwrap();
        assert_eq!(enc.format, ImageFormat::Jpeg);
        assert!(enc.bytes.starts_with(&[0xFF, 0xD8]));
        let back = image::load_from_memory(&enc.bytes).unwrap();
        assert_eq!(back.dimensions(), (1011, 1280));
        let left = back.get_pixel(100, 600);
        assert!(left[0] > 150 && left[2] < 70, "{left:?}");
    }

    #[test]
    fn encoding_is_deterministic_and_hash_follows_content() {
        let a = prepare(&half_black(1400, 1800)).unwrap();
        let b = prepare(&half_black(1400, 1800)).unwrap();
        assert_eq!(a.hash(), b.hash());
        let c = prepare(&half_black(1400, 1801)).unwrap();
        assert_ne!(a.hash(), c.hash());
    }

    #[test]
    fn base64_round_trips() {
        let enc = prepare(&half_black(40, 50)).unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(enc.base64())
            .unwrap();
        assert_eq!(decoded, enc.bytes);
    }

    #[test]
    fn empty_image_is_an_error() {
        let img = GrayImage::new(0, 10);
        assert!(matches!(prepare(&img), Err(ImageError::Empty(0, 10))));
    }
}
