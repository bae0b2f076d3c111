//! Stage 10, report, for a run: progress and `-v` lines as documents come
//! in, each record on stdout and in `records.jsonl`, the annotation
//! exports (threads of their own), and at the end `review.html`,
//! `summary.md`, the `latest` link and the closing lines.

use super::{Done, Env};
use crate::model::{PdfFile, Record};
use crate::report::{self, RecordsFile, Summary};
use crate::runs::RunDir;
use anyhow::{Context as _, Result};
use crossbeam_channel::Sender;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

/// What the calling thread writes to: stdout, `records.jsonl`, stderr.
pub(super) struct Outputs<'a, 'o> {
    env: Env<'a>,
    run_dir: &'a RunDir,
    records: RecordsFile,
    stdout: &'o mut dyn Write,
    /// Whether stdout is a terminal: each row is then cut to its width
    /// (asked again for each row, so that a resized window is followed),
    /// flushed at once and printed above the bars.
    terminal: bool,
}

impl<'a, 'o> Outputs<'a, 'o> {
    pub fn create(env: &Env<'a>, run_dir: &'a RunDir, stdout: &'o mut dyn Write) -> Result<Self> {
        Ok(Outputs {
            env: *env,
            run_dir,
            records: RecordsFile::create(&run_dir.path)?,
            stdout,
            terminal: std::io::IsTerminal::is_terminal(&std::io::stdout()),
        })
    }

    /// Progress for a document that is done, and with `-v` where each
    /// stage's result came from (`-vv`: the top candidates per field).
    /// Returns the document's counts.
    ///
    /// A shard of a sharded run first makes a computed record durable in
    /// its cache (one sled flush, instead of sled's flush every 2 s), so
    /// that no document it reported is computed again after a scheduler
    /// kills and restarts it (preemption, a time limit, a lost node).
    pub fn progress(&self, doc: &Done, file: &PdfFile) -> Summary {
        if self.env.opts.shard.is_some() && !doc.cached() {
            self.env.cache.flush();
        }
        let (reporter, verbose) = (self.env.reporter, self.env.opts.verbose);
        let counts = Summary::of(&doc.work);
        // The pages read by pdfium, as the summary counts them: an OCRed
        // page was read first, and adding its OCR counted it twice.
        reporter.pages_done(counts.pages_read);
        if verbose == 0 {
            return counts;
        }
        let path = crate::record::rel_string(&file.rel);
        match doc.result() {
            Some(result) => {
                reporter.message(&counts.document_line(&path, doc.cached()));
                if verbose > 1 {
                    for line in crate::decide::explain::top_lines(&result.decision, 3) {
                        reporter.message(&line);
                    }
                    // A computed document wrote its own; with -vv a cached
                    // one explains itself too.
                    if doc.cached() {
                        crate::decide::explain::write_candidates(
                            &self.run_dir.diagnostics_dir(&file.rel),
                            &result.decision,
                            self.env.settings.page_num_offset,
                        );
                    }
                }
            }
            None if doc.cached() => reporter.message(&format!(
                "{path}: failure from the cache (--retry-errors reads it again)"
            )),
            None => {}
        }
        counts
    }

    /// Prints one record and adds it to `records.jsonl`.
    pub fn emit(&mut self, record: &Record) -> Result<()> {
        self.records.push(record)?;
        let line = if self.env.opts.json {
            serde_json::to_string(record)?
        } else {
            let width = self.terminal.then(crate::progress::stdout_width);
            report::table_row(record, width.flatten())
        };
        let written = match self.terminal {
            // A terminal: the row now, above the bars, not when the run
            // ends (a BufWriter would hold it).
            true => {
                let (stdout, mut res) = (&mut *self.stdout, Ok(()));
                self.env.reporter.suspend(&mut || {
                    res = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
                });
                res
            }
            false => writeln!(self.stdout, "{line}"),
        };
        if let Err(e) = written {
            // A closed pipe (`colophon | head`) is not an error of the run.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(e.into());
            }
        }
        self.env.reporter.file_done();
        Ok(())
    }

    /// Closes `records.jsonl`, writes `review.html` from it, clears the
    /// bars, flushes the cache, writes `summary.md` and `summary.json`
    /// (`complete`: every file found was processed) and points `latest`
    /// at this run. Returns the run's time in seconds.
    pub fn finish(self, summary: &Summary, started: Instant, complete: bool) -> Result<f64> {
        // Every row before the closing lines: the summary comes last.
        let _ = self.stdout.flush();
        self.records.finish()?;
        let offset = self.env.settings.page_num_offset;
        if let Err(e) = crate::review::write_page(&self.run_dir.path, offset) {
            self.env
                .reporter
                .message(&format!("colophon: warning: no review page: {e:#}"));
        }
        self.env.reporter.finish();
        self.env.cache.flush();
        let seconds = started.elapsed().as_secs_f64();
        let dry_run = !self.env.settings.write_pdf_changes;
        std::fs::write(
            self.run_dir.path.join("summary.md"),
            summary.markdown(&self.run_dir.id, seconds, dry_run),
        )
        .context("writing summary.md")?;
        self.run_dir.write_end(&crate::runs::RunEnd {
            run_id: self.run_dir.id.clone(),
            seconds,
            dry_run,
            complete,
            summary: summary.clone(),
            group: self.env.opts.run_group.clone(),
        })?;
        self.run_dir.mark_latest()?;
        Ok(seconds)
    }
}

/// The last lines of a run on stderr: old run folders waiting (`left`),
/// the stage counts with `-v`, the summary line.
pub(super) fn closing_lines(
    env: &Env,
    summary: &Summary,
    seconds: f64,
    left: usize,
    run_dir: &RunDir,
) {
    if left >= crate::runs::KEEP_RUNS {
        env.reporter.message(&format!(
            "colophon: {left} old run folders under {}; `colophon cache prune` deletes them",
            run_dir
                .path
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
    }
    if env.opts.verbose > 0 {
        env.reporter.message(&summary.counts());
    }
    env.reporter.message(&summary.line(seconds));
}

/// Threads writing annotation exports. File creation is kernel work that
/// runs in parallel (two were measurably faster than one on two cores).
const ANN_WRITERS: usize = 2;

/// The annotation export writers. Creating two small files per record is
/// most of a warm run's time (kernel time), and reporting need not wait
/// for it. The channel is bounded so that records do not pile up in
/// memory when the disk is slow.
pub(super) struct Exports<'s> {
    tx: Sender<Record>,
    writers: Vec<ScopedJoinHandle<'s, Result<()>>>,
}

impl<'s> Exports<'s> {
    pub fn start(scope: &'s Scope<'s, '_>, run_dir: &RunDir) -> Exports<'s> {
        let (tx, rx) = crossbeam_channel::bounded::<Record>(256);
        let previous = run_dir.previous().map(|p| p.ann_dir());
        let writers = (0..ANN_WRITERS)
            .map(|_| {
                let (ann_dir, rx, previous) = (run_dir.ann_dir(), rx.clone(), previous.clone());
                scope.spawn(move || write_exports(&ann_dir, previous.as_deref(), rx))
            })
            .collect();
        Exports { tx, writers }
    }

    /// Queues a record's exports; false when the writers have failed.
    pub fn send(&self, record: Record) -> bool {
        self.tx.send(record).is_ok()
    }

    /// Waits for the writers; the first error of one.
    pub fn finish(self) -> Result<()> {
        drop(self.tx);
        for w in self.writers {
            w.join().unwrap_or_else(|p| {
                Err(anyhow::anyhow!(
                    "{}",
                    crate::util::panic::text(p.as_ref(), "panic")
                ))
            })?;
        }
        Ok(())
    }
}

/// Writes the run's annotation exports (`cache/runs/<id>/ann/`, mirroring
/// the data tree) of every record received, until the channel closes.
/// An export identical to the previous run's (`previous`, that run's
/// `ann/`) is hard-linked to it rather than written again.
fn write_exports(
    ann_dir: &Path,
    previous: Option<&Path>,
    records: crossbeam_channel::Receiver<Record>,
) -> Result<()> {
    // Records of one folder mostly come in a row: create each folder once
    // rather than asking the file system again for every record.
    let mut made: Option<PathBuf> = None;
    for record in records {
        let ann_base = ann_dir.join(&record.path);
        let dir = ann_base.parent().unwrap_or(Path::new("."));
        if made.as_deref() != Some(dir) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            made = Some(dir.to_path_buf());
        }
        let stem = ann_base.file_stem().unwrap_or_default().to_string_lossy();
        // The run's own copies need no fsync (unlike the exports beside a
        // written PDF): losing them in a crash loses nothing of the user's.
        let (md, json) = crate::write::annotation_paths(dir, &stem);
        let earlier = |p: &Path| Some(previous?.join(p.strip_prefix(ann_dir).ok()?));
        for (path, content) in [
            (&md, crate::write::render_markdown(&record)),
            (&json, crate::write::render_json(&record)),
        ] {
            crate::util::fs::write_or_link(path, content.as_bytes(), earlier(path).as_deref())
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str) -> Record {
        Record::error(path.to_string(), None, format!("test record of {path}"))
    }

    #[test]
    fn exports_mirror_the_data_tree_from_several_writers() {
        let t = tempfile::tempdir().unwrap();
        let ann = t.path().join("ann");
        let paths = ["a/b.pdf", "a/c.pdf", "d.pdf", "e/f/g.PDF"];
        let (tx, rx) = crossbeam_channel::bounded::<Record>(1);
        std::thread::scope(|s| {
            let writers: Vec<_> = (0..ANN_WRITERS)
                .map(|_| {
                    let (ann, rx) = (&ann, rx.clone());
                    s.spawn(move || write_exports(ann, None, rx))
                })
                .collect();
            for p in paths {
                tx.send(record(p)).unwrap();
            }
            drop(tx);
            for w in writers {
                w.join().unwrap().unwrap();
            }
        });
        for (p, stem) in paths.iter().zip(["a/b", "a/c", "d", "e/f/g"]) {
            let json = std::fs::read_to_string(ann.join(format!("{stem}--ann.json"))).unwrap();
            let back: Record = serde_json::from_str(&json).unwrap();
            assert_eq!(back, record(p));
            let md = std::fs::read_to_string(ann.join(format!("{stem}--ann.md"))).unwrap();
            assert!(md.contains(&format!("test record of {p}")), "{md}");
        }
    }

    #[test]
    fn an_export_that_cannot_be_written_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        // A file where the folder of the exports should be.
        let ann = t.path().join("ann");
        std::fs::write(&ann, b"in the way").unwrap();
        let (tx, rx) = crossbeam_channel::bounded::<Record>(1);
        tx.send(record("x/y.pdf")).unwrap();
        drop(tx);
        let err = write_exports(&ann, None, rx).unwrap_err();
        assert!(format!("{err:#}").contains("creating"), "{err:#}");
    }
}
