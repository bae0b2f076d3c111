//! Issue 19 regression tests: writes and undo. Undo names every entry it
//! cannot undo; the journal holds paths relative to the project root; a
//! failed write is never silent; a torn journal line is set aside; stale
//! temporary files go with the next run of any kind, under the project
//! lock.

use crate::util::{self, TestProject, stderr, stdout};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

const BOOK: &str = "book-p03-asis.pdf";
/// The name the write gives BOOK.
const WRITTEN: &str = "Thornquist, Hume - Weaving on Simple Looms (1972).pdf";
const WRITTEN_MD: &str = "Thornquist, Hume - Weaving on Simple Looms (1972)--ann.md";

fn colophon(p: &TestProject, args: &[&str]) -> Output {
    p.cmd().args(args).output().expect("running colophon")
}

/// `run --write`, which must succeed.
fn write_run(p: &TestProject) {
    let out = colophon(p, &["run", "--write", "-q"]);
    util::assert_exit(&out, 0);
}

fn original() -> Vec<u8> {
    fs::read(util::fixture(BOOK)).unwrap()
}

/// The journal files of the project.
fn journals(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(root.join("cache/journal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    out.sort();
    out
}

/// Rewrites every path of every `write` line of the journal with `f`.
fn rewrite_journal_paths(journal: &Path, f: &dyn Fn(&str) -> String) {
    let text = fs::read_to_string(journal).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["event"] == "write" {
            for key in ["old_path", "new_path", "temp_path"] {
                if let Some(s) = v[key].as_str() {
                    v[key] = f(s).into();
                }
            }
            for a in v["annotations"].as_array_mut().unwrap() {
                let s = a["path"].as_str().unwrap().to_string();
                a["path"] = f(&s).into();
            }
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    fs::write(journal, out).unwrap();
}

/// A copy of the whole project tree (symbolic links copied as links).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type().unwrap();
        if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if t.is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Item 4: undo printed "undid 1 writes" and exited 0 while it silently
/// left two writes in effect: a file edited since the write, and a file
/// whose old name was taken again. Every such entry is now named with its
/// reason, the files are left as they are, and the exit status is 1.
#[test]
fn undo_names_every_write_it_cannot_undo_and_exits_1() {
    let p = TestProject::new();
    p.add(BOOK, "edited/a.pdf");
    p.add(BOOK, "taken/b.pdf");
    p.add(BOOK, "clean/c.pdf");
    write_run(&p);
    let edited = p.data().join("edited").join(WRITTEN);
    let taken_written = p.data().join("taken").join(WRITTEN);
    assert!(edited.is_file() && taken_written.is_file());

    // The user edits one written file, and puts a new file at the other's
    // old name.
    let mut bytes = fs::read(&edited).unwrap();
    bytes.extend_from_slice(b"\n% annotated by the user\n");
    fs::write(&edited, &bytes).unwrap();
    fs::write(p.data().join("taken/b.pdf"), b"the user's new b.pdf").unwrap();
    let before_undo = p.snapshot();

    let out = colophon(&p, &["undo"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}\n{}", stdout(&out));
    assert!(stdout(&out).contains("undid 1 writes"), "{}", stdout(&out));
    let line_about = |needle: &str| {
        err.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line naming {needle}: {err}"))
            .to_string()
    };
    let e = line_about(&edited.display().to_string());
    assert!(
        e.contains("not undone") && e.contains("changed or missing since the write"),
        "{e}"
    );
    let t = line_about(&taken_written.display().to_string());
    assert!(t.contains("b.pdf exists again, not overwritten"), "{t}");
    assert!(err.contains("2 write(s) could not be undone"), "{err}");

    // The two stay exactly as the user left them; the third is undone.
    let after = p.snapshot();
    for rel in [
        format!("edited/{WRITTEN}"),
        format!("taken/{WRITTEN}"),
        "taken/b.pdf".to_string(),
    ] {
        let rel = Path::new(&rel);
        assert_eq!(after[rel], before_undo[rel], "{}", rel.display());
    }
    assert_eq!(fs::read(p.data().join("clean/c.pdf")).unwrap(), original());
    assert!(!p.data().join("clean").join(WRITTEN).exists());
}

/// Item 5: the journal held absolute paths, so `undo` in a copy of a
/// project restored the original project's files. Paths are now relative
/// to the project root: the copy undoes its own files, the original is
/// not touched.
#[test]
fn undo_in_a_copied_project_restores_the_copy_and_never_the_original() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    write_run(&p);
    let written_state = p.snapshot();
    let journal = fs::read_to_string(&journals(p.root())[0]).unwrap();
    assert!(
        !journal.contains(&*p.root().to_string_lossy()),
        "the journal holds no absolute path: {journal}"
    );

    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("library-copy");
    copy_tree(p.root(), &copy);
    let out = p.cmd().current_dir(&copy).arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    assert_eq!(fs::read(copy.join("data/a.pdf")).unwrap(), original());
    assert!(!copy.join("data").join(WRITTEN).exists());
    assert_eq!(
        p.snapshot(),
        written_state,
        "the original project is untouched"
    );
}

/// Item 5, journals of older versions (absolute paths): an entry inside
/// the current root is undone; one naming another project's file (a copy
/// made before this fix) is refused with a reason, and nothing of either
/// project changes.
#[test]
fn an_old_journal_with_absolute_paths_is_used_only_inside_the_root() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    write_run(&p);
    let written_state = p.snapshot();
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("library-copy");
    copy_tree(p.root(), &copy);
    let copy_journal = journals(&copy)[0].clone();
    let relative = fs::read(&copy_journal).unwrap();

    // The copy's journal names the original's files, as old versions wrote it.
    let original_root = p.root().to_path_buf();
    rewrite_journal_paths(&copy_journal, &|rel| {
        original_root.join(rel).to_string_lossy().into_owned()
    });
    let out = p.cmd().current_dir(&copy).arg("undo").output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let named = p.data().join(WRITTEN).display().to_string();
    let line = err
        .lines()
        .find(|l| l.contains(&named))
        .unwrap_or_else(|| panic!("the refused entry is not named: {err}"));
    assert!(line.contains("outside this project"), "{line}");
    assert_eq!(
        p.snapshot(),
        written_state,
        "the original project is untouched"
    );
    assert!(copy.join("data").join(WRITTEN).is_file());
    assert!(!copy.join("data/a.pdf").exists());

    // Absolute paths inside the copy's own root are accepted.
    fs::write(&copy_journal, &relative).unwrap();
    let copy_root = copy.clone();
    rewrite_journal_paths(&copy_journal, &|rel| {
        copy_root.join(rel).to_string_lossy().into_owned()
    });
    let out = p.cmd().current_dir(&copy).arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    assert_eq!(fs::read(copy.join("data/a.pdf")).unwrap(), original());
    assert_eq!(
        p.snapshot(),
        written_state,
        "the original project is untouched"
    );
}

/// Item 6: a write that failed left no trace: exit 0, the row said
/// "complete", nothing on stderr. Here the export `<new name>--ann.md` of
/// one book is a folder (a failure root cannot get around, unlike a
/// read-only folder): its write fails, the other book is written.
#[test]
fn a_failed_write_shows_in_the_row_the_summary_and_the_exit_status() {
    let p = TestProject::new();
    p.add(BOOK, "fine/a.pdf");
    let blocked = p.add(BOOK, "blocked/b.pdf");
    fs::create_dir_all(p.data().join("blocked").join(WRITTEN_MD).join("inside")).unwrap();

    let out = colophon(&p, &["run", "--write"]);
    let (err, table) = (stderr(&out), stdout(&out));
    assert_eq!(out.status.code(), Some(1), "{err}\n{table}");

    let row = table
        .lines()
        .find(|l| l.starts_with("blocked/b.pdf"))
        .unwrap_or_else(|| panic!("no row for blocked/b.pdf: {table}"));
    assert!(row.contains("[write failed]"), "{row}");
    assert!(row.contains(WRITTEN_MD), "the reason names the file: {row}");
    let fine = table.lines().find(|l| l.starts_with("fine/a.pdf")).unwrap();
    assert!(fine.contains("[written]"), "{fine}");

    assert!(
        err.lines()
            .any(|l| l.contains(&blocked.display().to_string()) && l.contains("write failed")),
        "{err}"
    );
    assert!(err.contains("1 writes FAILED"), "summary line: {err}");
    let s = p.summary();
    assert_eq!(s["write failures"], 1);
    assert_eq!(s["written"], 1);

    // The failed one is untouched, the other written.
    assert_eq!(fs::read(&blocked).unwrap(), original());
    assert!(p.data().join("fine").join(WRITTEN).is_file());
    let leftovers: Vec<_> = fs::read_dir(p.data().join("blocked"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".colophon-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // The record says so too.
    let (out, records) = p.run_json(&["run", "--write"]);
    util::assert_exit(&out, 1);
    let r = util::record_for(&records, "blocked/b.pdf");
    assert_eq!(r["written"], false);
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("write failed: ")),
        "{r}"
    );
}

/// Item 7: a journal line torn inside a multi-byte character made every
/// later `undo` and `run --write` fail ("stream did not contain valid
/// UTF-8"). The line is now set aside with a warning naming the journal.
#[test]
fn a_journal_line_torn_inside_a_character_is_set_aside_with_a_warning() {
    let p = TestProject::new();
    p.add(BOOK, "a.pdf");
    write_run(&p);
    let tear = |journal: &Path| {
        let mut f = fs::OpenOptions::new().append(true).open(journal).unwrap();
        use std::io::Write;
        // "ö" is C3 B6: the line stops after C3.
        f.write_all(b"{\"event\":\"write\",\"id\":\"x\",\"old_path\":\"data/G\xc3")
            .unwrap();
    };
    let journal = journals(p.root())[0].clone();
    tear(&journal);

    let out = colophon(&p, &["undo"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning") && err.contains(&*journal.to_string_lossy()),
        "{err}"
    );
    assert_eq!(fs::read(p.data().join("a.pdf")).unwrap(), original());
    assert!(String::from_utf8(fs::read(&journal).unwrap()).is_ok());

    // The same in a write run: it warns once and writes.
    write_run(&p);
    let journal = journals(p.root())
        .into_iter()
        .find(|j| *j != journal)
        .unwrap();
    tear(&journal);
    let out = colophon(&p, &["run", "--write"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&*journal.to_string_lossy()), "{err}");
    let out = colophon(&p, &["run", "--write"]);
    assert!(
        !stderr(&out).contains(&*journal.to_string_lossy()),
        "warned once: {}",
        stderr(&out)
    );
    let out = colophon(&p, &["undo"]);
    util::assert_exit(&out, 0);
    assert_eq!(fs::read(p.data().join("a.pdf")).unwrap(), original());
}

/// Holds the project lock as another colophon process would.
fn hold_lock(root: &Path) -> fs::File {
    use std::os::fd::AsRawFd;
    fs::create_dir_all(root.join("cache")).unwrap();
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.join("cache/lock"))
        .unwrap();
    // SAFETY: flock on a descriptor this function owns.
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    f
}

/// Item 8: a kill during undo left a `.colophon-tmp-*` copy in data/
/// until the next write run. The next run of any kind (here a dry run)
/// removes colophon's own temporary files, and nothing else; while another
/// process holds the project, a run refuses to start and removes nothing.
#[test]
fn a_dry_run_removes_stale_temporary_files_unless_the_project_is_in_use() {
    let p = TestProject::new();
    p.add(BOOK, "shelf/a.pdf");
    write_run(&p);
    let written = p.data().join("shelf").join(WRITTEN);
    let written_bytes = fs::read(&written).unwrap();
    // What a kill during undo leaves: the truncated copy under a temporary
    // name, and "undo-begin" in the journal.
    let stale = p.data().join("shelf/.colophon-tmp-AbCdEf123456");
    fs::write(&stale, original()).unwrap();
    let stale_top = p.data().join(".colophon-tmp-000000000000");
    fs::write(&stale_top, b"%PDF-1.4 half a copy").unwrap();
    let journal = journals(p.root())[0].clone();
    let text = fs::read_to_string(&journal).unwrap();
    let id = text
        .lines()
        .find(|l| l.contains("\"event\":\"write\""))
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["id"].as_str().unwrap().to_string())
        .unwrap();
    fs::write(
        &journal,
        format!("{text}{{\"event\":\"undo-begin\",\"id\":\"{id}\"}}\n"),
    )
    .unwrap();
    // Files that only look alike are the user's.
    let keep = [
        p.write("shelf/.colophon-tmp", b"mine"),
        p.write("shelf/colophon-tmp-notes.txt", b"mine"),
        p.write("_ignore/.colophon-tmp-zzzzzzzzzzzz", b"not ours either"),
    ];

    // Another colophon holds the project: nothing is touched.
    let lock = hold_lock(p.root());
    let out = colophon(&p, &["run"]);
    util::assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("in use by another colophon process"),
        "{}",
        stderr(&out)
    );
    let out = colophon(&p, &["undo"]);
    util::assert_exit(&out, 2);
    assert!(stale.exists() && stale_top.exists());
    drop(lock);

    let out = colophon(&p, &["run"]);
    util::assert_exit(&out, 0);
    assert!(!stale.exists() && !stale_top.exists());
    for k in &keep {
        assert!(k.exists(), "{} was removed", k.display());
    }
    // A dry run settles nothing: the written file is as it was.
    assert_eq!(fs::read(&written).unwrap(), written_bytes);

    // The interrupted undo is finished by the next undo.
    let out = colophon(&p, &["undo"]);
    util::assert_exit(&out, 0);
    assert_eq!(fs::read(p.data().join("shelf/a.pdf")).unwrap(), original());
}

/// BOOK made larger than anything else colophon writes (sled's 512 KiB
/// log segment included): an unused 700 KB stream object added, so that a
/// file-size limit between this size and the written size stops only the
/// write of this PDF. Its text, hence its record and name, stay BOOK's.
fn padded_book() -> Vec<u8> {
    let mut doc = lopdf::Document::load_mem(&original()).unwrap();
    doc.add_object(lopdf::Stream::new(
        lopdf::Dictionary::new(),
        vec![b'%'; 700_000],
    ));
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// colophon with every file it (and its workers) writes limited to
/// `max_bytes`: RLIMIT_FSIZE, with SIGXFSZ ignored so that a write past
/// the limit fails (EFBIG, "File too large") instead of killing the
/// process. That is a disk that fills up while colophon writes a file,
/// without root: the write fails part-way through, as with ENOSPC, and
/// colophon takes the same path (the error of `write`, the temporary file
/// left behind).
fn colophon_on_a_full_disk(p: &TestProject, args: &[&str], max_bytes: u64) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = p.cmd();
    cmd.args(args);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: max_bytes,
                rlim_max: max_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.output().expect("running colophon")
}

/// Item 6 on a full disk: `run --write` wrote nothing, exited 0 and said
/// nothing. The disk here has room for the temporary copy of the PDF but
/// not for the metadata appended to it: the write fails, the row, the
/// summary and the exit status say so, the file is left exactly as it was
/// with no temporary file beside it, and the other PDF is written. Then
/// `undo` on a disk without room for the original bytes: it names the
/// write it could not undo, exits 1 and leaves the written file whole; on
/// a disk with room, it restores the original bytes.
#[test]
fn a_full_disk_fails_write_and_undo_loudly_and_leaves_the_files_whole() {
    let p = TestProject::new();
    let big = padded_book();
    let big_path = p.write("full/big.pdf", &big);
    p.add(BOOK, "fine/small.pdf");
    let limit = big.len() as u64;

    let out = colophon_on_a_full_disk(&p, &["run", "--write"], limit);
    let (err, table) = (stderr(&out), stdout(&out));
    assert_eq!(out.status.code(), Some(1), "{err}\n{table}");
    let row = table
        .lines()
        .find(|l| l.starts_with("full/big.pdf"))
        .unwrap_or_else(|| panic!("no row for full/big.pdf: {table}"));
    assert!(
        row.contains("[write failed]") && row.contains("File too large"),
        "{row}"
    );
    assert!(err.contains("1 writes FAILED"), "summary line: {err}");
    let s = p.summary();
    assert_eq!(s["write failures"], 1, "{s:?}");
    assert_eq!(s["written"], 1, "{s:?}");
    assert_eq!(fs::read(&big_path).unwrap(), big, "the file is intact");
    let names = |dir: &str| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(p.data().join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("full"), ["big.pdf"], "no temporary file, no export");
    assert!(p.data().join("fine").join(WRITTEN).is_file());

    // With room on the disk the same run writes it.
    let out = colophon(&p, &["run", "--write", "-q"]);
    util::assert_exit(&out, 0);
    let written = p.data().join("full").join(WRITTEN);
    let written_bytes = fs::read(&written).unwrap();
    assert!(written_bytes.starts_with(&big) && written_bytes.len() > big.len());

    // Undo needs room for a copy of the original bytes: one byte short.
    let out = colophon_on_a_full_disk(&p, &["undo"], limit - 1);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}\n{}", stdout(&out));
    let line = err
        .lines()
        .find(|l| l.contains(&written.display().to_string()))
        .unwrap_or_else(|| panic!("the failed undo is not named: {err}"));
    assert!(
        line.contains("not undone") && line.contains("File too large"),
        "{line}"
    );
    assert!(err.contains("1 write(s) could not be undone"), "{err}");
    assert_eq!(fs::read(&written).unwrap(), written_bytes, "left whole");
    assert!(!big_path.exists());
    assert_eq!(
        names("full").iter().filter(|n| n.ends_with(".pdf")).count(),
        1,
        "no temporary copy left: {:?}",
        names("full")
    );

    let out = colophon(&p, &["undo"]);
    util::assert_exit(&out, 0);
    assert_eq!(fs::read(&big_path).unwrap(), big, "the original bytes back");
    assert!(!written.exists());
}
