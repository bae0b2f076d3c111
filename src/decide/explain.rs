//! Why a value won: `diagnostics/<stem>/candidates.json` lists every
//! cluster of candidates per field with its features and probability, and
//! `-vv` prints the top three per field.

use super::features::NAMES;
use crate::model::{Decision, Ranked, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Serialize)]
struct Entry<'a> {
    field: &'static str,
    value: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    subtitle: Option<&'a str>,
    /// 1-based with `PAGE_NUM_OFFSET`, like the record's `sources`.
    page: Option<u32>,
    via: &'static str,
    why: &'a str,
    members: u32,
    score: f32,
    probability: Option<f32>,
    chosen: bool,
    features: BTreeMap<&'static str, f32>,
}

fn entries(d: &Decision, offset: u32) -> Vec<Entry<'_>> {
    let mut seen_field = Vec::new();
    d.ranked
        .iter()
        .map(|r| {
            let chosen = !seen_field.contains(&r.field) && d.sources.contains_key(&r.field);
            seen_field.push(r.field);
            Entry {
                field: r.field.as_str(),
                value: &r.value,
                subtitle: r.subtitle.as_deref(),
                page: r.page.map(|p| p + offset),
                via: r.via.as_str(),
                why: &r.why,
                members: r.members,
                score: r.score,
                probability: r.probability,
                chosen,
                features: NAMES
                    .iter()
                    .copied()
                    .zip(r.features.iter().copied())
                    .collect(),
            }
        })
        .collect()
}

/// Writes `candidates.json` into a document's diagnostics folder. Best
/// effort, like the page diagnostics: failing to write fails nothing.
pub fn write_candidates(dir: &Path, d: &Decision, offset: u32) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    if let Ok(json) = serde_json::to_vec_pretty(&entries(d, offset)) {
        let _ = std::fs::write(dir.join("candidates.json"), json);
    }
}

/// The top `n` clusters of every field, one line each, for `-vv`.
pub fn top_lines(d: &Decision, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = None;
    let mut shown = 0;
    for r in &d.ranked {
        if field != Some(r.field) {
            field = Some(r.field);
            shown = 0;
        }
        if shown < n {
            out.push(line(r, shown + 1));
            shown += 1;
        }
    }
    out
}

fn line(r: &Ranked, place: usize) -> String {
    let value = match &r.value {
        Value::Text(t) => format!("{t:?}"),
        Value::Names(n) => format!("{:?}", n.join("; ")),
        Value::Number(y) => y.to_string(),
    };
    let p = r
        .probability
        .map_or_else(|| "rule".to_string(), |p| format!("p={p:.2}"));
    let page = r
        .page
        .map_or_else(String::new, |p| format!(" page {}", p + 1));
    format!(
        "  {} #{place} {p} {value} ({}{page}: {})",
        r.field.as_str(),
        r.via.as_str(),
        r.why
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Candidate, Field, Via};

    #[test]
    fn candidates_json_lists_every_cluster_and_marks_the_winner() {
        let c = |t: &str, score: f32, page: u32| Candidate {
            field: Field::Title,
            value: Value::Text(t.into()),
            score,
            page: Some(page),
            via: Via::Text,
            why: "test".into(),
        };
        let d =
            crate::decide::decide(&[c("A Treatise on Lanterns", 0.8, 0), c("Contents", 0.35, 2)]);
        let dir = tempfile::tempdir().unwrap();
        write_candidates(dir.path(), &d, 1);
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("candidates.json")).unwrap())
                .unwrap();
        let list = json.as_array().unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0]["value"]["Text"], "A Treatise on Lanterns");
        assert_eq!(list[0]["chosen"], true);
        assert_eq!(list[1]["chosen"], false);
        assert_eq!(list[0]["page"], 1);
        assert_eq!(list[0]["features"].as_object().unwrap().len(), NAMES.len());
        let lines = top_lines(&d, 1);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("A Treatise on Lanterns"), "{}", lines[0]);
    }
}
