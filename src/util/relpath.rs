//! Paths that come from outside the process (a shard's `records.jsonl`, a
//! journal, an approvals file) and name a file inside the library.
//!
//! A record's `path` is relative to the data folder. Anything read back
//! from disk may have been edited or corrupted, so every consumer that turns
//! such a path into a file-system path (merge, the exports, undo) goes
//! through [`library_relative`]: the path is normalised and refused when it
//! is absolute or climbs out of the folder it is relative to.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Why a path from a record was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelPathError {
    Empty,
    Absolute,
    /// A `..` that leaves the folder the path is relative to.
    Escapes,
    /// A NUL byte, which no file name can hold.
    Nul,
}

impl fmt::Display for RelPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RelPathError::Empty => "the path is empty",
            RelPathError::Absolute => "the path is absolute, not relative to the library",
            RelPathError::Escapes => "the path leaves the library (`..`)",
            RelPathError::Nul => "the path holds a NUL byte",
        })
    }
}

impl std::error::Error for RelPathError {}

/// `raw` normalised as a path relative to the library: `.` and empty
/// components dropped, `a/../b` folded to `b`; refused when it is empty,
/// absolute, or climbs above its base.
pub fn library_relative(raw: &str) -> Result<PathBuf, RelPathError> {
    if raw.contains('\0') {
        return Err(RelPathError::Nul);
    }
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in Path::new(raw).components() {
        match c {
            Component::Normal(p) => parts.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(RelPathError::Escapes);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(RelPathError::Absolute),
        }
    }
    if parts.is_empty() {
        return Err(RelPathError::Empty);
    }
    Ok(parts.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_paths_are_kept_and_folded() {
        assert_eq!(
            library_relative("a/b.pdf").unwrap(),
            PathBuf::from("a/b.pdf")
        );
        assert_eq!(
            library_relative("./a//b.pdf").unwrap(),
            PathBuf::from("a/b.pdf")
        );
        assert_eq!(
            library_relative("a/x/../b.pdf").unwrap(),
            PathBuf::from("a/b.pdf")
        );
    }

    #[test]
    fn paths_leaving_the_library_are_refused() {
        assert_eq!(
            library_relative("../../../../../x.pdf"),
            Err(RelPathError::Escapes)
        );
        assert_eq!(
            library_relative("a/../../x.pdf"),
            Err(RelPathError::Escapes)
        );
        assert_eq!(library_relative("/etc/passwd"), Err(RelPathError::Absolute));
        assert_eq!(library_relative(""), Err(RelPathError::Empty));
        assert_eq!(library_relative("a/.."), Err(RelPathError::Empty));
        assert_eq!(library_relative("a\0b.pdf"), Err(RelPathError::Nul));
    }
}
