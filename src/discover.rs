//! Stage 1, discover: walk the data folder and find the PDFs in it.
//!
//! The data folder itself may be a symlink (the supported way to point
//! colophon elsewhere); symlinks below it are followed too, with a set of
//! visited directories (device, inode) so that a loop is walked once.
//! A file is a PDF when `%PDF-` appears in its first 1024 bytes, as PDF
//! readers accept; a `.pdf` without it is kept so that it gets an error
//! record saying so. Our own temporary files and annotation exports are
//! never reported.

use crate::model::PdfFile;
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How many leading bytes may precede `%PDF-` (what PDF readers tolerate).
const HEADER_WINDOW: usize = 1024;

/// Every PDF (or `.pdf`) under `data_dir`, sorted by relative path.
pub fn discover(data_dir: &Path, ignore_dir_name: &str) -> Result<Vec<PdfFile>> {
    let root = fs::canonicalize(data_dir)
        .with_context(|| format!("reading the data folder {}", data_dir.display()))?;
    let mut candidates = Vec::new();
    let mut visited = HashSet::new();
    walk(
        &root,
        &root,
        false,
        ignore_dir_name,
        &mut visited,
        &mut candidates,
    )?;
    let mut files: Vec<PdfFile> = candidates
        .into_par_iter()
        .filter_map(|(path, rel, ignored)| {
            let has_pdf_header = has_pdf_header(&path);
            let named_pdf = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
            (has_pdf_header || named_pdf).then_some(PdfFile {
                path,
                rel,
                ignored,
                has_pdf_header,
            })
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(files)
}

fn walk(
    root: &Path,
    dir: &Path,
    ignored: bool,
    ignore_dir_name: &str,
    visited: &mut HashSet<(u64, u64)>,
    out: &mut Vec<(PathBuf, PathBuf, bool)>,
) -> Result<()> {
    let meta = fs::metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
    if !visited.insert((meta.dev(), meta.ino())) {
        return Ok(()); // already walked: a symlink loop or a second link
    }
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        // An unreadable subfolder is skipped, not fatal: the rest of the
        // library is still processed.
        Err(e) if dir != root => {
            eprintln!("warning: skipping {}: {e}", dir.display());
            return Ok(());
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // metadata() follows symlinks; a dangling link is skipped.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let child_ignored = ignored || name == ignore_dir_name;
            walk(root, &path, child_ignored, ignore_dir_name, visited, out)?;
        } else if meta.is_file() && !is_own_file(&name) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            out.push((path, rel, ignored));
        }
    }
    Ok(())
}

/// Files colophon itself creates beside PDFs.
fn is_own_file(name: &str) -> bool {
    name.starts_with(crate::write::TEMP_PREFIX)
        || name.ends_with("--ann.json")
        || name.ends_with("--ann.md")
}

/// `%PDF-` within the first [`HEADER_WINDOW`] bytes.
pub fn has_pdf_header(path: &Path) -> bool {
    let mut buf = [0u8; HEADER_WINDOW];
    let Ok(mut f) = fs::File::open(path) else {
        return false;
    };
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => return false,
        }
    }
    buf[..n].windows(5).any(|w| w == b"%PDF-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, bytes: &[u8]) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }

    #[test]
    fn finds_pdfs_by_header_and_marks_ignored_dirs() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("data");
        write(&d.join("a.pdf"), b"%PDF-1.4\n...");
        write(&d.join("no-extension"), b"\n\n%PDF-1.7 junk before is fine");
        write(&d.join("fake.pdf"), b"hello, not a pdf");
        write(&d.join("notes.txt"), b"plain text");
        write(&d.join("_ignore/sub/b.PDF"), b"%PDF-1.5");
        write(&d.join("x/.colophon-tmp-123"), b"%PDF-1.5");
        write(&d.join("x/a--ann.json"), b"{}");
        let files = discover(&d, "_ignore").unwrap();
        let got: Vec<_> = files
            .iter()
            .map(|f| {
                (
                    f.rel.to_string_lossy().into_owned(),
                    f.ignored,
                    f.has_pdf_header,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("_ignore/sub/b.PDF".into(), true, true),
                ("a.pdf".into(), false, true),
                ("fake.pdf".into(), false, false),
                ("no-extension".into(), false, true),
            ]
        );
    }

    #[test]
    fn header_after_window_is_not_a_pdf() {
        let t = tempfile::tempdir().unwrap();
        let mut bytes = vec![b' '; HEADER_WINDOW];
        bytes.extend_from_slice(b"%PDF-1.4");
        write(&t.path().join("late"), &bytes);
        assert!(!has_pdf_header(&t.path().join("late")));
    }

    #[test]
    fn symlinked_data_and_loops_are_walked_once() {
        let t = tempfile::tempdir().unwrap();
        let lib = t.path().join("library");
        write(&lib.join("sub/a.pdf"), b"%PDF-1.4");
        std::os::unix::fs::symlink(&lib, t.path().join("data")).unwrap();
        // a loop: library/sub/back -> library
        std::os::unix::fs::symlink(&lib, lib.join("sub/back")).unwrap();
        let files = discover(&t.path().join("data"), "_ignore").unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].rel, PathBuf::from("sub/a.pdf"));
    }
}
