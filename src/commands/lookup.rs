//! `colophon lookup ID...`: what the online catalogues say about ISBNs,
//! DOIs and LCCNs, through the same cache and rate limits as a run.

use super::Setup;
use crate::exit::{ExitStatus, QUIT};
use anyhow::Result;

/// One answer per identifier (JSON lines with `--json`); any failed lookup
/// fails the command, an identifier that is none is bad usage.
pub fn lookup(setup: &Setup, ids: &[String]) -> Result<ExitStatus> {
    let Some(cache) = super::open_cache(&setup.paths.cache_dir, None) else {
        return Ok(ExitStatus::BadUsage);
    };
    let reporter = crate::progress::reporter(setup.opts.quiet);
    let online = crate::online::Online::new(&setup.settings, &cache, reporter.as_ref(), &QUIT);
    online.announce();
    let answers = match crate::online::lookup_ids(&online, ids) {
        Err(e) => {
            eprintln!("colophon: {e}");
            return Ok(ExitStatus::BadUsage);
        }
        Ok(answers) => answers,
    };
    for a in &answers {
        if setup.opts.json {
            println!("{}", serde_json::to_string(a)?);
        } else {
            print!("{}", a.text());
        }
    }
    Ok(if answers.iter().any(|a| a.result == "failed") {
        ExitStatus::SomeFailed
    } else {
        ExitStatus::Success
    })
}
