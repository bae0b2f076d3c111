//! The PDFs tests and benches use: the fixtures under `tests/fixtures` by
//! name, and synthetic PDFs (pages of Helvetica text, pages that are one
//! gray picture, page sizes and Info dictionaries chosen by the test),
//! written with lopdf. One copy serves the integration tests (`mod
//! test_pdfs;` in `tests/it`), the library's unit tests and
//! `benches/library.rs` (`#[path]`), so it uses only `std` and `lopdf`.
#![allow(dead_code)]

use lopdf::{Document, Object, ObjectId, Stream, dictionary};
use std::path::{Path, PathBuf};

/// A fixture PDF under `tests/fixtures` (see `tests/fixtures/SOURCES.md`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A PDF under construction: add pages, then [`SyntheticPdf::save`] or
/// [`SyntheticPdf::into_bytes`]. Every page has Helvetica as `/F1`.
pub struct SyntheticPdf {
    doc: Document,
    pages_id: ObjectId,
    font_id: ObjectId,
    kids: Vec<Object>,
    info: Option<lopdf::Dictionary>,
    compress: bool,
}

impl Default for SyntheticPdf {
    fn default() -> Self {
        SyntheticPdf::new()
    }
}

impl SyntheticPdf {
    pub fn new() -> SyntheticPdf {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        SyntheticPdf {
            doc,
            pages_id,
            font_id,
            kids: Vec::new(),
            info: None,
            compress: false,
        }
    }

    /// A `w` x `h` pt page drawn by the content stream `ops` (`None`: a page
    /// without a content stream, hence without any text).
    pub fn page(mut self, w: f32, h: f32, ops: Option<&str>) -> Self {
        self.add_page(w, h, ops, None);
        self
    }

    /// A US Letter page with `lines` of Helvetica: each is (size in pt, left
    /// edge, baseline from the page's top), in points.
    pub fn text_page(self, lines: &[(f32, f32, f32, &str)]) -> Self {
        let (w, h) = (612.0, 792.0);
        self.page(w, h, Some(&text_ops(h, lines)))
    }

    /// A `w` x `h` pt page that is one 8-bit gray picture of `width` x
    /// `height` pixels (`/Im0`) covering the whole page, and nothing else.
    pub fn image_page(self, w: f32, h: f32, width: u32, height: u32, gray: Vec<u8>) -> Self {
        let ops = format!("q {w} 0 0 {h} 0 0 cm /Im0 Do Q");
        self.page_with_image(w, h, &ops, width, height, gray)
    }

    /// A `w` x `h` pt page drawn by `ops`, which may show `/F1` (Helvetica)
    /// and `/Im0`, an 8-bit gray picture of `width` x `height` pixels
    /// placed where `ops` says.
    pub fn page_with_image(
        mut self,
        w: f32,
        h: f32,
        ops: &str,
        width: u32,
        height: u32,
        gray: Vec<u8>,
    ) -> Self {
        assert_eq!(gray.len(), (width * height) as usize, "one byte a pixel");
        let image = self.doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image",
                "Width" => width as i64, "Height" => height as i64,
                "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
            },
            gray,
        ));
        self.add_page(w, h, Some(ops), Some(image));
        self
    }

    /// Sets the Info dictionary's /Title and /Author.
    pub fn info(mut self, title: &str, author: &str) -> Self {
        self.info = Some(dictionary! {
            "Title" => Object::string_literal(title),
            "Author" => Object::string_literal(author),
        });
        self
    }

    /// Compresses the streams (pictures are large otherwise).
    pub fn compressed(mut self) -> Self {
        self.compress = true;
        self
    }

    pub fn into_bytes(self) -> Vec<u8> {
        let mut doc = self.finish();
        let mut out = Vec::new();
        doc.save_to(&mut out).expect("writing a synthetic PDF");
        out
    }

    pub fn save(self, path: &Path) {
        std::fs::write(path, self.into_bytes())
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }

    fn add_page(&mut self, w: f32, h: f32, ops: Option<&str>, image: Option<ObjectId>) {
        let mut resources = dictionary! { "Font" => dictionary! { "F1" => self.font_id } };
        if let Some(image) = image {
            resources.set("XObject", dictionary! { "Im0" => image });
        }
        let mut page = dictionary! {
            "Type" => "Page",
            "Parent" => self.pages_id,
            "MediaBox" => vec![0.into(), 0.into(), Object::Real(w), Object::Real(h)],
            "Resources" => resources,
        };
        if let Some(ops) = ops {
            let id = self
                .doc
                .add_object(Stream::new(dictionary! {}, ops.as_bytes().to_vec()));
            page.set("Contents", id);
        }
        self.kids.push(Object::Reference(self.doc.add_object(page)));
    }

    fn finish(mut self) -> Document {
        let count = self.kids.len() as i64;
        self.doc.objects.insert(
            self.pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => self.kids, "Count" => count,
            }),
        );
        let catalog = self
            .doc
            .add_object(dictionary! { "Type" => "Catalog", "Pages" => self.pages_id });
        self.doc.trailer.set("Root", catalog);
        if let Some(info) = self.info {
            let id = self.doc.add_object(info);
            self.doc.trailer.set("Info", id);
        }
        if self.compress {
            self.doc.compress();
        }
        self.doc
    }
}

/// The content stream that draws `lines` of `/F1` on a page `h` pt high:
/// each line is (size in pt, left edge, baseline from the page's top).
/// Parentheses and backslashes in the text are escaped.
pub fn text_ops(h: f32, lines: &[(f32, f32, f32, &str)]) -> String {
    let mut ops = String::new();
    for &(size, x, baseline, text) in lines {
        let text = text
            .replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)");
        ops.push_str(&format!(
            "BT /F1 {size} Tf {x} {} Td ({text}) Tj ET\n",
            h - baseline
        ));
    }
    ops
}
