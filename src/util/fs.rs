//! Small file-system primitives the write stage builds its crash safety on,
//! and the cache and run folders use too: temporary files that never look
//! like PDFs, fsync of directories (a rename is only durable once its
//! directory is synced), a rename that refuses to overwrite, links instead
//! of copies. (Hashing a file is `fingerprint`'s.)

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Prefix of every temporary file colophon creates beside a PDF. It starts
/// with a dot (hidden) and the name never ends in `.pdf`, so nothing else
/// takes it for a document; the next run deletes leftovers.
pub const TEMP_PREFIX: &str = ".colophon-tmp-";

/// Whether `path` is one of colophon's temporary files (a leftover when no
/// write is running). `discover` should skip these.
pub fn is_temp_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(TEMP_PREFIX))
}

/// A new temporary file in `dir` (same file system as its destination, so
/// the final rename is atomic). Deleted on drop unless persisted.
pub fn temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .rand_bytes(12)
        .tempfile_in(dir)
}

/// Writes `content` to the new file `path`, or, when the file `same` (of an
/// earlier run) already holds exactly these bytes, hard-links it instead:
/// a rerun of an unchanged library then allocates no file, and deleting
/// the earlier run later frees nothing it still shares. Falls back to
/// writing wherever links are not possible (another file system, FAT).
/// Not for files a user edits: the copies share their content.
pub fn write_or_link(path: &Path, content: &[u8], same: Option<&Path>) -> io::Result<()> {
    if let Some(same) = same
        && fs::read(same).is_ok_and(|old| old == content)
        && fs::hard_link(same, path).is_ok()
    {
        return Ok(());
    }
    fs::write(path, content)
}

/// A hard link at `to` to the file `from`, or a copy (renamed into place)
/// where links are not possible (another file system). For files that are
/// only ever replaced, never changed in place (cache and run files): the
/// two names share their content.
pub fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    match fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(_) => {
            let tmp = tempfile::NamedTempFile::new_in(parent_of(to))?;
            fs::copy(from, tmp.path())?;
            tmp.persist(to).map_err(|e| e.error)?;
            Ok(())
        }
    }
}

/// Makes the entries of `dir` (creations, renames, unlinks) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// The directory holding `path` ("." for a bare name).
pub fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Renames `from` to `to` unless `to` exists (then `AlreadyExists`). On
/// Linux this is one atomic `renameat2(RENAME_NOREPLACE)`; where that is
/// unsupported, a hard link plus unlink (both names exist for a moment,
/// which the journal resolves).
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let cfrom = CString::new(from.as_os_str().as_bytes())?;
        let cto = CString::new(to.as_os_str().as_bytes())?;
        // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves
        // relative paths as std does.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                cfrom.as_ptr(),
                libc::AT_FDCWD,
                cto.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => {}
            _ => return Err(err),
        }
    }
    fs::hard_link(from, to)?;
    fs::remove_file(from)
}

/// Replaces (or creates) `path` with `bytes` through a synced temporary
/// file and one rename, so a reader sees the old or the new content only.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    let mut tmp = temp_in(&dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // tempfile creates 0600; exports are ordinary files.
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(&dir)
}

/// Removes `path`; a missing file is fine.
pub fn remove_if_exists(path: &Path) -> io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Same file (device and inode) — a case-only difference on a
/// case-insensitive file system, or a hard link.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_content_is_linked_and_anything_else_written() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        fs::write(p("old"), "same").unwrap();
        let ino = |n: &str| fs::metadata(p(n)).unwrap().ino();

        write_or_link(&p("linked"), b"same", Some(&p("old"))).unwrap();
        assert_eq!(ino("linked"), ino("old"));
        assert_eq!(fs::metadata(p("old")).unwrap().nlink(), 2);

        write_or_link(&p("changed"), b"other", Some(&p("old"))).unwrap();
        assert_ne!(ino("changed"), ino("old"));
        assert_eq!(fs::read_to_string(p("changed")).unwrap(), "other");
        assert_eq!(fs::read_to_string(p("old")).unwrap(), "same");

        write_or_link(&p("fresh"), b"same", Some(&p("missing"))).unwrap();
        write_or_link(&p("plain"), b"same", None).unwrap();
        assert_ne!(ino("fresh"), ino("old"));
        assert_eq!(fs::read_to_string(p("plain")).unwrap(), "same");
    }

    #[test]
    fn rename_noreplace_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        fs::write(&a, "A").unwrap();
        fs::write(&b, "B").unwrap();
        let err = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&b).unwrap(), "B");
        let c = dir.path().join("c");
        rename_noreplace(&a, &c).unwrap();
        assert!(!a.exists());
        assert_eq!(fs::read_to_string(&c).unwrap(), "A");
    }

    #[test]
    fn temp_names_are_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let t = temp_in(dir.path()).unwrap();
        assert!(is_temp_file(t.path()));
        assert!(!t.path().to_string_lossy().ends_with(".pdf"));
        assert!(!is_temp_file(Path::new("/x/book.pdf")));
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
