//! Vision stage (SPEC 5 stage 5, SPEC 6, seed 2.4 and 4): asks an
//! Ollama-compatible vision-language model what a page image says about
//! the book, and turns the answer into [`Candidate`](crate::model::Candidate)s
//! with `via = Vision`.
//!
//! The pieces, in the order a page meets them:
//!
//! - [`should_send`] decides from the page's index, image share and OCR
//!   confidence whether the page goes to the model at all (seed 2.4). The
//!   fallback ordering (back pages only once front answers are in) belongs
//!   to the caller.
//! - [`image`] resizes the rendered page (long side about 1280 px) and
//!   encodes it; its blake3 is part of the cache key ([`VisionKey`]).
//! - [`pool`] runs a fixed set of `VLM_CONCURRENCY` plain threads fed by a
//!   bounded channel, so CPU stages keep running while the model works; it
//!   consults an [`AnswerStore`](pool::AnswerStore) first, so a rerun sends
//!   nothing, and switches vision off when the backend is unreachable.
//! - [`hosts`] shares the pool's callers over several backends
//!   (`VLM_ENDPOINTS`) by least outstanding requests, with a circuit
//!   breaker per host.
//! - [`client`] speaks HTTP (ureq) with retries and timeouts, and checks the
//!   backend and model for `colophon vlm-check`.
//! - [`answer`] reads the response body (one JSON object or NDJSON) and the
//!   model's free-form text (lines or JSON) into an [`Answer`](answer::Answer),
//!   then validated candidates.

use crate::settings::VisionThresholds;
use serde::{Deserialize, Serialize};

pub mod answer;
pub mod client;
pub mod hosts;
pub mod image;
pub mod pool;

/// The fake Ollama server of the integration tests, shared with the unit tests.
#[cfg(test)]
pub(crate) use crate::fixtures::fake_ollama;

pub use answer::Answer;
pub use client::{CheckResult, Diagnostics, VisionClient, VisionError, vlm_check, vlm_check_hosts};
pub use image::{EncodedImage, PageRef};
pub use pool::{
    AnswerStore, MemoryStore, NoStore, Outcome, PoolStats, SkipReason, VisionJob, VisionPool,
    VisionResult,
};

/// Bump when [`PROMPT`] changes in a way that can change answers: it is part
/// of every [`VisionKey`], so cached answers to the old prompt are not reused.
pub const PROMPT_VERSION: u32 = 1;

/// The instruction sent with every page image (seed 2.3 and 4.1). It names
/// every field the pipeline wants, asks for one `Field: value` line each,
/// and for `Not visible` when the page does not show a field, so that an
/// absent field is an explicit answer rather than a guess. Authors are asked
/// for separated by `; ` because names themselves may contain commas
/// ("Knuth, Donald E.").
pub const PROMPT: &str = "\
You are looking at one page of a book, report or scientific paper (for example a cover, \
title page or copyright page). Read the bibliographic details printed on this page.

Answer with exactly these nine lines, in this order, one field per line as `Field: value`:
Title: <main title>
Subtitle: <subtitle>
Author: <every author or editor, separated by \"; \">
Publisher: <publisher>
Edition: <edition, e.g. 2nd edition>
Year: <year of publication>
ISBN: <every ISBN printed, separated by \"; \">
DOI: <DOI>
LOC: <Library of Congress Control Number (LCCN)>

Copy the text as printed on the page; do not guess and do not use outside knowledge. \
If a field is not printed on this page, answer `Not visible` for it. Write nothing else.";

/// Why a page goes to the vision model (seed 2.4), for logs and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Page index below `early_pages_cutoff` (covers, title pages).
    EarlyPage,
    /// Image share of the page at or above `full_page_image_ratio`.
    ImageHeavy,
    /// OCR mean word confidence below `low_ocr_confidence`.
    LowOcrConfidence,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::EarlyPage => "early-page",
            Reason::ImageHeavy => "image-heavy",
            Reason::LowOcrConfidence => "low-ocr-confidence",
        }
    }
}

/// Whether a page goes to the vision model, and why (seed 2.4): its 0-based
/// index is below `early_pages_cutoff`, its image ratio is at least
/// `full_page_image_ratio`, or its OCR confidence is below
/// `low_ocr_confidence`. A page without OCR (`None`: it had a text layer)
/// never triggers the confidence rule. The first rule that holds is the
/// reason given.
///
/// This does not look at `ANALYZE_WITH_VISION` or the back-matter mode: the
/// caller asks only when vision is on and the page is being read at all.
pub fn should_send(
    page_index: u32,
    image_ratio: f32,
    ocr_confidence: Option<f32>,
    thresholds: &VisionThresholds,
) -> Option<Reason> {
    if page_index < thresholds.early_pages_cutoff {
        Some(Reason::EarlyPage)
    } else if image_ratio >= thresholds.full_page_image_ratio {
        Some(Reason::ImageHeavy)
    } else if ocr_confidence.is_some_and(|c| c < thresholds.low_ocr_confidence) {
        Some(Reason::LowOcrConfidence)
    } else {
        None
    }
}

/// Cache key of one vision answer: blake3 over the encoded page image, the
/// model name, [`PROMPT_VERSION`] and the prompt text, domain-separated and
/// length-prefixed. The same page asked of the same model with the same
/// prompt is never asked twice; changing `VLM_MODEL` (or the prompt) asks
/// again. Settings that do not change the answer (endpoint, timeout,
/// retries, concurrency) are deliberately left out.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VisionKey(pub [u8; 32]);

impl VisionKey {
    /// The key for asking `model` about `image`.
    pub fn new(image: &EncodedImage, model: &str) -> VisionKey {
        Self::from_image_hash(&image.hash(), model)
    }

    /// The key from an already computed image hash (blake3 of the encoded bytes).
    pub fn from_image_hash(image_hash: &[u8; 32], model: &str) -> VisionKey {
        let mut h = blake3::Hasher::new();
        h.update(b"colophon-vision-key\0");
        h.update(&PROMPT_VERSION.to_le_bytes());
        for part in [PROMPT.as_bytes(), model.as_bytes(), image_hash.as_slice()] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        VisionKey(*h.finalize().as_bytes())
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn hex(&self) -> String {
        crate::util::hex::lower(&self.0)
    }
}

impl std::fmt::Debug for VisionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VisionKey({})", &self.hex()[..16])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thresholds() -> VisionThresholds {
        VisionThresholds {
            full_page_image_ratio: 0.9,
            early_pages_cutoff: 2,
            low_ocr_confidence: 30.0,
        }
    }

    #[test]
    fn early_pages_are_sent_whatever_their_content() {
        let t = thresholds();
        assert_eq!(should_send(0, 0.0, None, &t), Some(Reason::EarlyPage));
        assert_eq!(should_send(1, 0.0, Some(95.0), &t), Some(Reason::EarlyPage));
        assert_eq!(should_send(2, 0.0, None, &t), None);
    }

    #[test]
    fn image_ratio_threshold_is_inclusive() {
        let t = thresholds();
        assert_eq!(should_send(5, 0.9, None, &t), Some(Reason::ImageHeavy));
        assert_eq!(should_send(5, 1.0, None, &t), Some(Reason::ImageHeavy));
        assert_eq!(should_send(5, 0.89, None, &t), None);
    }

    #[test]
    fn ocr_confidence_threshold_is_exclusive_and_needs_ocr() {
        let t = thresholds();
        assert_eq!(
            should_send(5, 0.0, Some(29.9), &t),
            Some(Reason::LowOcrConfidence)
        );
        assert_eq!(should_send(5, 0.0, Some(30.0), &t), None);
        assert_eq!(should_send(5, 0.0, None, &t), None);
    }

    #[test]
    fn cutoff_zero_sends_no_early_page() {
        let t = VisionThresholds {
            early_pages_cutoff: 0,
            ..thresholds()
        };
        assert_eq!(should_send(0, 0.1, Some(80.0), &t), None);
    }

    #[test]
    fn key_changes_with_model_and_image_only() {
        let a = VisionKey::from_image_hash(&[1; 32], "qwen2.5vl:7b");
        assert_eq!(a, VisionKey::from_image_hash(&[1; 32], "qwen2.5vl:7b"));
        assert_ne!(a, VisionKey::from_image_hash(&[1; 32], "llava:13b"));
        assert_ne!(a, VisionKey::from_image_hash(&[2; 32], "qwen2.5vl:7b"));
    }

    #[test]
    fn prompt_names_every_field_and_not_visible() {
        for label in [
            "Title:",
            "Subtitle:",
            "Author:",
            "Publisher:",
            "Edition:",
            "Year:",
            "ISBN:",
            "DOI:",
            "LOC:",
        ] {
            assert!(PROMPT.contains(label), "{label}");
        }
        assert!(PROMPT.contains("Not visible"));
    }
}
