//! The long run of the quick reader's fuzz harness
//! (`colophon::inspect::quick::fuzz`), for `scripts/fuzz.sh`:
//!
//! ```text
//! fuzz_quick ITERATIONS [CAMPAIGN] [OUT_DIR]   run cases 0..ITERATIONS
//! fuzz_quick --dump CAMPAIGN CASE OUT.pdf      write one case's input
//! ```
//!
//! Each case is read under a memory bound (`RLIMIT_AS`, [`MEMORY_LIMIT`]:
//! a blow-up aborts the process) and a time bound ([`CASE_LIMIT`]: a
//! watchdog aborts it). Before each case its number is written to
//! `OUT_DIR/current`, so that the script can name (and dump) the case
//! that killed the process; a panic is caught, its input written to
//! `OUT_DIR/panic-CAMPAIGN-CASE.pdf`, and the run goes on. The exit code
//! is 1 when a panic was found.

use colophon::inspect::quick::fuzz;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Address space of this process: the quick reader keeps at most a few
/// decoded streams of 64 MiB at once.
const MEMORY_LIMIT: u64 = 2 << 30;

/// Longest one case may take (unoptimised build, loaded machine).
const CASE_LIMIT: Duration = Duration::from_secs(60);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds = fuzz::seed_corpus();
    if args.first().map(String::as_str) == Some("--dump") {
        let [_, campaign, number, out] = &args[..] else {
            usage();
        };
        let case = fuzz::case(&seeds, parse(campaign), parse(number));
        std::fs::write(out, &case.bytes).expect("writing the case");
        println!("{} of {}: {}", case.kind, case.seed_name, out);
        return;
    }
    let iterations = args.first().map(|a| parse(a)).unwrap_or_else(|| usage());
    let campaign = args.get(1).map(|a| parse(a)).unwrap_or(1);
    let out = PathBuf::from(args.get(2).map(String::as_str).unwrap_or("target/fuzz"));
    std::fs::create_dir_all(&out).expect("creating the output folder");
    limit_memory();
    // Built before the watchdog starts: it takes a while unoptimised.
    fuzz::bombs();

    static STARTED_MS: AtomicU64 = AtomicU64::new(0);
    static CASE: AtomicU64 = AtomicU64::new(0);
    let origin = Instant::now();
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(500));
            let started = STARTED_MS.load(Ordering::Relaxed);
            let now = origin.elapsed().as_millis() as u64;
            if started > 0 && now.saturating_sub(started) > CASE_LIMIT.as_millis() as u64 {
                eprintln!(
                    "HANG: case {} ran over {} s",
                    CASE.load(Ordering::Relaxed),
                    CASE_LIMIT.as_secs()
                );
                std::process::abort();
            }
        }
    });

    let (mut panics, mut too_large, mut read_pages) = (0, 0, 0u64);
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    let t = Instant::now();
    for number in 0..iterations {
        let case = fuzz::case(&seeds, campaign, number);
        std::fs::write(out.join("current"), format!("{campaign} {number}\n"))
            .expect("writing the current case");
        CASE.store(number, Ordering::Relaxed);
        STARTED_MS.store(origin.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
        let result = fuzz::check(&case.bytes);
        STARTED_MS.store(0, Ordering::Relaxed);
        *kinds.entry(case.kind).or_default() += 1;
        match result {
            Ok(o) => {
                too_large += o.too_large as usize;
                read_pages += u64::from(o.pages_read);
            }
            Err(fuzz::Panic(why)) => {
                panics += 1;
                let file = out.join(format!("panic-{campaign}-{number}.pdf"));
                std::fs::write(&file, &case.bytes).expect("writing the finding");
                eprintln!(
                    "PANIC: case {number} ({} of {}): {why} -> {}",
                    case.kind,
                    case.seed_name,
                    file.display()
                );
            }
        }
        if (number + 1) % 1000 == 0 {
            eprintln!(
                "{} cases, {panics} panics, {:.0} s",
                number + 1,
                t.elapsed().as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_file(out.join("current"));
    println!(
        "campaign {campaign}: {iterations} cases over {} seeds in {:.1} s; {read_pages} pages read, \
         {too_large} refused as too large, {panics} panics",
        seeds.len(),
        t.elapsed().as_secs_f64()
    );
    println!("by mutation: {kinds:?}");
    if panics > 0 {
        std::process::exit(1);
    }
}

/// Bounds this process's address space, so a blow-up aborts it.
fn limit_memory() {
    let limit = libc::rlimit {
        rlim_cur: MEMORY_LIMIT as libc::rlim_t,
        rlim_max: MEMORY_LIMIT as libc::rlim_t,
    };
    // SAFETY: a plain system call on this process.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
        eprintln!(
            "warning: could not limit memory: {}",
            std::io::Error::last_os_error()
        );
    }
}

fn parse(arg: &str) -> u64 {
    arg.parse().unwrap_or_else(|_| usage())
}

fn usage() -> ! {
    eprintln!(
        "usage: fuzz_quick ITERATIONS [CAMPAIGN] [OUT_DIR]\n       \
         fuzz_quick --dump CAMPAIGN CASE OUT.pdf"
    );
    std::process::exit(2)
}
