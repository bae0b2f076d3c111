//! Sharded runs and `merge` (issue 16): shards run as concurrent
//! processes over one library, each file in exactly one of them; merged,
//! they give the records of one unsharded run; a killed shard resumes from
//! its own cache; `merge` refuses missing shards unless `--allow-partial`.

use crate::util::{self, TestProject};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};

/// Text fixtures (no OCR, so the test stays quick), one broken PDF and
/// one `.pdf` that is not a PDF, in a few folders: 18 files.
fn library(p: &TestProject) {
    let books = [
        "book-p02-asis.pdf",
        "book-p03-asis.pdf",
        "paper_jss_stripped.pdf",
        "wild_beamer_theme_manual.pdf",
        "write_classic_xref.pdf",
        "write_xref_stream_no_info.pdf",
        "write_xref_stream_objstm.pdf",
        "ocr_layer_title_page.pdf",
    ];
    for (i, name) in books.iter().enumerate() {
        p.add(name, &format!("shelf-{}/{name}", i % 3));
        p.add(name, &format!("copies/{i}.pdf"));
    }
    p.add("encrypted_should_fail.pdf", "broken/locked.pdf");
    p.write("broken/not-a-pdf.pdf", b"just text, no PDF header");
}

/// The records of a `records.jsonl`, by path.
fn records_file(path: &std::path::Path) -> BTreeMap<String, serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| (r["path"].as_str().unwrap().to_string(), r))
        .collect()
}

/// The exit status a run over `records` has: 1 when one is an error.
fn expected_exit(records: &[serde_json::Value]) -> i32 {
    i32::from(records.iter().any(|r| r["status"] == "error"))
}

/// Runs the `n` shards of the library as `n` processes at once, as a job
/// array does (`run --shard i/n --jobs 1 --json -q` and `extra`), and
/// returns their outputs in shard order.
fn run_shards(p: &TestProject, n: u32, extra: &[&str]) -> Vec<Output> {
    let children: Vec<_> = (0..n)
        .map(|i| {
            p.cmd()
                .args(["run", "--shard", &format!("{i}/{n}"), "--jobs", "1"])
                .args(["--json", "-q"])
                .args(extra)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

fn parse_records(out: &Output) -> Vec<serde_json::Value> {
    util::stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

#[test]
fn four_concurrent_shards_merge_into_the_records_of_one_run() {
    let single = TestProject::new();
    library(&single);
    let (out, _) = single.run_json(&["run", "--jobs", "1"]);
    util::assert_exit(&out, 1);
    let expected = records_file(&single.root().join("cache/runs/latest/records.jsonl"));
    assert_eq!(expected.len(), 18);

    let p = TestProject::new();
    library(&p);
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for (i, out) in run_shards(&p, 4, &[]).into_iter().enumerate() {
        let records = parse_records(&out);
        util::assert_exit(&out, expected_exit(&records));
        assert!(!records.is_empty(), "shard {i}/4 got no file");
        for r in records {
            let path = r["path"].as_str().unwrap().to_string();
            assert_eq!(owner.insert(path.clone(), i), None, "{path} in two shards");
        }
        // Each shard keeps its own store and runs.
        let dir = p.root().join(format!("cache/shards/4/{i}"));
        assert!(dir.join("db").is_dir() && dir.join("runs/latest").exists());
    }
    let every: BTreeSet<&String> = expected.keys().collect();
    assert_eq!(
        owner.keys().collect::<BTreeSet<_>>(),
        every,
        "every file in one shard"
    );
    assert!(
        !p.root().join("cache/db").exists(),
        "no shard opened the main store"
    );

    let out = p.cmd().arg("merge").output().unwrap();
    util::assert_exit(&out, 1); // the broken PDFs are errors, as in one run
    assert!(
        util::stdout(&out).contains("merged 4 of 4 shards"),
        "{}",
        util::stdout(&out)
    );
    let latest = p.root().join("cache/runs/latest");
    let merged = records_file(&latest.join("records.jsonl"));
    assert_eq!(merged, expected, "merged records are those of one run");
    let lines: Vec<String> = std::fs::read_to_string(latest.join("records.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["path"].to_string())
        .collect();
    assert!(lines.is_sorted(), "merged records are sorted by path");
    for path in expected.keys() {
        let stem = path.strip_suffix(".pdf").unwrap();
        assert!(
            latest.join(format!("ann/{stem}--ann.json")).is_file(),
            "{path}"
        );
    }
    assert!(latest.join("review.html").is_file());
    let summary = p.summary();
    assert_eq!(summary["files"], 18);
    assert_eq!(summary["errors"], 2);
    let text = std::fs::read_to_string(latest.join("summary.md")).unwrap();
    assert!(text.contains("| 3/4 | "), "{text}");

    // The shards' caches are in the project's now: an unsharded rerun is warm.
    let (out, records) = p.run_json(&["run"]);
    util::assert_exit(&out, 1);
    assert_eq!(records.len(), 18);
    let summary = p.summary();
    assert_eq!(summary["records computed"], 0, "{summary:?}");
    assert_eq!(summary["hashes computed"], 0, "{summary:?}");
}

#[test]
fn a_killed_shard_resumes_from_its_cache_and_merge_waits_for_it() {
    let p = TestProject::new();
    library(&p);
    // Kill shard 0 of 2 (SIGKILL: no chance to flush anything) once it
    // has said (-v, unbuffered on stderr) that two documents were computed.
    let mut child = p
        .cmd()
        .args(["run", "--shard", "0/2", "--jobs", "1", "-v"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reported = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some((path, _)) = line.split_once(": hashed; record computed") {
            reported.push(path.to_string());
        }
        if reported.len() == 2 {
            child.kill().unwrap();
            break;
        }
    }
    child.wait().unwrap();
    assert_eq!(reported.len(), 2, "the shard ended before it was killed");

    // Merge refuses: shard 0 did not finish, shard 1 never ran.
    let out = p.cmd().args(["merge", "2"]).output().unwrap();
    util::assert_exit(&out, 1);
    let err = util::stderr(&out);
    assert!(err.contains("shard 0/2: no finished run"), "{err}");
    assert!(err.contains("shard 1/2: no finished run"), "{err}");
    assert!(err.contains("nothing merged"), "{err}");
    assert!(!p.root().join("cache/runs").exists(), "{err}");

    // Restarted, it computes only what it had not reported.
    let out = p
        .cmd()
        .args(["run", "--shard", "0/2", "--jobs", "1", "--json", "-v"])
        .output()
        .unwrap();
    let records = parse_records(&out);
    util::assert_exit(&out, expected_exit(&records));
    let log = util::stderr(&out);
    for path in &reported {
        assert!(
            log.contains(&format!(
                "{path}: hash from the stat memo; record from the cache"
            )) || log.contains(&format!("{path}: hashed; record from the cache")),
            "{path} was computed again:\n{log}"
        );
    }
    let shard_summary = |i: u32| {
        let text = std::fs::read_to_string(
            p.root()
                .join(format!("cache/shards/2/{i}/runs/latest/summary.json")),
        )
        .unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["summary"].clone()
    };
    let s = shard_summary(0);
    let count = |key: &str| s[key].as_u64().unwrap();
    assert!(count("record_cached") >= 2, "{s}");
    assert!(count("record_computed") <= count("files") - 2, "{s}");

    // Half a group: --allow-partial merges it and says so.
    let out = p
        .cmd()
        .args(["merge", "2", "--allow-partial"])
        .output()
        .unwrap();
    assert!(
        util::stderr(&out).contains("partial"),
        "{}",
        util::stderr(&out)
    );
    let merged = records_file(&p.root().join("cache/runs/latest/records.jsonl"));
    assert_eq!(merged.len(), records.len());
    let text = std::fs::read_to_string(p.root().join("cache/runs/latest/summary.md")).unwrap();
    assert!(
        text.contains("Partial merge") && text.contains("shard 1/2"),
        "{text}"
    );
}

#[test]
fn shards_from_the_scheduler_and_bad_shards_are_usage_errors() {
    let p = TestProject::new();
    let config = |envs: &[(&str, &str)], args: &[&str]| {
        let out = p
            .cmd()
            .arg("config")
            .args(args)
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        (out.status.code(), util::stdout(&out))
    };
    let (code, text) = config(
        &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ],
        &[],
    );
    assert_eq!(code, Some(0));
    assert!(
        text.contains("# shard: 2/4 (from Slurm array task: SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4)"),
        "{text}"
    );
    let (_, text) = config(&[("JOB_COMPLETION_INDEX", "1"), ("SHARDS", "3")], &[]);
    assert!(
        text.contains("# shard: 1/3 (from Kubernetes Indexed Job"),
        "{text}"
    );
    assert!(text.contains("SHARDS = 3  # environment"), "{text}");
    // The flag wins over the environment.
    let (_, text) = config(
        &[("JOB_COMPLETION_INDEX", "1"), ("SHARDS", "3")],
        &["--shard", "0/2"],
    );
    assert!(text.contains("# shard: 0/2 (from flag --shard)"), "{text}");
    let (_, text) = config(&[], &[]);
    assert!(text.contains("# shard: none"), "{text}");

    // Out of range, or an index without a count: exit 2, nothing processed.
    p.add("book-p02-asis.pdf", "a.pdf");
    for (envs, args) in [
        (&[][..], &["run", "--shard", "4/4"][..]),
        (&[("JOB_COMPLETION_INDEX", "0")][..], &["run"][..]),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", "7"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ][..],
            &["run"][..],
        ),
        (&[][..], &["run", "--shards", "3"][..]),
        (&[][..], &["merge", "--shard", "0/2"][..]),
    ] {
        let out = p
            .cmd()
            .args(args)
            .envs(envs.iter().copied())
            .output()
            .unwrap();
        util::assert_exit(&out, 2);
        assert!(
            !p.root().join("cache/runs").exists(),
            "{args:?} processed files"
        );
    }
    let out = p.cmd().args(["run", "--shard", "4/4"]).output().unwrap();
    assert!(
        util::stderr(&out).contains("from 0 to 3"),
        "{}",
        util::stderr(&out)
    );
}

#[test]
fn shards_write_with_their_own_journals_and_undo_reverts_the_merged_run() {
    let p = TestProject::new();
    library(&p);
    let before = p.snapshot();
    for out in run_shards(&p, 2, &["--write"]) {
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            util::stderr(&out)
        );
    }
    assert_ne!(p.snapshot(), before, "the shards wrote");
    let journals = |i: u32| {
        let dir = p.root().join(format!("cache/shards/2/{i}/journal"));
        std::fs::read_dir(dir).unwrap().count()
    };
    assert_eq!((journals(0), journals(1)), (1, 1), "one journal per shard");

    let out = p.cmd().arg("merge").output().unwrap();
    util::assert_exit(&out, 1);
    let merged = records_file(&p.root().join("cache/runs/latest/records.jsonl"));
    let written = merged.values().filter(|r| r["written"] == true).count();
    assert!(written >= 8, "{written} written");
    assert!(
        util::stdout(&out).contains(&format!("{written} writes journaled")),
        "{}",
        util::stdout(&out)
    );
    assert_eq!(
        (journals(0), journals(1)),
        (0, 0),
        "moved to the merged run"
    );

    let out = p.cmd().arg("undo").output().unwrap();
    util::assert_exit(&out, 0);
    assert!(
        util::stdout(&out).contains(&format!("undid {written} writes of run")),
        "{}",
        util::stdout(&out)
    );
    assert_eq!(
        p.snapshot(),
        before,
        "the library is as it was before the shards"
    );
}

/// Issue 16: each shard records its run group (here Slurm's array job id),
/// and `merge` combines one group only. Job 700 runs both shards; job 701
/// runs shard 0 alone (shard 1 failed to start): merging 701 names shard
/// 1's run as a stale one of job 700 instead of merging it.
#[test]
fn merge_names_a_shard_whose_last_run_is_an_earlier_jobs() {
    let p = TestProject::new();
    p.add("book-p02-asis.pdf", "a.pdf");
    p.add("book-p03-asis.pdf", "b.pdf");
    let shard = |i: u32, job: &str| {
        let out = p
            .cmd()
            .args(["run", "-q"])
            .envs([
                ("SLURM_ARRAY_TASK_ID", i.to_string().as_str()),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
                ("SLURM_ARRAY_JOB_ID", job),
            ])
            .output()
            .unwrap();
        util::assert_exit(&out, 0);
    };
    let config = p
        .cmd()
        .arg("config")
        .envs([
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_JOB_ID", "700"),
        ])
        .output()
        .unwrap();
    assert!(
        util::stdout(&config).contains("# run group: 700 (from SLURM_ARRAY_JOB_ID)"),
        "{}",
        util::stdout(&config)
    );
    shard(0, "700");
    shard(1, "700");
    // Run ids are by the second: job 701 starts a second later.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    shard(0, "701");

    let out = p.cmd().arg("merge").output().unwrap();
    util::assert_exit(&out, 1);
    let err = util::stderr(&out);
    assert!(
        err.contains("shard 1/2: its last finished run")
            && err.contains("is of run group 700, not 701: a stale run"),
        "{err}"
    );
    assert!(err.contains("nothing merged"), "{err}");
    // Asked for job 700 by name, shard 0's newer run is the stale one.
    let out = p.cmd().args(["merge", "--group", "700"]).output().unwrap();
    util::assert_exit(&out, 1);
    assert!(
        util::stderr(&out).contains("shard 0/2: its last finished run"),
        "{}",
        util::stderr(&out)
    );
    // Shard 1 runs again in job 701: the merge goes through and says which.
    shard(1, "701");
    let out = p.cmd().arg("merge").output().unwrap();
    util::assert_exit(&out, 0);
    assert!(
        util::stdout(&out).contains("merged 2 of 2 shards of run group 701"),
        "{}",
        util::stdout(&out)
    );
}

/// Issue 38, 2: `merge` trusted what shards wrote. Each of four shards
/// here leaves damaged records: a path climbing out of the library (which
/// an export would turn into a file outside its folder), an emptied file
/// (merged as "6 records" while one was written), a link to `/dev/zero`
/// and a 3 GB line of NUL bytes (which were read whole, into memory).
/// Each is a failed shard, named with its file; nothing is merged; run
/// again, the shards merge.
#[test]
fn merge_refuses_shards_whose_records_are_damaged() {
    let p = TestProject::new();
    library(&p);
    for out in run_shards(&p, 4, &[]) {
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            util::stderr(&out)
        );
    }
    let records = |i: u32| {
        let run = p.root().join(format!("cache/shards/4/{i}/runs/latest"));
        std::fs::canonicalize(run).unwrap().join("records.jsonl")
    };
    let files: Vec<_> = (0..4).map(records).collect();
    // Shard 0: one record's path leaves the library (count unchanged).
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["path"] = "../../../../../x.pdf".into();
    let text: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&files[0], text).unwrap();
    // Shard 1: emptied.
    std::fs::write(&files[1], "").unwrap();
    // Shard 2: a link to an endless device.
    std::fs::remove_file(&files[2]).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &files[2]).unwrap();
    // Shard 3: a 3 GB line of NUL bytes (sparse: no disk space taken).
    std::fs::File::create(&files[3])
        .unwrap()
        .set_len(3 << 30)
        .unwrap();

    let out = p.cmd().args(["merge", "4"]).output().unwrap();
    util::assert_exit(&out, 1);
    let err = util::stderr(&out);
    let line_of = |i: usize| {
        let name = files[i].to_string_lossy().into_owned();
        err.lines()
            .find(|l| l.contains(&format!("shard {i}/4: {name}")))
            .unwrap_or_else(|| panic!("shard {i} not named with its file:\n{err}"))
            .to_string()
    };
    assert!(
        line_of(0).contains("refused path \"../../../../../x.pdf\""),
        "{err}"
    );
    assert!(
        line_of(1).contains("holds 0 records, but the run's summary.json counts"),
        "{err}"
    );
    assert!(line_of(2).contains("is not a regular file"), "{err}");
    assert!(line_of(3).contains("line 1 is longer than"), "{err}");
    assert!(
        err.contains("nothing merged: 4 of 4 shards are not ready"),
        "{err}"
    );
    assert!(!p.root().join("cache/runs").exists());

    // The shards run again (from their caches) and merge.
    for f in &files {
        std::fs::remove_file(f).unwrap();
    }
    for out in run_shards(&p, 4, &[]) {
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            util::stderr(&out)
        );
    }
    let out = p.cmd().args(["merge", "4"]).output().unwrap();
    util::assert_exit(&out, 1); // the broken PDFs are errors
    assert!(
        util::stdout(&out).contains("18 records"),
        "{}",
        util::stdout(&out)
    );
    let merged = records_file(&p.root().join("cache/runs/latest/records.jsonl"));
    assert_eq!(merged.len(), 18);
}
