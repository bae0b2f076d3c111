//! A quick reader of PDF text: the page's characters, their places, fonts
//! and sizes, and its images, read straight from the file without
//! pdfium. Pdfium loads every font program a page uses (Type 1
//! decryption, CFF and TrueType glyph programs run to measure each
//! glyph) before any text can be read, which was about a third of a run's
//! CPU; text extraction needs only widths and encodings.
//!
//! Anything this reader does not follow faithfully is [`Unsupported`],
//! and the document or page is read by pdfium as before
//! (`super::pdfium`).
//!
//! The stream filters are mostly `lopdf`'s ([`filter`]); the file's
//! syntax (objects, cross-reference data, the page tree) and the content
//! lexer stay here, because lopdf measured four times slower at opening
//! files and eight times slower at parsing content ([`file`], [`lexer`]).
//!
//! - [`object`]: the objects;
//! - [`lexer`]: PDF syntax, for files and content streams;
//! - [`file`]: cross-reference data, objects on demand, streams decoded,
//!   the page tree;
//! - [`filter`]: stream filters (Flate, LZW, ASCII85, ASCIIHex,
//!   RunLength) and predictors, all but Flate and the TIFF predictor
//!   `lopdf`'s;
//! - [`font`]: codes, widths and Unicode of fonts;
//! - [`encoding`]: the predefined font encodings' glyph names, and
//!   PDFDocEncoding for text strings;
//! - [`glyphs`]: glyph names to Unicode (the Adobe Glyph List);
//! - [`standard_widths`]: the standard fonts' widths, for fonts without
//!   `/Widths` that pdfium substitutes;
//! - [`cmap`]: ToUnicode CMaps and Type 0 fonts' encoding CMaps;
//! - [`content`]: a page's content run for its text and images;
//! - [`fuzz`]: the fuzz harness (structured mutations of a seed corpus).

pub mod cmap;
pub mod content;
pub mod encoding;
pub mod file;
pub mod filter;
pub mod font;
#[doc(hidden)]
pub mod fuzz;
pub mod glyphs;
pub mod lexer;
pub mod object;
mod page;
pub mod standard_widths;

/// Why the quick reader left a document or page to pdfium.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Why, for a person (and the message of the document's record).
    pub why: String,
    /// What was too large, when this is a refusal for size
    /// ([`Unsupported::too_large`]).
    pub too_large: Option<String>,
}

/// How the message of a refusal for size begins (see
/// [`Unsupported::too_large`]).
const TOO_LARGE: &str = "too large to read: ";

impl Unsupported {
    pub fn new(why: impl Into<String>) -> Unsupported {
        Unsupported {
            why: why.into(),
            too_large: None,
        }
    }

    /// A refusal for size: a stream that decodes past [`filter::MAX_DECODED`]
    /// (a Flate or LZW bomb), a CMap whose ranges expand past
    /// [`cmap::MAX_EXPANDED`]. Pdfium reads such data whole too (gigabytes
    /// from a few kilobytes, or an abort on an LZW bomb), so the page must
    /// not be handed to it: the worker fails the document instead
    /// (`super::worker`, [`super::PdfError::TooLarge`]).
    pub fn too_large(what: impl std::fmt::Display) -> Unsupported {
        Unsupported {
            why: format!("{TOO_LARGE}{what}"),
            too_large: Some(what.to_string()),
        }
    }

    pub fn is_too_large(&self) -> bool {
        self.too_large.is_some()
    }
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// A document open in the quick reader.
pub struct QuickDoc {
    file: file::File,
    fonts: font::Fonts,
    /// A panic inside the reader (a bug met on some file) leaves its
    /// caches in an unknown state: the document then goes to pdfium.
    broken: std::cell::Cell<bool>,
}

/// A page as the quick reader gives it to `super::pdfium`.
pub(in crate::inspect) struct QuickPage {
    pub geo: super::page::Geometry,
    pub objects: super::page::PageObjects,
    pub glyphs: Vec<super::lines::Glyph>,
}

/// What a panic inside the reader becomes.
const FAILED: &str = "the quick reader failed";

/// Runs `f`, turning a panic into [`Unsupported`]: a bug in this reader
/// must cost a document pdfium's reading, not the document. `Err(())`
/// says it panicked.
fn guarded<T>(f: impl FnOnce() -> Result<T, Unsupported>) -> Result<Result<T, Unsupported>, ()> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| ())
}

impl QuickDoc {
    /// Opens a file's bytes; [`Unsupported`] when the file is encrypted or
    /// its cross-reference data or page tree cannot be read as they are.
    pub fn open(bytes: std::rc::Rc<[u8]>) -> Result<QuickDoc, Unsupported> {
        guarded(|| {
            let file = file::File::open(bytes)?;
            if file.page_count() == 0 {
                return Err(Unsupported::new("no pages found"));
            }
            Ok(QuickDoc {
                file,
                fonts: font::Fonts::default(),
                broken: std::cell::Cell::new(false),
            })
        })
        .unwrap_or_else(|()| Err(Unsupported::new(FAILED)))
    }

    pub fn page_count(&self) -> u32 {
        self.file.page_count()
    }

    /// Runs `f` unless an earlier call panicked; a panic marks the
    /// document broken.
    fn run<T>(&self, f: impl FnOnce() -> Result<T, Unsupported>) -> Result<T, Unsupported> {
        if self.broken.get() {
            return Err(Unsupported::new("the quick reader failed on this document"));
        }
        guarded(f).unwrap_or_else(|()| {
            self.broken.set(true);
            Err(Unsupported::new(FAILED))
        })
    }

    /// An entry of the Info dictionary as text (PDFDocEncoding or UTF-16).
    pub fn info_text(&self, key: &str) -> Result<Option<String>, Unsupported> {
        self.run(|| {
            let Some(info) = self.file.info() else {
                return Ok(None);
            };
            let value = self.file.get_in(&info, key.as_bytes())?;
            Ok(value
                .as_ref()
                .and_then(object::Object::as_string)
                .map(encoding::pdf_doc_decode))
        })
    }

    /// Page `index` (0-based): geometry, images and glyphs.
    pub(in crate::inspect) fn read_page(&self, index: u32) -> Result<QuickPage, Unsupported> {
        self.run(|| {
            let page = self.file.page(index)?;
            let geo = super::page::Geometry::from_box(page.crop_box, page.rotate);
            let content = content::read(&self.file, &self.fonts, &page)?;
            Ok(QuickPage {
                objects: page::objects(&content, &geo),
                glyphs: page::glyphs(&content, &geo),
                geo,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_the_reader_is_unsupported_and_sets_the_document_aside() {
        assert_eq!(guarded(|| Ok(3)), Ok(Ok(3)));
        let panicked: Result<Result<(), Unsupported>, ()> = guarded(|| panic!("a bug"));
        assert_eq!(panicked, Err(()));
        let pdf = crate::test_pdfs::fixture("book-p03-asis.pdf");
        let doc = QuickDoc::open(std::fs::read(pdf).unwrap().into()).unwrap();
        assert!(doc.read_page(0).is_ok());
        let failed: Result<(), Unsupported> = doc.run(|| panic!("a bug"));
        assert_eq!(failed, Err(Unsupported::new("the quick reader failed")));
        // Its caches may be half written: it reads nothing more.
        assert!(doc.read_page(0).is_err());
        assert!(doc.info_text("Title").is_err());
    }
}
