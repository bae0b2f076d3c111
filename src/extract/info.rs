//! Candidates from the existing Info dictionary, junk rejected. (stub)

use crate::model::{Candidate, InfoMeta};

pub fn find(_info: &InfoMeta) -> Vec<Candidate> {
    Vec::new()
}
