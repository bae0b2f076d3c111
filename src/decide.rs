//! Merges candidates from every source into one [`Decision`]. (stub)

use crate::model::{Candidate, Decision};

/// Bump when the merge rules change.
pub const DECIDE_VERSION: u32 = 1;

pub fn decide(_candidates: &[Candidate]) -> Decision {
    Decision::default()
}
