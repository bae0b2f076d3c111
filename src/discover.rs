//! Stage 1, discover: walk the data folder and find the PDFs in it.
//!
//! The data folder itself may be a symlink (the supported way to point
//! colophon elsewhere); symlinks below it are followed too, with a set of
//! visited directories (device, inode) so that a loop is walked once.
//! A file is a PDF when `%PDF-` appears in its first 1024 bytes, as PDF
//! readers accept; a `.pdf` without it is kept so that it gets an error
//! record saying so. Our own temporary files and annotation exports are
//! never reported.
//!
//! A `.pdf` that is not a regular file (a named pipe, a socket, a device,
//! or a symbolic link to one or to nothing) is kept too, so that it gets a
//! record with [`not_a_regular_file`]'s reason instead of vanishing, and it
//! is never opened: opening a FIFO for reading blocks until a writer comes,
//! and reading a device may never end.

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

/// Every PDF (or `.pdf`) under `data_dir`, sorted by relative path. A
/// subfolder that cannot be read is skipped with a warning given to `warn`.
pub fn discover(
    data_dir: &Path,
    ignore_dir_name: &str,
    warn: &dyn Fn(&str),
) -> Result<Vec<PdfFile>> {
    discover_where(data_dir, ignore_dir_name, &|_| true, warn)
}

/// [`discover`], keeping only the files whose relative path `keep`
/// accepts (a shard's, `shard::Shard::contains`). The others are never
/// opened, and a plain file the directory listing names as one is not
/// even `stat`ed: N shards walking one library on shared storage list
/// every folder, but each touches only its own files.
pub fn discover_where(
    data_dir: &Path,
    ignore_dir_name: &str,
    keep: &dyn Fn(&Path) -> bool,
    warn: &dyn Fn(&str),
) -> Result<Vec<PdfFile>> {
    let root = fs::canonicalize(data_dir)
        .with_context(|| format!("reading the data folder {}", data_dir.display()))?;
    let mut candidates = Vec::new();
    let mut visited = HashSet::new();
    let walker = Walker {
        root: &root,
        ignore_dir_name,
        keep,
        warn,
    };
    walker.walk(&root, false, &mut visited, &mut candidates)?;
    candidates.retain(|(_, rel, _)| keep(rel));
    let mut files: Vec<PdfFile> = candidates
        .into_par_iter()
        .filter_map(|(path, rel, ignored)| {
            let has_pdf_header = has_pdf_header(&path);
            (has_pdf_header || is_pdf_name(&path)).then_some(PdfFile {
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

/// What a walk of the data folder keeps fixed.
struct Walker<'a> {
    root: &'a Path,
    ignore_dir_name: &'a str,
    keep: &'a dyn Fn(&Path) -> bool,
    warn: &'a dyn Fn(&str),
}

impl Walker<'_> {
    fn walk(
        &self,
        dir: &Path,
        ignored: bool,
        visited: &mut HashSet<(u64, u64)>,
        out: &mut Vec<(PathBuf, PathBuf, bool)>,
    ) -> Result<()> {
        let root = self.root;
        let meta = fs::metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
        if !visited.insert((meta.dev(), meta.ino())) {
            return Ok(()); // already walked: a symlink loop or a second link
        }
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            // An unreadable subfolder is skipped, not fatal: the rest of the
            // library is still processed.
            Err(e) if dir != root => {
                (self.warn)(&format!("warning: skipping {}: {e}", dir.display()));
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
            let rel = || path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            // A plain file of another shard: no stat (the listing's type
            // says what it is).
            if entry.file_type().is_ok_and(|t| t.is_file()) && !(self.keep)(&rel()) {
                continue;
            }
            // metadata() follows symlinks.
            let Ok(meta) = fs::metadata(&path) else {
                // A dangling link (or a loop of links) named like a PDF gets
                // an error record; any other name is not ours to judge.
                if is_pdf_name(&path) {
                    out.push((path.clone(), rel(), ignored));
                }
                continue;
            };
            if meta.is_dir() {
                let child_ignored = ignored || name == self.ignore_dir_name;
                self.walk(&path, child_ignored, visited, out)?;
            } else if (meta.is_file() || is_pdf_name(&path)) && !is_own_file(&name) {
                out.push((path.clone(), rel(), ignored));
            }
        }
        Ok(())
    }
}

/// Files colophon itself creates beside PDFs.
fn is_own_file(name: &str) -> bool {
    name.starts_with(crate::util::fs::TEMP_PREFIX)
        || name.ends_with("--ann.json")
        || name.ends_with("--ann.md")
}

/// Named `*.pdf`, in any case.
fn is_pdf_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

/// Why `path` cannot be read as a document although it was found (or
/// given) as one: it is not a regular file once symbolic links are
/// followed. `None` for a regular file (and for a path that cannot be
/// examined at all: reading it then fails with the system's reason).
/// Looks at metadata only, never opens the file.
pub fn not_a_regular_file(path: &Path) -> Option<String> {
    const ONLY: &str = "colophon reads only regular files";
    let link = fs::symlink_metadata(path).ok()?;
    let target = || {
        fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into())
    };
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && link.is_symlink() => {
            return Some(format!(
                "a symbolic link to {}, which does not exist",
                target()
            ));
        }
        Err(e) if link.is_symlink() => {
            return Some(format!(
                "a symbolic link to {} that cannot be followed: {e}",
                target()
            ));
        }
        Err(_) => return None,
    };
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let what = if t.is_file() || t.is_dir() {
        return None;
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    };
    Some(if link.is_symlink() {
        format!("a symbolic link to {}, which is {what}: {ONLY}", target())
    } else {
        format!("{what}, not a regular file: {ONLY}")
    })
}

/// `%PDF-` within the first [`HEADER_WINDOW`] bytes. Only a regular file
/// can have one: the file is opened without blocking (a FIFO would wait
/// for a writer) and anything else is refused before a byte is read.
pub fn has_pdf_header(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let mut buf = [0u8; HEADER_WINDOW];
    let Ok(mut f) = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    else {
        return false;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
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
    fn a_filter_keeps_its_files_and_never_opens_the_others() {
        let t = tempfile::tempdir().unwrap();
        write(&t.path().join("mine/a.pdf"), b"%PDF-1.4");
        write(&t.path().join("theirs/b.pdf"), b"%PDF-1.4");
        // Another shard's file that could not even be opened.
        let locked = t.path().join("theirs/locked.pdf");
        write(&locked, b"%PDF-1.4");
        fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
        let keep = |rel: &Path| rel.starts_with("mine");
        let files = discover_where(t.path(), "_ignore", &keep, &|_| {}).unwrap();
        let rels: Vec<_> = files.iter().map(|f| f.rel.clone()).collect();
        assert_eq!(rels, [PathBuf::from("mine/a.pdf")]);
        assert!(files[0].has_pdf_header);
        let all = discover(t.path(), "_ignore", &|_| {}).unwrap();
        assert_eq!(all.len(), 3);
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
        let files = discover(&d, "_ignore", &|_| {}).unwrap();
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
    fn special_pdfs_are_kept_with_a_reason_and_never_opened() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("data");
        write(&d.join("ok.pdf"), b"%PDF-1.4");
        let fifo = d.join("pipe.pdf");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.pdf")).unwrap();
        std::os::unix::fs::symlink("gone.pdf", d.join("dangling.pdf")).unwrap();
        // Not named like a PDF: not ours to report.
        std::os::unix::fs::symlink("gone", d.join("dangling-notes")).unwrap();

        // A FIFO with no writer: opening it for reading would block here.
        let files = discover(&d, "_ignore", &|_| {}).unwrap();
        let got: Vec<_> = files
            .iter()
            .map(|f| (f.rel.to_string_lossy().into_owned(), f.has_pdf_header))
            .collect();
        assert_eq!(
            got,
            [
                ("dangling.pdf".to_string(), false),
                ("ok.pdf".to_string(), true),
                ("pipe.pdf".to_string(), false),
                ("zero.pdf".to_string(), false),
            ]
        );
        assert_eq!(not_a_regular_file(&d.join("ok.pdf")), None);
        assert_eq!(not_a_regular_file(&d), None);
        assert_eq!(
            not_a_regular_file(&fifo).unwrap(),
            "a named pipe (FIFO), not a regular file: colophon reads only regular files"
        );
        assert_eq!(
            not_a_regular_file(&d.join("zero.pdf")).unwrap(),
            "a symbolic link to /dev/zero, which is a character device: colophon reads only \
             regular files"
        );
        assert_eq!(
            not_a_regular_file(&d.join("dangling.pdf")).unwrap(),
            "a symbolic link to gone.pdf, which does not exist"
        );
        assert!(!has_pdf_header(&fifo) && !has_pdf_header(Path::new("/dev/zero")));
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
        let files = discover(&t.path().join("data"), "_ignore", &|_| {}).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].rel, PathBuf::from("sub/a.pdf"));
    }
}
