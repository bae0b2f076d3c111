//! Issue 19 regression tests: a damaged cache is set aside, not fatal.

use crate::util::{TestProject, record_for};

const PAPER: &str = "paper_jss_stripped.pdf";

#[test]
fn a_damaged_cache_store_is_moved_aside_and_rebuilt() {
    let p = TestProject::new();
    p.add(PAPER, "a.pdf");
    let (out, first) = p.run_json(&["run"]);
    assert_eq!(out.status.code(), Some(0));
    let title = record_for(&first, "a.pdf")["metadata"]["title"].clone();

    // sled's config file overwritten with garbage: the store cannot open.
    let conf = p.root().join("cache/db/conf");
    assert!(conf.exists(), "sled keeps its config in cache/db/conf");
    std::fs::write(&conf, b"\xff\x00 not a sled config \x13\x37").unwrap();

    let out = p.cmd().args(["run", "--json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("was damaged") && stderr.contains("db.damaged-"),
        "{stderr}"
    );
    let moved = std::fs::read_dir(p.root().join("cache"))
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with("db.damaged-"));
    assert!(moved, "the damaged store is kept for inspection");
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(record_for(&records, "a.pdf")["metadata"]["title"], title);

    // The next run uses the new store without a word.
    let out = p.cmd().args(["run", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("damaged"));
}
