//! Sharded runs (issue 16): one run of `colophon run` processes a stable,
//! disjoint 1/N of `data/`, so that a cluster's scheduler (a Slurm job
//! array, a Kubernetes Indexed Job) can run N of them at once and
//! `colophon merge` can put their results together.
//!
//! - Which files: a file belongs to shard `blake3(relative path) mod N`
//!   ([`Shard::contains`]). The relative path, not the content: a shard
//!   decides without reading a byte, and a file stays in its shard across
//!   reruns (until it is renamed).
//! - Which shard: [`resolve`], in this order: the `--shard I/N` flag; a
//!   Slurm array task (`SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_COUNT`,
//!   or `SLURM_ARRAY_TASK_MIN`/`MAX`/`STEP`); a Kubernetes Indexed Job
//!   (`JOB_COMPLETION_INDEX` with the `SHARDS` setting or `--shards`).
//!   Indices count from 0. Anything inconsistent is a usage error (exit 2)
//!   naming the variable or flag to fix.
//! - Where its state lives: `cache/shards/<N>/<I>/` ([`Shard::cache_dir`])
//!   holds the shard's own store, run folders and write journal, so no two
//!   processes ever open the same embedded store, and a shard restarted
//!   after a kill finds its finished documents in its own cache.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::settings::Source;

/// One of N shards of the library, numbered from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the file at `rel` (relative to `data/`) belongs to this
    /// shard. The hash is domain-separated and over the path's bytes, so
    /// it is the same on every machine and in every release.
    pub fn contains(&self, rel: &Path) -> bool {
        shard_of(rel, self.count) == self.index
    }

    /// `cache/shards/<N>/<I>/` under the project's cache folder.
    pub fn cache_dir(&self, cache_dir: &Path) -> PathBuf {
        group_dir(cache_dir, self.count).join(self.index.to_string())
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard (0..count) that the file at `rel` belongs to.
pub fn shard_of(rel: &Path, count: u32) -> u32 {
    let mut h = blake3::Hasher::new();
    h.update(b"colophon shard v1\0");
    h.update(rel.as_os_str().as_encoded_bytes());
    let first: [u8; 8] = h.finalize().as_bytes()[..8].try_into().expect("8 bytes");
    (u64::from_le_bytes(first) % u64::from(count.max(1))) as u32
}

/// `cache/shards/<N>/`: the folders of the N shards of one run group.
pub fn group_dir(cache_dir: &Path, count: u32) -> PathBuf {
    cache_dir.join(SHARDS_DIR).join(count.to_string())
}

/// The folder under the cache that holds the shards' state.
pub const SHARDS_DIR: &str = "shards";

/// The project's cache folder of a cache folder that may be a shard's
/// (`<cache>/shards/<N>/<I>` → `<cache>`); any other folder is itself.
pub fn main_cache_dir(cache_dir: &Path) -> &Path {
    let names: Vec<_> = cache_dir.components().rev().take(3).collect();
    let numeric = |c: &std::path::Component| {
        c.as_os_str()
            .to_str()
            .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
    };
    match names.as_slice() {
        [i, n, dir] if numeric(i) && numeric(n) && dir.as_os_str() == SHARDS_DIR => cache_dir
            .ancestors()
            .nth(3)
            .expect("three components were just seen"),
        _ => cache_dir,
    }
}

/// Where a run's shard came from, for `colophon config` and messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--shard I/N`.
    Flag,
    /// A Slurm array task; the variables read, as `NAME=value`.
    Slurm(Vec<String>),
    /// A Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` and where the
    /// count (`SHARDS`) came from.
    Kubernetes { index: String, count: Source },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag => f.write_str("flag --shard"),
            Origin::Slurm(vars) => write!(f, "Slurm array task: {}", vars.join(", ")),
            Origin::Kubernetes { index, count } => write!(
                f,
                "Kubernetes Indexed Job: JOB_COMPLETION_INDEX={index}, SHARDS from {count}"
            ),
        }
    }
}

/// A run's shard and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub shard: Shard,
    pub origin: Origin,
}

/// A shard that cannot be used: a usage error (exit 2), nothing processed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShardError(pub String);

/// The `SHARDS` setting as resolved: its value and where it came from
/// ([`Source::Default`]: not set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardsSetting {
    pub count: u32,
    pub source: Source,
}

impl ShardsSetting {
    fn given(self) -> Option<u32> {
        (self.source != Source::Default).then_some(self.count)
    }
}

/// The shard of this process, or `None` for the whole library.
///
/// Precedence: **`--shard I/N` > Slurm array > Kubernetes Indexed Job**.
/// The count from `SHARDS` (`--shards`, environment or file) must agree
/// with an explicit `--shard` given together with `--shards`, and with a
/// Slurm array's size; it is the count of a Kubernetes Indexed Job (whose
/// completions are not in the pod's environment). `SHARDS` above 1 with no
/// index from anywhere is an error: running the whole library in every
/// task of a misconfigured job would do the work N times.
pub fn resolve(
    flag: Option<&str>,
    shards: ShardsSetting,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Resolved>, ShardError> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    if let Some(text) = flag {
        let shard = parse_flag(text)?;
        if let (Source::Flag(_), Some(n)) = (shards.source, shards.given())
            && n != shard.count
        {
            return Err(ShardError(format!(
                "--shard {text} and --shards {n} disagree on the number of shards"
            )));
        }
        return Ok(Some(Resolved {
            shard,
            origin: Origin::Flag,
        }));
    }
    if let Some(id) = var(SLURM_ID) {
        let (shard, vars) = slurm(&id, &var)?;
        if let Some(n) = shards.given().filter(|&n| n != shard.count) {
            return Err(ShardError(format!(
                "SHARDS = {n} (from {}) but the Slurm array has {} tasks ({}); \
                 leave SHARDS unset under Slurm",
                shards.source,
                shard.count,
                vars.join(", ")
            )));
        }
        return Ok(Some(Resolved {
            shard,
            origin: Origin::Slurm(vars),
        }));
    }
    if let Some(index) = var(K8S_INDEX) {
        let Some(count) = shards.given() else {
            return Err(ShardError(format!(
                "{K8S_INDEX}={index} is set but SHARDS is not: set SHARDS (or --shards) \
                 to the Job's completions"
            )));
        };
        let index_n = number(K8S_INDEX, &index)?;
        let shard = checked(index_n, count, || format!("{K8S_INDEX}={index}"))?;
        return Ok(Some(Resolved {
            shard,
            origin: Origin::Kubernetes {
                index,
                count: shards.source,
            },
        }));
    }
    match shards.given() {
        Some(n) if n > 1 => Err(ShardError(format!(
            "SHARDS = {n} (from {}) but no shard index: give --shard I/{n} (I from 0 to {}), \
             or run as a Slurm array task or a Kubernetes Indexed Job",
            shards.source,
            n - 1
        ))),
        _ => Ok(None),
    }
}

const SLURM_ID: &str = "SLURM_ARRAY_TASK_ID";
const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
const SLURM_STEP: &str = "SLURM_ARRAY_TASK_STEP";
const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
const SLURM_JOB: &str = "SLURM_ARRAY_JOB_ID";

/// The variable that names a sharded run's group (see [`run_group`]).
pub const GROUP_VAR: &str = "RUN_GROUP";

/// The environment variables [`resolve`] and [`run_group`] read (tests
/// clear them).
pub const ENV_VARS: &[&str] = &[
    SLURM_ID,
    SLURM_COUNT,
    SLURM_MIN,
    SLURM_MAX,
    SLURM_STEP,
    K8S_INDEX,
    SLURM_JOB,
    GROUP_VAR,
];

/// The run group of a shard's run: which job the N shards belong to. Each
/// shard records it in its run (`summary.json`), and `colophon merge`
/// combines only shards of one group, naming a shard whose last run is of
/// another (a stale run of an earlier job with the same N). From
/// `RUN_GROUP` (by hand, or from the Job's `controller-uid` label in
/// docs/cluster's Kubernetes manifest), else Slurm's `SLURM_ARRAY_JOB_ID`
/// (the same in every task of one array). Returns the id and the variable
/// it came from; `None` when neither is set (shards run by hand: merge
/// then goes by N alone).
pub fn run_group(env: impl Fn(&str) -> Option<String>) -> Option<(String, &'static str)> {
    [GROUP_VAR, SLURM_JOB].into_iter().find_map(|name| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .map(|v| (v, name))
    })
}

/// `I/N` with 0 <= I < N.
fn parse_flag(text: &str) -> Result<Shard, ShardError> {
    let bad = || {
        ShardError(format!(
            "--shard {text}: expected I/N, the shard index from 0 and the number of shards \
             (for example --shard 0/4)"
        ))
    };
    let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
    let i: u32 = i.trim().parse().map_err(|_| bad())?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    checked(i, n, || format!("--shard {text}"))
}

/// A shard after its range check; `what` names the input for the message.
fn checked(index: u32, count: u32, what: impl Fn() -> String) -> Result<Shard, ShardError> {
    if count == 0 {
        return Err(ShardError(format!(
            "{}: the number of shards must be at least 1",
            what()
        )));
    }
    if index >= count {
        return Err(ShardError(format!(
            "{}: shard index {index} is out of range; with {count} shards the index is \
             from 0 to {} (shards are numbered from 0)",
            what(),
            count - 1
        )));
    }
    Ok(Shard { index, count })
}

fn number(name: &str, text: &str) -> Result<u32, ShardError> {
    text.trim().parse().map_err(|_| {
        ShardError(format!(
            "{name}={text} is not a whole number from 0 to {}",
            u32::MAX
        ))
    })
}

/// The shard of a Slurm array task: index `(ID - MIN) / STEP` of
/// `COUNT` (or `(MAX - MIN) / STEP + 1`) tasks. Returns the variables read.
fn slurm(
    id_text: &str,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<(Shard, Vec<String>), ShardError> {
    let mut vars = vec![format!("{SLURM_ID}={id_text}")];
    let mut read = |name: &str| -> Result<Option<u32>, ShardError> {
        match var(name) {
            None => Ok(None),
            Some(text) => {
                vars.push(format!("{name}={text}"));
                number(name, &text).map(Some)
            }
        }
    };
    let id = number(SLURM_ID, id_text)?;
    let min = read(SLURM_MIN)?.unwrap_or(0);
    let step = read(SLURM_STEP)?.unwrap_or(1).max(1);
    let max = read(SLURM_MAX)?;
    let count = match (read(SLURM_COUNT)?, max) {
        (Some(c), _) => c,
        (None, Some(max)) if max >= min => (max - min) / step + 1,
        _ => {
            return Err(ShardError(format!(
                "{SLURM_ID}={id_text} is set but neither {SLURM_COUNT} nor {SLURM_MAX} is: \
                 submit with sbatch --array, or give --shard I/N"
            )));
        }
    };
    let not_a_range = || {
        ShardError(format!(
            "Slurm array task {id} ({}) is not one of {count} evenly spaced tasks: \
             submit the array as a range such as --array=0-{}",
            vars.join(", "),
            count.saturating_sub(1)
        ))
    };
    if id < min || (id - min) % step != 0 {
        return Err(not_a_range());
    }
    let index = (id - min) / step;
    if index >= count {
        return Err(not_a_range());
    }
    Ok((Shard { index, count }, vars))
}

/// The `colophon config` lines about the shard (TOML comments), with the
/// run group ([`run_group`]) a shard records.
pub fn describe(
    resolved: &Result<Option<Resolved>, ShardError>,
    group: Option<&(String, &'static str)>,
    cache_dir: &Path,
) -> String {
    match resolved {
        Ok(Some(r)) => format!(
            "# shard: {} (from {}); its cache and runs: {}\n# run group: {}\n",
            r.shard,
            r.origin,
            r.shard.cache_dir(cache_dir).display(),
            match group {
                Some((id, var)) => format!("{id} (from {var})"),
                None => format!(
                    "none ({GROUP_VAR} and {SLURM_JOB} are unset: merge goes by the number of \
                     shards alone)"
                ),
            }
        ),
        Ok(None) => "# shard: none (the whole library)\n".to_string(),
        Err(e) => format!("# shard: error: {e}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::env_of;

    const UNSET: ShardsSetting = ShardsSetting {
        count: 1,
        source: Source::Default,
    };

    fn shards(count: u32, source: Source) -> ShardsSetting {
        ShardsSetting { count, source }
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
    }

    fn resolved(
        flag: Option<&str>,
        s: ShardsSetting,
        env: &'static [(&'static str, &'static str)],
    ) -> Result<Option<Resolved>, ShardError> {
        resolve(flag, s, env_of(env))
    }

    fn error(
        flag: Option<&str>,
        s: ShardsSetting,
        env: &'static [(&'static str, &'static str)],
    ) -> String {
        resolved(flag, s, env).unwrap_err().0
    }

    #[test]
    fn nothing_given_is_the_whole_library() {
        assert_eq!(resolved(None, UNSET, &[]), Ok(None));
        // SHARDS = 1 is one shard of everything: no index needed.
        assert_eq!(resolved(None, shards(1, Source::File), &[]), Ok(None));
        // Empty variables count as unset.
        assert_eq!(
            resolved(None, UNSET, &[("SLURM_ARRAY_TASK_ID", " ")]),
            Ok(None)
        );
    }

    #[test]
    fn the_flag_is_parsed_and_range_checked() {
        let r = resolved(Some("2/4"), UNSET, &[]).unwrap().unwrap();
        assert_eq!(r.shard, shard(2, 4));
        assert_eq!(r.origin, Origin::Flag);
        assert_eq!(
            resolved(Some(" 0 / 1 "), UNSET, &[])
                .unwrap()
                .unwrap()
                .shard,
            shard(0, 1)
        );
        assert_eq!(
            error(Some("4/4"), UNSET, &[]),
            "--shard 4/4: shard index 4 is out of range; with 4 shards the index is from \
             0 to 3 (shards are numbered from 0)"
        );
        assert!(error(Some("0/0"), UNSET, &[]).contains("at least 1"));
        for bad in ["3", "a/4", "1/b", "-1/4", "1/4/2", ""] {
            assert!(
                error(Some(bad), UNSET, &[]).contains("expected I/N"),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_flag_wins_over_slurm_kubernetes_and_the_setting() {
        let env = &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
            ("JOB_COMPLETION_INDEX", "5"),
        ];
        let r = resolved(Some("1/4"), shards(6, Source::Env), env)
            .unwrap()
            .unwrap();
        assert_eq!((r.shard, r.origin), (shard(1, 4), Origin::Flag));
        // Two flags that disagree are refused, not guessed between.
        assert!(error(Some("1/4"), shards(3, Source::Flag("--shards")), &[]).contains("disagree"));
        let same = resolved(Some("1/3"), shards(3, Source::Flag("--shards")), &[]);
        assert_eq!(same.unwrap().unwrap().shard, shard(1, 3));
    }

    #[test]
    fn slurm_wins_over_kubernetes() {
        let env = &[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("JOB_COMPLETION_INDEX", "0"),
        ];
        let r = resolved(None, UNSET, env).unwrap().unwrap();
        assert_eq!(r.shard, shard(2, 4));
        assert_eq!(
            r.origin.to_string(),
            "Slurm array task: SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4"
        );
    }

    #[test]
    fn slurm_arrays_from_one_with_min_max_or_a_step() {
        // --array=1-4: ids 1..=4 are shards 0..=3.
        let one_based = &[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ];
        let r = resolved(None, UNSET, one_based).unwrap().unwrap();
        assert_eq!(r.shard, shard(3, 4));
        // --array=0-15:5: ids 0, 5, 10, 15.
        let stepped = &[
            ("SLURM_ARRAY_TASK_ID", "10"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "15"),
            ("SLURM_ARRAY_TASK_STEP", "5"),
        ];
        assert_eq!(
            resolved(None, UNSET, stepped).unwrap().unwrap().shard,
            shard(2, 4)
        );
        // COUNT wins over MIN/MAX when both are there.
        let both = &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
        ];
        assert_eq!(
            resolved(None, UNSET, both).unwrap().unwrap().shard,
            shard(1, 2)
        );
    }

    #[test]
    fn bad_slurm_environments_are_usage_errors() {
        let no_size = &[("SLURM_ARRAY_TASK_ID", "1")];
        assert!(error(None, UNSET, no_size).contains("neither SLURM_ARRAY_TASK_COUNT"));
        // --array=1,5,9: not a range.
        let list = &[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert!(error(None, UNSET, list).contains("--array=0-2"));
        let beyond = &[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(error(None, UNSET, beyond).contains("not one of 4"));
        let text = &[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(error(None, UNSET, text).contains("SLURM_ARRAY_TASK_ID=x is not a whole number"));
        let env = &[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(error(None, shards(3, Source::File), env).contains("leave SHARDS unset"));
        // SHARDS that agrees is fine.
        assert!(resolved(None, shards(4, Source::File), env).is_ok());
    }

    #[test]
    fn kubernetes_needs_shards() {
        let env = &[("JOB_COMPLETION_INDEX", "3")];
        let r = resolved(None, shards(4, Source::Env), env)
            .unwrap()
            .unwrap();
        assert_eq!(r.shard, shard(3, 4));
        assert_eq!(
            r.origin.to_string(),
            "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=3, SHARDS from environment"
        );
        assert!(error(None, UNSET, env).contains("SHARDS is not"));
        assert!(error(None, shards(3, Source::File), env).contains("out of range"));
        assert!(
            error(
                None,
                shards(3, Source::File),
                &[("JOB_COMPLETION_INDEX", "two")]
            )
            .contains("not a whole number")
        );
    }

    #[test]
    fn shards_without_an_index_is_refused() {
        let e = error(None, shards(4, Source::File), &[]);
        assert!(e.contains("--shard I/4 (I from 0 to 3)"), "{e}");
    }

    #[test]
    fn every_file_is_in_exactly_one_shard_and_stays_there() {
        let paths: Vec<PathBuf> = (0..400)
            .map(|i| PathBuf::from(format!("dir{}/book {i}.pdf", i % 7)))
            .collect();
        for count in [1, 2, 3, 4, 16] {
            let mut sizes = vec![0usize; count as usize];
            for p in &paths {
                let owners: Vec<u32> = (0..count)
                    .filter(|&i| shard(i, count).contains(p))
                    .collect();
                assert_eq!(owners.len(), 1, "{p:?} in {owners:?} of {count}");
                sizes[owners[0] as usize] += 1;
            }
            // Roughly even: no shard gets less than half its share.
            let fair = paths.len() / count as usize;
            assert!(sizes.iter().all(|&s| s * 2 >= fair), "{count}: {sizes:?}");
        }
        // Stable: fixed paths map to fixed shards in every release;
        // changing the hash would move every file of every library to
        // another shard, away from its cache.
        let known =
            ["a/b.pdf", "x.pdf", "dir/y z.pdf", "Ü/ß.pdf"].map(|p| shard_of(Path::new(p), 16));
        assert_eq!(known, [1, 9, 1, 4]);
    }

    #[test]
    fn shard_folders_and_back() {
        let cache = Path::new("/lib/cache");
        let dir = shard(2, 4).cache_dir(cache);
        assert_eq!(dir, Path::new("/lib/cache/shards/4/2"));
        assert_eq!(main_cache_dir(&dir), cache);
        assert_eq!(main_cache_dir(cache), cache);
        assert_eq!(
            main_cache_dir(Path::new("/x/shards/a/2")),
            Path::new("/x/shards/a/2")
        );
    }
}
