//! Finder for `doi` candidates. (stub: to be written)

use crate::model::{Candidate, DocText};

/// Every `doi` candidate in the document's page text.
pub fn find(_doc: &DocText) -> Vec<Candidate> {
    Vec::new()
}

/// Cleans a DOI (prefixes, URL form, trailing punctuation) into the SPEC 7
/// form (lower case, `10.`...), or `None` when it is not a DOI.
pub fn normalize(_s: &str) -> Option<String> {
    None
}
