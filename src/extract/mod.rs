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
pub mod publisher;
pub mod title;
pub mod year;

/// Bump when any finder changes what it proposes for the same page text.
pub const EXTRACT_VERSION: u32 = 2;

/// Every candidate the finders see in the document's page text.
pub fn text_candidates(doc: &DocText) -> Vec<Candidate> {
    let mut out = Vec::new();
    out.extend(title::find(doc));
    out.extend(authors::find(doc));
    out.extend(publisher::find(doc));
    out.extend(year::find(doc));
    out.extend(edition::find(doc));
    out.extend(isbn::find(doc));
    out.extend(doi::find(doc));
    out.extend(lccn::find(doc));
    out
}

/// Candidates from the existing Info/XMP metadata (junk filtered out).
pub fn info_candidates(info: &InfoMeta) -> Vec<Candidate> {
    info::find(info)
}
