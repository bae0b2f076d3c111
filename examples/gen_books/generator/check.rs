//! The generator's check on itself: every truth value a page claims to
//! print must come back out of that page's text (pdftotext), compared
//! after Unicode compatibility folding, lower-casing and dropping
//! everything but letters and digits (so line breaks, hyphens and spacing
//! do not matter).

use std::path::Path;
use std::process::Command;

use unicode_normalization::UnicodeNormalization;

use super::pages::Printed;

pub fn squash(s: &str) -> String {
    s.nfkc()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Is pdftotext (poppler-utils) on PATH?
pub fn pdftotext_available() -> bool {
    Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stderr.is_empty())
}

/// The text of each page of a PDF file.
pub fn page_texts(pdf: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
        .map_err(|e| format!("running pdftotext: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "pdftotext failed on {}: {}",
            pdf.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.split('\x0c').map(str::to_string).collect())
}

/// The printed values that cannot be found on their page; empty when the
/// book is good. Values drawn into pictures are not looked for.
pub fn missing(pdf: &Path, printed: &[Printed]) -> Result<Vec<String>, String> {
    let pages: Vec<String> = page_texts(pdf)?.iter().map(|t| squash(t)).collect();
    let mut bad = Vec::new();
    for p in printed.iter().filter(|p| !p.picture) {
        let want = squash(&p.form);
        let found = pages.get(p.page).is_some_and(|t| t.contains(&want));
        if !found {
            bad.push(format!(
                "{} {:?} not on page {}",
                p.field.key(),
                p.form,
                p.page + 1
            ));
        }
    }
    Ok(bad)
}
