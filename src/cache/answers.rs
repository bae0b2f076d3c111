//! The vision stage's answer store in the sled `vision` tree: the model's
//! raw text per [`VisionKey`] (rendered page image and model), so that a
//! rerun asks the backend nothing. The pool's callers own a handle each,
//! which is why this holds a tree handle (reference-counted) rather than a
//! borrow of the [`Cache`](super::Cache).

use crate::vision::VisionKey;
use crate::vision::pool::AnswerStore;

/// Vision answers cached in the sled `vision` tree (the model's raw text).
pub struct VisionAnswers(pub(super) sled::Tree);

impl AnswerStore for VisionAnswers {
    /// An entry that does not decode is a miss (the page is asked again).
    fn get(&self, key: &VisionKey) -> Option<String> {
        let bytes = self.0.get(key.as_bytes()).ok()??;
        postcard::from_bytes(&bytes).ok()
    }

    /// A failed store is not an error: the answer is asked again next run.
    fn put(&self, key: &VisionKey, answer: &str) {
        if let Ok(bytes) = postcard::to_stdvec(answer) {
            let _ = self.0.insert(key.as_bytes(), bytes);
        }
    }
}
