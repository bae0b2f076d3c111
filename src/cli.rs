//! The command line (SPEC 10): clap-derive [`Cli`] holding the raw flags, and
//! the two things built from it: [`Overrides`] (flags that are settings, fed
//! to `Settings::resolve`) and [`RunOptions`] (flags that only change how a
//! run is carried out and so never enter a cache key).
//!
//! Flags stay raw (`Option`, `bool`) here so that precedence is applied in one
//! place, `Settings::resolve`.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand};

use crate::settings::Overrides;

/// `colophon`: find bibliographic metadata in a PDF library and propose
/// clean file names.
#[derive(Debug, Clone, Parser)]
#[command(name = "colophon", version, about, long_about = None)]
pub struct Cli {
    /// What to do; `run` when none is given.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Flags common to every subcommand.
    #[command(flatten)]
    pub flags: CommonFlags,
}

/// The subcommands of SPEC 10.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Process data/ (dry run unless WRITE_PDF_CHANGES or --write).
    Run,
    /// Process the given PDFs only and print their records.
    Show {
        /// PDFs to process.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Check that the vision backend is up and the model is present.
    VlmCheck,
    /// Print the effective settings and where each came from.
    Config,
    /// Inspect or clear the cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Look identifiers up in the online catalogues and print what they say.
    Lookup {
        /// ISBNs, DOIs or LCCNs (`isbn:`, `doi:`, `lccn:` prefixes allowed).
        #[arg(required = true, value_name = "ISBN|DOI|LCCN")]
        ids: Vec<String>,
    },
    /// Revert the writes of the last (or the given) write run.
    Undo {
        /// Run id under cache/runs/; the latest write run when omitted.
        #[arg(value_name = "RUN-ID")]
        run_id: Option<String>,
    },
    /// Export a run's records for reference and ebook managers (only
    /// confident values; see --include-unsure).
    Export {
        /// Run id under cache/runs/; the latest run when omitted.
        #[arg(long = "run", value_name = "RUN-ID")]
        run_id: Option<String>,
        /// The format to write.
        #[arg(long, value_enum)]
        format: crate::export::Format,
        /// Write to FILE instead of stdout (for opf: the folder of the
        /// .opf files; they go beside the PDFs with --write, otherwise
        /// under the run folder).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also export the records without a sure title (left out and
        /// counted otherwise), and put values below MIN_CONFIDENCE into
        /// the note field, marked as unsure.
        #[arg(long)]
        include_unsure: bool,
    },
    /// Make the thumbnails of a run's review page and open it (the latest
    /// run when no id is given).
    // `--write` and `--online` do nothing here (`run --write --approved
    // FILE` writes what was approved): arguments of the same ids keep the
    // global flags out of this subcommand (clap propagates a global
    // argument only where none of its id exists), and refuse them.
    #[command(arg(refused(
        "write",
        "review writes nothing; `colophon run --write --approved FILE` writes what the page approved"
    )))]
    #[command(arg(refused("online", "review looks nothing up; `colophon run --online` does")))]
    Review {
        /// Run id under cache/runs/.
        #[arg(value_name = "RUN-ID")]
        run_id: Option<String>,
        /// Only print the page's path; do not start a browser.
        #[arg(long)]
        no_open: bool,
    },
    /// Combine the shards of a sharded run into one run (records, summary,
    /// exports, review page, write journal) and their caches into the
    /// project's cache.
    Merge {
        /// The number of shards of the run to merge (cache/shards/N/)
        /// [default: SHARDS, or the only group there is].
        #[arg(value_name = "N")]
        group: Option<u32>,
        /// The run group to merge: the job id the shards recorded
        /// (RUN_GROUP, or SLURM_ARRAY_JOB_ID under Slurm) [default:
        /// RUN_GROUP, else the group of the newest shard run]. Shards whose
        /// last run is of another group are named as stale, not merged.
        #[arg(long = "group", value_name = "ID")]
        run_group: Option<String>,
        /// Merge the shards that finished even when others are missing or
        /// did not finish (they are named, and the run is marked partial).
        #[arg(long)]
        allow_partial: bool,
    },
    /// Internal: a pdfium worker process speaking postcard on stdin/stdout.
    #[command(hide = true)]
    Worker,
    /// Internal: an OCR server process (libtesseract) speaking postcard on
    /// stdin/stdout.
    #[command(hide = true)]
    OcrServer,
}

/// A hidden flag `--id` that a subcommand refuses with `why` (exit 2).
fn refused(id: &'static str, why: &'static str) -> clap::Arg {
    clap::Arg::new(id)
        .long(id)
        .hide(true)
        .num_args(0)
        .default_missing_value("")
        .action(ArgAction::Set)
        .value_parser(move |_: &str| -> Result<bool, String> { Err(why.to_string()) })
}

/// What to add to clap's refusal of the command line, when the user gave a
/// folder where colophon takes none: `colophon run ~/papers`. The data
/// folder is `<project>/data` by design (every cache key and journal path
/// is relative to it); a library elsewhere is linked there.
pub fn usage_hint(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if !matches!(
        err.kind(),
        ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand
    ) {
        return None;
    }
    let given = [ContextKind::InvalidArg, ContextKind::InvalidSubcommand];
    let Some(ContextValue::String(arg)) = given.into_iter().find_map(|k| err.get(k)) else {
        return None;
    };
    if arg.starts_with('-') || !std::path::Path::new(arg).is_dir() {
        return None;
    }
    Some(format!(
        "colophon: the data folder is fixed by design: colophon reads the PDFs under \
         <project>/data (the folder holding colophon.toml, else the current one). To \
         process {arg}, link it there:\n\n    ln -s {arg} data\n"
    ))
}

/// `colophon cache ...`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum CacheAction {
    /// Show entry counts and sizes per stage.
    Stats,
    /// Delete the cache (loses nothing but time).
    Clear {
        /// Drop only the answers of the online catalogues.
        #[arg(long)]
        online: bool,
    },
    /// Delete the outputs of all but the ten newest runs now (runs also
    /// do it as they go, without waiting for it).
    Prune,
}

/// Flags accepted by every subcommand (`global`), so both
/// `colophon --json show a.pdf` and `colophon show a.pdf --json` work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct CommonFlags {
    /// Print one JSON record per line instead of the table.
    #[arg(long, global = true)]
    pub json: bool,
    /// Write metadata and names into the PDFs (sets WRITE_PDF_CHANGES).
    #[arg(long, global = true)]
    pub write: bool,
    /// Ask the vision model about hard pages (sets ANALYZE_WITH_VISION).
    #[arg(long, global = true)]
    pub vision: bool,
    /// Look the ISBN, DOI and LCCN found up in online catalogues (sets
    /// ONLINE_LOOKUP).
    #[arg(long, global = true)]
    pub online: bool,
    /// Number of parallel jobs, at most the number of CPUs [default: number
    /// of CPUs].
    #[arg(short = 'j', long, value_name = "N", global = true)]
    pub jobs: Option<NonZeroUsize>,
    /// Pages read from the start (sets MATTER_CONFIG.front.max_pages).
    #[arg(long, value_name = "N", global = true)]
    pub front_pages: Option<u32>,
    /// When to read back matter (sets MATTER_CONFIG.back.mode).
    #[arg(
        long,
        value_name = "MODE",
        global = true,
        value_parser = ["never", "always", "fallback"]
    )]
    pub back_mode: Option<String>,
    /// Pages read from the end (sets MATTER_CONFIG.back.max_pages).
    #[arg(long, value_name = "N", global = true)]
    pub back_pages: Option<u32>,
    /// Process shard I of N (I from 0): a stable 1/N of data/, with its
    /// own cache under cache/shards/N/I/ [default: from a Slurm array task
    /// or a Kubernetes Indexed Job].
    #[arg(long, value_name = "I/N", global = true)]
    pub shard: Option<String>,
    /// Number of shards (sets SHARDS; with JOB_COMPLETION_INDEX, the
    /// Kubernetes Indexed Job's completions).
    #[arg(long, value_name = "N", global = true)]
    pub shards: Option<u32>,
    /// Hash every file again instead of trusting the size/mtime memo.
    #[arg(long, global = true)]
    pub rehash: bool,
    /// With --write: write only the files approved in FILE (downloaded
    /// from the review page), and only with the content that was reviewed.
    #[arg(long, value_name = "FILE", global = true)]
    pub approved: Option<PathBuf>,
    /// Read broken PDFs again instead of reporting their cached failure.
    #[arg(long, global = true)]
    pub retry_errors: bool,
    /// No progress bars or log lines, only results and errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// More detail on stderr: -v where each document's results came from,
    /// -vv also the top three candidates per field with their probability.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
}

impl Cli {
    /// The subcommand to run, `run` when none was given.
    pub fn command_or_run(&self) -> Command {
        self.command.clone().unwrap_or(Command::Run)
    }

    /// The flags that override settings.
    pub fn overrides(&self) -> Overrides {
        let f = &self.flags;
        Overrides {
            write: f.write,
            vision: f.vision,
            front_pages: f.front_pages,
            back_mode: f.back_mode.clone(),
            back_pages: f.back_pages,
            online: f.online,
            shards: f.shards,
        }
    }
}

/// How a run is carried out, as opposed to what it computes: none of these
/// may enter a cache key (STYLE "Cache").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Parallel jobs: pdfium worker processes and OCR slots, with twice as
    /// many document threads; at most (and by default) the number of CPUs.
    pub jobs: usize,
    /// JSON lines on stdout instead of the table.
    pub json: bool,
    /// Ignore the fingerprint memo and hash every file.
    pub rehash: bool,
    /// Read documents whose failure is cached (a broken or encrypted PDF)
    /// again; a new colophon version does so anyway.
    pub retry_errors: bool,
    /// Hide progress and log lines.
    pub quiet: bool,
    /// `--approved FILE`: write only what the review approved.
    pub approved: Option<PathBuf>,
    /// Verbosity level (`-v` count).
    pub verbose: u8,
    /// The shard of a sharded run (`--shard`, Slurm, Kubernetes: set by
    /// `app` from `shard::resolve`); `None` processes the whole library.
    pub shard: Option<crate::shard::Shard>,
    /// The run group a shard's run records (`shard::run_group`).
    pub run_group: Option<String>,
}

/// The number of CPUs this process may use (cgroup quotas included), 1 if
/// it cannot be determined.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// The jobs of a run: `--jobs` bounded by the number of CPUs, which is also
/// the default. Each job is a pdfium worker process and two document
/// threads doing CPU work (pdfium, Tesseract, the finders), so more jobs
/// than CPUs only cost memory: `--jobs 100000` once started 77 processes
/// and 3.1 GB for 46 PDFs. The second value says so when `--jobs` was cut.
pub fn jobs(requested: Option<NonZeroUsize>, cpus: usize) -> (usize, Option<String>) {
    let cpus = cpus.max(1);
    match requested.map(NonZeroUsize::get) {
        None => (cpus, None),
        Some(n) if n <= cpus => (n, None),
        Some(n) => (
            cpus,
            Some(format!(
                "colophon: --jobs {n} is more than the {cpus} CPU(s) here; using --jobs {cpus}"
            )),
        ),
    }
}

impl RunOptions {
    /// Built from the flags; `--jobs` is bounded by (and defaults to) the
    /// number of CPUs, see [`jobs`].
    pub fn from_cli(cli: &Cli) -> RunOptions {
        let f = &cli.flags;
        let (jobs, _) = jobs(f.jobs, cpus());
        RunOptions {
            jobs,
            json: f.json,
            rehash: f.rehash,
            retry_errors: f.retry_errors,
            quiet: f.quiet,
            approved: f.approved.clone(),
            verbose: f.verbose,
            shard: None,
            run_group: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("colophon").chain(args.iter().copied()))
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_run() {
        let cli = parse(&[]).unwrap();
        assert_eq!(cli.command, None);
        assert_eq!(cli.command_or_run(), Command::Run);
        assert_eq!(parse(&["run"]).unwrap().command_or_run(), Command::Run);
    }

    #[test]
    fn subcommands_parse() {
        assert_eq!(
            parse(&["show", "a.pdf", "b/c.pdf"]).unwrap().command,
            Some(Command::Show {
                files: vec!["a.pdf".into(), "b/c.pdf".into()]
            })
        );
        assert!(parse(&["show"]).is_err(), "show needs at least one file");
        assert_eq!(
            parse(&["vlm-check"]).unwrap().command,
            Some(Command::VlmCheck)
        );
        assert_eq!(parse(&["config"]).unwrap().command, Some(Command::Config));
        assert_eq!(
            parse(&["cache", "stats"]).unwrap().command,
            Some(Command::Cache {
                action: CacheAction::Stats
            })
        );
        assert_eq!(
            parse(&["cache", "clear"]).unwrap().command,
            Some(Command::Cache {
                action: CacheAction::Clear { online: false }
            })
        );
        assert_eq!(
            parse(&["cache", "clear", "--online"]).unwrap().command,
            Some(Command::Cache {
                action: CacheAction::Clear { online: true }
            })
        );
        assert_eq!(
            parse(&["lookup", "978-0-201-89683-1", "10.1000/x"])
                .unwrap()
                .command,
            Some(Command::Lookup {
                ids: vec!["978-0-201-89683-1".into(), "10.1000/x".into()]
            })
        );
        assert!(parse(&["lookup"]).is_err());
        assert!(parse(&["cache"]).is_err());
        assert_eq!(
            parse(&["undo"]).unwrap().command,
            Some(Command::Undo { run_id: None })
        );
        assert_eq!(
            parse(&["undo", "20240101-120000"]).unwrap().command,
            Some(Command::Undo {
                run_id: Some("20240101-120000".into())
            })
        );
        assert_eq!(parse(&["worker"]).unwrap().command, Some(Command::Worker));
        assert_eq!(
            parse(&["ocr-server"]).unwrap().command,
            Some(Command::OcrServer)
        );
    }

    #[test]
    fn export_review_and_approved_parse() {
        assert_eq!(
            parse(&[
                "export", "--format", "csl-json", "--run", "R1", "-o", "lib.json"
            ])
            .unwrap()
            .command,
            Some(Command::Export {
                run_id: Some("R1".into()),
                format: crate::export::Format::CslJson,
                output: Some("lib.json".into()),
                include_unsure: false,
            })
        );
        assert!(parse(&["export"]).is_err(), "export needs --format");
        assert!(parse(&["export", "--format", "endnote"]).is_err());
        assert_eq!(
            parse(&["review", "--no-open"]).unwrap().command,
            Some(Command::Review {
                run_id: None,
                no_open: true
            })
        );
        assert_eq!(
            parse(&["merge", "4", "--allow-partial"]).unwrap().command,
            Some(Command::Merge {
                group: Some(4),
                run_group: None,
                allow_partial: true
            })
        );
        assert_eq!(
            parse(&["merge", "--group", "5123"]).unwrap().command,
            Some(Command::Merge {
                group: None,
                run_group: Some("5123".into()),
                allow_partial: false
            })
        );
        let sharded = parse(&["--shard", "1/4", "--shards", "4"]).unwrap();
        assert_eq!(sharded.flags.shard.as_deref(), Some("1/4"));
        assert_eq!(sharded.overrides().shards, Some(4));
        let cli = parse(&["--write", "--approved", "ok.json"]).unwrap();
        assert_eq!(
            RunOptions::from_cli(&cli).approved,
            Some(PathBuf::from("ok.json"))
        );
    }

    #[test]
    fn worker_is_hidden_from_help() {
        let help = Cli::command().render_help().to_string();
        assert!(help.contains("vlm-check"), "{help}");
        assert!(!help.contains("worker"), "{help}");
        assert!(!help.contains("ocr-server"), "{help}");
    }

    #[test]
    fn common_flags_work_before_and_after_the_subcommand() {
        let before = parse(&["--json", "--front-pages", "3", "show", "a.pdf"]).unwrap();
        let after = parse(&["show", "a.pdf", "--json", "--front-pages", "3"]).unwrap();
        assert_eq!(before.flags, after.flags);
        assert!(before.flags.json);
        assert_eq!(before.flags.front_pages, Some(3));
        let config = parse(&["config", "--write", "--back-mode", "always"]).unwrap();
        assert!(config.flags.write);
        assert_eq!(config.flags.back_mode.as_deref(), Some("always"));
    }

    #[test]
    fn overrides_carry_setting_flags_only() {
        let cli = parse(&[
            "--write",
            "--vision",
            "--front-pages",
            "4",
            "--back-mode",
            "fallback",
            "--back-pages",
            "0",
            "--json",
            "--rehash",
            "--online",
        ])
        .unwrap();
        assert_eq!(
            cli.overrides(),
            Overrides {
                write: true,
                vision: true,
                front_pages: Some(4),
                back_mode: Some("fallback".into()),
                back_pages: Some(0),
                online: true,
                shards: None,
            }
        );
        assert_eq!(parse(&[]).unwrap().overrides(), Overrides::default());
    }

    #[test]
    fn bad_flag_values_are_usage_errors() {
        for args in [
            &["--back-mode", "sometimes"][..],
            &["--front-pages", "-1"],
            &["--front-pages", "many"],
            &["--jobs", "0"],
            &["-q", "-v"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?} should be refused"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn jobs_are_bounded_by_the_cpus() {
        let n = |k: usize| NonZeroUsize::new(k);
        assert_eq!(jobs(None, 8), (8, None));
        assert_eq!(jobs(n(3), 8), (3, None));
        assert_eq!(jobs(n(8), 8), (8, None));
        assert_eq!(
            jobs(n(100_000), 8),
            (
                8,
                Some(
                    "colophon: --jobs 100000 is more than the 8 CPU(s) here; using --jobs 8".into()
                )
            )
        );
        assert_eq!(jobs(None, 0).0, 1, "an unknown CPU count means one job");
    }

    #[test]
    fn run_options_from_flags() {
        let cli = parse(&["-j", "1", "--json", "--rehash", "--retry-errors", "-vv"]).unwrap();
        assert_eq!(
            RunOptions::from_cli(&cli),
            RunOptions {
                jobs: 1,
                json: true,
                rehash: true,
                retry_errors: true,
                quiet: false,
                approved: None,
                verbose: 2,
                shard: None,
                run_group: None,
            }
        );
        let quiet = RunOptions::from_cli(&parse(&["-q"]).unwrap());
        assert!(quiet.quiet);
        assert_eq!(quiet.jobs, cpus());
        let many = RunOptions::from_cli(&parse(&["--jobs", "100000"]).unwrap());
        assert_eq!(many.jobs, cpus());
    }

    #[test]
    fn a_folder_where_none_is_taken_gets_the_link_hint() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        for args in [&["run", d][..], &[d], &["show", "a.pdf", "--no-such"]] {
            let err = parse(args).unwrap_err();
            let hint = usage_hint(&err);
            match args.contains(&d) {
                true => {
                    let hint = hint.unwrap_or_else(|| panic!("{args:?}: {err}"));
                    assert!(hint.contains(&format!("ln -s {d} data")), "{hint}");
                }
                false => assert_eq!(hint, None, "{args:?}"),
            }
        }
        // A word that is no folder is a typo: clap's suggestion is enough.
        assert_eq!(usage_hint(&parse(&["runn"]).unwrap_err()), None);
    }

    #[test]
    fn review_refuses_write_and_online() {
        for flag in ["--write", "--online"] {
            let err = parse(&["review", flag]).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            assert!(err.to_string().contains("colophon run"), "{err}");
        }
        let help = Cli::command()
            .find_subcommand_mut("review")
            .unwrap()
            .render_help()
            .to_string();
        assert!(!help.contains("--online"), "{help}");
        assert!(parse(&["run", "--write", "--online"]).is_ok());
        assert!(
            parse(&["--write", "review"]).is_ok(),
            "before it: the run's flag"
        );
    }
}
