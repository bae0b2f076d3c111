//! Field finders (SPEC 5 stage 6): pure functions from page text (with
//! positions and font sizes) to scored [`Candidate`]s, one module per field.
//! They never decide; `decide` merges their candidates with those from
//! existing metadata, OCR and vision.

use crate::model::{Candidate, DocText, InfoMeta};

pub mod authors;
pub mod context;
pub mod doi;
pub mod edition;
pub mod info;
pub mod isbn;
pub mod layout;
pub mod lccn;
pub mod pattern;
pub mod publisher;
pub mod title;
pub mod year;

/// Bump when any finder changes what it proposes for the same page text.
pub const EXTRACT_VERSION: u32 = 2;

/// Every candidate the finders see in the document's page text.
///
/// The layout and the page reading are built once here and shared: each
/// finder building its own (as `find` does) made extraction, not pdfium,
/// most of a cold run's CPU.
pub fn text_candidates(doc: &DocText) -> Vec<Candidate> {
    let layout = layout::Layout::new(doc);
    let pages = context::read(doc);
    let mut out = Vec::new();
    out.extend(title::find_in(&layout));
    out.extend(authors::find_in(&layout));
    out.extend(publisher::find_in(&pages));
    out.extend(year::find_in(&pages));
    out.extend(edition::find_in(&pages));
    out.extend(isbn::find_in(&pages));
    out.extend(doi::find_in(&pages));
    out.extend(lccn::find_in(&pages));
    out
}

/// Candidates from the existing Info/XMP metadata (junk filtered out).
pub fn info_candidates(info: &InfoMeta) -> Vec<Candidate> {
    info::find(info)
}
