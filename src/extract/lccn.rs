//! Finder for `lccn` candidates. (stub: to be written)

use crate::model::{Candidate, DocText};

/// Every `lccn` candidate in the document's page text.
pub fn find(_doc: &DocText) -> Vec<Candidate> {
    Vec::new()
}

/// Normalises an LCCN (`2004012345`, `75-12345` -> `75012345`), or `None`.
pub fn normalize(_s: &str) -> Option<String> {
    None
}
