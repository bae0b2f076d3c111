//! Progress on stderr. Stages talk to a [`Reporter`]; indicatif lives only
//! here. Bars are shown when stderr is a terminal (and not `-q`); otherwise
//! a few plain log lines say what happens.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the pipeline tells about its progress. Implementations must be
/// cheap: they are called once per file and per page.
pub trait Reporter: Send + Sync {
    /// The number of files this run will report on.
    fn files_total(&self, n: u64);
    /// One file has its record.
    fn file_done(&self);
    /// Pages read from PDFs (text, OCR) in this run.
    fn pages_done(&self, n: u64);
    /// Pages waiting for or in the vision backend.
    fn vision_queue(&self, waiting: u64);
    /// A line for the user (warnings, one-off notices).
    fn message(&self, msg: &str);
    /// The run is over; bars are cleared.
    fn finish(&self);
}

/// Chooses the reporter for this run.
pub fn reporter(quiet: bool) -> Box<dyn Reporter> {
    if quiet {
        Box::new(Quiet)
    } else if std::io::stderr().is_terminal() {
        Box::new(Bars::new())
    } else {
        Box::new(Plain::new())
    }
}

/// `-q`: only messages.
pub struct Quiet;

impl Reporter for Quiet {
    fn files_total(&self, _: u64) {}
    fn file_done(&self) {}
    fn pages_done(&self, _: u64) {}
    fn vision_queue(&self, _: u64) {}
    fn message(&self, msg: &str) {
        eprintln!("{msg}");
    }
    fn finish(&self) {}
}

/// indicatif bars: files, pages, vision queue.
pub struct Bars {
    multi: MultiProgress,
    files: ProgressBar,
    pages: ProgressBar,
    vision: ProgressBar,
}

impl Bars {
    fn new() -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        let files = multi.add(ProgressBar::new(0));
        files.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .expect("static template")
                .progress_chars("=> "),
        );
        files.set_prefix("files");
        let pages = multi.add(ProgressBar::new_spinner());
        pages.set_style(
            ProgressStyle::with_template("{prefix:>8} {pos} read ({per_sec})")
                .expect("static template"),
        );
        pages.set_prefix("pages");
        let vision = multi.add(ProgressBar::new_spinner());
        vision
            .set_style(ProgressStyle::with_template("{prefix:>8} {msg}").expect("static template"));
        vision.set_prefix("vision");
        Bars {
            multi,
            files,
            pages,
            vision,
        }
    }
}

impl Reporter for Bars {
    fn files_total(&self, n: u64) {
        self.files.set_length(n);
    }
    fn file_done(&self) {
        self.files.inc(1);
    }
    fn pages_done(&self, n: u64) {
        self.pages.inc(n);
    }
    fn vision_queue(&self, waiting: u64) {
        self.vision.set_message(format!("{waiting} pages queued"));
    }
    fn message(&self, msg: &str) {
        let _ = self.multi.println(msg);
    }
    fn finish(&self) {
        self.files.finish_and_clear();
        self.pages.finish_and_clear();
        self.vision.finish_and_clear();
    }
}

/// Not a terminal: a line every few seconds and the messages.
pub struct Plain {
    state: Mutex<PlainState>,
}

struct PlainState {
    total: u64,
    done: u64,
    pages: u64,
    last: Instant,
}

impl Plain {
    fn new() -> Plain {
        Plain {
            state: Mutex::new(PlainState {
                total: 0,
                done: 0,
                pages: 0,
                last: Instant::now(),
            }),
        }
    }
}

impl Reporter for Plain {
    fn files_total(&self, n: u64) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).total = n;
    }
    fn file_done(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.done += 1;
        if s.last.elapsed() >= Duration::from_secs(5) {
            s.last = Instant::now();
            eprintln!(
                "colophon: {}/{} files, {} pages read",
                s.done, s.total, s.pages
            );
        }
    }
    fn pages_done(&self, n: u64) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).pages += n;
    }
    fn vision_queue(&self, _: u64) {}
    fn message(&self, msg: &str) {
        eprintln!("{msg}");
    }
    fn finish(&self) {}
}
