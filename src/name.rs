//! Proposed filenames (SPEC 8). (stub)

use crate::model::Metadata;
use crate::settings::Settings;

/// The proposed file name (with `.pdf`) or `None` without title and author.
pub fn proposed_filename(_meta: &Metadata, _settings: &Settings) -> Option<String> {
    None
}
