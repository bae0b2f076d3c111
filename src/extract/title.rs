//! Finder for `title` candidates. (stub: to be written)

use crate::model::{Candidate, DocText};

/// Every `title` candidate in the document's page text.
pub fn find(_doc: &DocText) -> Vec<Candidate> {
    Vec::new()
}
