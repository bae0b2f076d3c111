//! Between decide and report: the SPEC 7 record of one document that was
//! read, from its decision (values below `MIN_CONFIDENCE` set apart as
//! unsure, pages numbered as the user counts them), before the name stage
//! proposes its file name. The online stage assembles its records here too.

use crate::model::{DocResult, PdfFile, Record, Source, Status};
use crate::settings::Settings;
use std::collections::BTreeMap;
use std::path::Path;

/// The SPEC 7 record of a document that was read, before it is named.
pub fn record(file: &PdfFile, hash_hex: String, result: &DocResult, settings: &Settings) -> Record {
    let offset = settings.page_num_offset;
    let decision = &result.decision;
    let sources: BTreeMap<String, Source> = decision
        .sources
        .iter()
        .map(|(field, (page, via))| {
            (
                field.as_str().to_string(),
                Source {
                    page: page.map(|p| p + offset),
                    via: *via,
                    confidence: decision.confidence.get(field).copied(),
                },
            )
        })
        .collect();
    let shift = |v: &[u32]| v.iter().map(|p| p + offset).collect::<Vec<_>>();
    let (metadata, unsure) = crate::decide::split_by_confidence(decision, settings.min_confidence);
    let status = if metadata.is_complete() {
        Status::Complete
    } else {
        Status::Incomplete
    };
    Record {
        path: rel_string(&file.rel),
        blake3: Some(hash_hex),
        pages: Some(result.page_count),
        status,
        error: None,
        metadata,
        unsure,
        sources,
        pages_read: crate::model::PagesRead {
            front: shift(&result.pages_read.front),
            back: shift(&result.pages_read.back),
        },
        vision: crate::model::VisionPages {
            pages: shift(&result.vision.pages),
            failed: shift(&result.vision.failed),
        },
        // The name stage fills it in (`name::propose`).
        proposed_filename: None,
        written: false,
        warnings: result.warnings.clone(),
        online: None,
    }
}

/// A relative path as shown in records (always `/`-separated).
pub fn rel_string(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}
