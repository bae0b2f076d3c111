//! A shard's `records.jsonl`, read by `merge` as untrusted input: the
//! file was written by another process, perhaps on another machine, and
//! may since have been cut short, edited or replaced.
//!
//! [`read`] checks everything merge relies on before anything is merged,
//! and a shard that fails a check is a failed shard (named, with what to
//! do), never a partly merged one:
//!
//! - the file is a regular file of at most [`MAX_FILE_BYTES`], read one
//!   line at a time with at most [`MAX_LINE_BYTES`] per line: a huge line
//!   or a link to `/dev/zero` costs a bounded buffer, not the machine's
//!   memory;
//! - each line is JSON with a `path` relative to the library, normalised
//!   and refused when it is absolute or climbs out
//!   ([`crate::util::relpath::library_relative`]), since the exports turn
//!   it into file names;
//! - each path belongs to this shard and occurs once;
//! - the number of records is the number the shard's `summary.json`
//!   counted: an emptied or truncated file is caught, not merged as a
//!   smaller library.
//!
//! Only the paths and where each line lies are kept; [`ShardRecords::line`]
//! reads a line again when the merged file is written, so that merging a
//! large library holds its paths in memory, not its records.

use crate::shard::Shard;
use crate::util::relpath::library_relative;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The longest record line merge reads. A record is a few kilobytes (its
/// metadata, sources and warnings); a line this long is damage.
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// The largest `records.jsonl` merge reads: about a million records of a
/// few kilobytes, more than one shard of any library holds.
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// The checked records of one shard's run.
#[derive(Debug, Clone)]
pub(crate) struct ShardRecords {
    pub file: PathBuf,
    pub entries: Vec<Entry>,
}

/// One record: its (normalised) path and where its line lies.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub path: String,
    offset: u64,
    len: u64,
    /// The line with its path normalised, when that changed it.
    rewritten: Option<String>,
}

impl ShardRecords {
    /// The line of `entry` (without its newline), as merge writes it.
    pub fn line(&self, file: &mut File, entry: &Entry) -> io::Result<Vec<u8>> {
        if let Some(r) = &entry.rewritten {
            return Ok(r.clone().into_bytes());
        }
        let mut buf = vec![0; entry.len as usize];
        file.seek(SeekFrom::Start(entry.offset))?;
        file.read_exact(&mut buf)?;
        Ok(buf)
    }
}

/// Reads and checks the records of `shard`'s run in `file`, whose
/// `summary.json` counted `expected` records. `Err` says what is wrong,
/// naming the shard and the file (and the line), and what to do.
pub(crate) fn read(file: &Path, shard: Shard, expected: u64) -> Result<ShardRecords, String> {
    let again = "run the shard again (it resumes from its cache)";
    let fail = |what: String| format!("shard {shard}: {}: {what}: {again}", file.display());
    // Not followed blindly: a link to a device or a FIFO never ends.
    let meta = std::fs::metadata(file).map_err(|e| fail(format!("cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(fail("is not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(fail(format!(
            "is {} bytes, more than the {MAX_FILE_BYTES} merge reads",
            meta.len()
        )));
    }
    let f = File::open(file).map_err(|e| fail(format!("cannot be opened ({e})")))?;
    // The file may grow while it is read: never more than the limit.
    let mut reader = BufReader::new(f.take(MAX_FILE_BYTES + 1));
    let mut entries = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let (mut offset, mut line, mut number) = (0u64, Vec::new(), 0u64);
    loop {
        line.clear();
        number += 1;
        let n = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| fail(format!("line {number} cannot be read ({e})")))?
            as u64;
        if n == 0 {
            break;
        }
        if offset + n > MAX_FILE_BYTES {
            return Err(fail(format!(
                "grew past the {MAX_FILE_BYTES} bytes merge reads"
            )));
        }
        let start = offset;
        offset += n;
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.len() as u64 > MAX_LINE_BYTES {
            return Err(fail(format!(
                "line {number} is longer than the {MAX_LINE_BYTES} bytes of a record"
            )));
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let entry =
            entry(body, start, shard).map_err(|why| fail(format!("line {number}: {why}")))?;
        if !seen.insert(entry.path.clone()) {
            return Err(fail(format!(
                "line {number}: {} has a record already",
                entry.path
            )));
        }
        entries.push(entry);
    }
    if entries.len() as u64 != expected {
        return Err(fail(format!(
            "holds {} records, but the run's summary.json counts {expected} (the file was cut \
             short or changed after the run)",
            entries.len()
        )));
    }
    Ok(ShardRecords {
        file: file.to_path_buf(),
        entries,
    })
}

/// One line's record, checked: JSON with a library-relative `path` of
/// this shard.
fn entry(body: &[u8], offset: u64, shard: Shard) -> Result<Entry, String> {
    #[derive(serde::Deserialize)]
    struct PathOnly {
        path: String,
    }
    let PathOnly { path: raw } =
        serde_json::from_slice(body).map_err(|e| format!("not a record ({e})"))?;
    let rel = library_relative(&raw).map_err(|why| format!("refused path {raw:?}: {why}"))?;
    let path = rel
        .to_str()
        .ok_or_else(|| format!("refused path {raw:?}"))?
        .to_string();
    if !shard.contains(&rel) {
        return Err(format!(
            "{path} belongs to shard {}/{}: was that run made with another number of shards?",
            crate::shard::shard_of(&rel, shard.count),
            shard.count
        ));
    }
    let rewritten = if path == raw {
        None
    } else {
        let mut value: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| format!("not a record ({e})"))?;
        value["path"] = serde_json::Value::String(path.clone());
        Some(value.to_string())
    };
    Ok(Entry {
        path,
        offset,
        len: body.len() as u64,
        rewritten,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A path of `shard` (the first of `a0.pdf`, `a1.pdf`, … it holds).
    fn path_of(shard: Shard, skip: usize) -> String {
        (0..)
            .map(|i| format!("dir/a{i}.pdf"))
            .filter(|p| shard.contains(Path::new(p)))
            .nth(skip)
            .unwrap()
    }

    fn line(path: &str) -> String {
        format!(
            "{{\"path\":{},\"status\":\"complete\"}}\n",
            serde_json::json!(path)
        )
    }

    const SHARD: Shard = Shard { index: 1, count: 3 };

    #[test]
    fn good_records_are_read_and_found_again() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("records.jsonl");
        let (a, b) = (path_of(SHARD, 0), path_of(SHARD, 1));
        // A path spelt with `./` and `//` is normalised in the record.
        let odd = format!("./{}", b.replace('/', "//"));
        std::fs::write(&file, format!("{}\n{}", line(&a), line(&odd))).unwrap();
        let r = read(&file, SHARD, 2).unwrap();
        let paths: Vec<&str> = r.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, [a.as_str(), b.as_str()]);
        let mut f = File::open(&file).unwrap();
        assert_eq!(
            r.line(&mut f, &r.entries[0]).unwrap(),
            line(&a).trim_end().as_bytes()
        );
        let again: serde_json::Value =
            serde_json::from_slice(&r.line(&mut f, &r.entries[1]).unwrap()).unwrap();
        assert_eq!(again["path"], b.as_str());
        assert_eq!(again["status"], "complete");
    }

    #[test]
    fn paths_leaving_the_library_are_refused_with_the_file_named() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("records.jsonl");
        for bad in ["../../../../../x.pdf", "/etc/x.pdf", "a/../../x.pdf"] {
            std::fs::write(&file, format!("{}{}", line(&path_of(SHARD, 0)), line(bad))).unwrap();
            let err = read(&file, SHARD, 2).unwrap_err();
            assert!(err.starts_with("shard 1/3: "), "{err}");
            assert!(err.contains(&*file.to_string_lossy()), "{err}");
            assert!(err.contains("line 2: refused path"), "{err}");
        }
    }

    #[test]
    fn a_count_that_disagrees_with_the_summary_fails_the_shard() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("records.jsonl");
        std::fs::write(&file, "").unwrap();
        let err = read(&file, SHARD, 6).unwrap_err();
        assert!(
            err.contains("holds 0 records, but the run's summary.json counts 6"),
            "{err}"
        );
        let a = path_of(SHARD, 0);
        std::fs::write(&file, format!("{}{}", line(&a), line(&format!("./{a}")))).unwrap();
        let err = read(&file, SHARD, 2).unwrap_err();
        assert!(err.contains("has a record already"), "{err}");
        let other = path_of(Shard { index: 0, count: 3 }, 0);
        std::fs::write(&file, line(&other)).unwrap();
        let err = read(&file, SHARD, 1).unwrap_err();
        assert!(err.contains("belongs to shard 0/3"), "{err}");
    }

    #[test]
    fn endless_lines_and_devices_cost_a_bounded_buffer() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("records.jsonl");
        // A line of NUL bytes one byte past the limit (sparse on disk).
        let f = File::create(&file).unwrap();
        f.set_len(MAX_LINE_BYTES + 1).unwrap();
        let err = read(&file, SHARD, 1).unwrap_err();
        assert!(err.contains("line 1 is longer than the"), "{err}");
        assert!(err.contains(&*file.to_string_lossy()), "{err}");
        // A file past the size limit is refused before it is read.
        File::create(&file)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        let err = read(&file, SHARD, 1).unwrap_err();
        assert!(err.contains("more than the"), "{err}");
        // A link to a device that never ends.
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
        let err = read(&file, SHARD, 1).unwrap_err();
        assert!(err.contains("is not a regular file"), "{err}");
        // Not JSON at all.
        std::fs::remove_file(&file).unwrap();
        let mut f = File::create(&file).unwrap();
        f.write_all(b"\0\0\0\n").unwrap();
        let err = read(&file, SHARD, 1).unwrap_err();
        assert!(err.contains("line 1: not a record"), "{err}");
    }
}
