//! Finder for `authors` candidates. (stub: to be written)

use crate::model::{Candidate, DocText};

/// Every `authors` candidate in the document's page text.
pub fn find(_doc: &DocText) -> Vec<Candidate> {
    Vec::new()
}
