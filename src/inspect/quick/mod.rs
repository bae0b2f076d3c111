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
//! - [`object`]: the objects;
//! - [`lexer`]: PDF syntax, for files and content streams;
//! - [`file`]: cross-reference data, objects on demand, streams decoded,
//!   the page tree;
//! - [`filter`]: stream filters (Flate, LZW, ASCII85, ASCIIHex,
//!   RunLength) and predictors;
//! - [`font`]: codes, widths and Unicode of fonts;
//! - [`encoding`]: the predefined font encodings' glyph names, and
//!   PDFDocEncoding for text strings;
//! - [`glyphs`]: glyph names to Unicode (the Adobe Glyph List);
//! - [`cmap`]: ToUnicode CMaps and Type 0 fonts' encoding CMaps;
//! - [`content`]: a page's content run for its text and images.

pub mod cmap;
pub mod content;
pub mod encoding;
pub mod file;
pub mod filter;
pub mod font;
pub mod glyphs;
pub mod lexer;
pub mod object;
mod page;

/// Why the quick reader left a document or page to pdfium.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl Unsupported {
    pub fn new(why: impl Into<String>) -> Unsupported {
        Unsupported(why.into())
    }
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A document open in the quick reader.
pub struct QuickDoc {
    file: file::File,
    fonts: font::Fonts,
}

/// A page as the quick reader gives it to `super::pdfium`.
pub(in crate::inspect) struct QuickPage {
    pub geo: super::page::Geometry,
    pub objects: super::page::PageObjects,
    pub glyphs: Vec<super::lines::Glyph>,
}

impl QuickDoc {
    /// Opens a file's bytes; [`Unsupported`] when the file is encrypted or
    /// its cross-reference data or page tree cannot be read as they are.
    pub fn open(bytes: std::rc::Rc<[u8]>) -> Result<QuickDoc, Unsupported> {
        let file = file::File::open(bytes)?;
        if file.page_count() == 0 {
            return Err(Unsupported::new("no pages found"));
        }
        Ok(QuickDoc {
            file,
            fonts: font::Fonts::default(),
        })
    }

    pub fn page_count(&self) -> u32 {
        self.file.page_count()
    }

    /// An entry of the Info dictionary as text (PDFDocEncoding or UTF-16).
    pub fn info_text(&self, key: &str) -> Option<String> {
        let info = self.file.info()?;
        let value = self.file.get_in(&info, key.as_bytes()).ok()??;
        value.as_string().map(encoding::pdf_doc_decode)
    }

    /// Page `index` (0-based): geometry, images and glyphs.
    pub(in crate::inspect) fn read_page(&self, index: u32) -> Result<QuickPage, Unsupported> {
        let page = self.file.page(index)?;
        let geo = super::page::Geometry::from_box(page.crop_box, page.rotate);
        let content = content::read(&self.file, &self.fonts, &page)?;
        Ok(QuickPage {
            objects: page::objects(&content, &geo),
            glyphs: page::glyphs(&content, &geo),
            geo,
        })
    }
}
