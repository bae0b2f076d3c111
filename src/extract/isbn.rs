//! Finder for `isbn` candidates. (stub: to be written)

use crate::model::{Candidate, DocText};

/// Every `isbn` candidate in the document's page text.
pub fn find(_doc: &DocText) -> Vec<Candidate> {
    Vec::new()
}

/// Validates an ISBN-10 or ISBN-13 written in any usual way and returns the
/// 13 digits, or `None` when it is not a valid ISBN.
pub fn to_isbn13(_s: &str) -> Option<String> {
    None
}
