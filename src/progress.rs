//! Progress on stderr. Stages talk to a [`Reporter`]; indicatif lives only
//! here. Bars are shown when stderr is a terminal (and not `-q`); otherwise
//! a few plain log lines say what happens. `-q` keeps errors only.
//!
//! Every line is printed with its control characters escaped (see
//! [`crate::util::escape::controls`]): messages quote file names, and a
//! name must not send escape codes to the terminal.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
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
    /// Pages waiting for the vision backend (reported only when vision
    /// is on, so that the bar shows only then).
    fn vision_queue(&self, waiting: u64);
    /// A line for the user (warnings, one-off notices, the summary line);
    /// not shown with `-q`.
    fn message(&self, msg: &str);
    /// An error that stops the run or loses work (a failed write, an
    /// installation error); shown even with `-q`.
    fn error(&self, msg: &str) {
        self.message(msg);
    }
    /// The run is over; bars are cleared.
    fn finish(&self);
    /// Runs `print` with the bars out of the way (cleared, then drawn again
    /// below what it printed): how a table row reaches a terminal above
    /// the bars while the run goes on.
    fn suspend(&self, print: &mut dyn FnMut()) {
        print();
    }
}

/// The width in columns of the terminal on stdout, when stdout is one (the
/// kernel's window size, `TIOCGWINSZ`: no environment variable is read);
/// `None` when stdout is a file or a pipe, or the size is unknown.
pub fn stdout_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // SAFETY: `winsize` is plain integers, for which all-zero bytes are a
    // valid value.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ fills a `winsize` and reads nothing else; the
    // struct lives for the call.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col as usize)
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

/// `-q`: results (on stdout, not here) and errors only, as its help says.
pub struct Quiet;

impl Reporter for Quiet {
    fn files_total(&self, _: u64) {}
    fn file_done(&self) {}
    fn pages_done(&self, _: u64) {}
    fn vision_queue(&self, _: u64) {}
    fn message(&self, _: &str) {}
    fn error(&self, msg: &str) {
        eprintln!("{}", for_terminal(msg));
    }
    fn finish(&self) {}
}

/// `msg` with the control characters of each line escaped; line breaks
/// between lines stay (the `-v` counts are several lines).
fn for_terminal(msg: &str) -> String {
    msg.split('\n')
        .map(crate::util::escape::controls)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A rate for people: three significant digits at most ("0.53/s",
/// "12.4/s", "187/s"), not indicatif's four decimals ("0.5273/s").
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "0/s".to_string()
    } else if per_sec >= 100.0 {
        format!("{per_sec:.0}/s")
    } else if per_sec >= 10.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{per_sec:.2}/s")
    }
}

/// A bar style with the `{rate}` key ([`rate`]).
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("static template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate(state.per_sec()));
            },
        )
}

/// indicatif bars: files, pages, and the vision queue once there is one
/// (only runs with vision on report it).
pub struct Bars {
    multi: MultiProgress,
    files: ProgressBar,
    pages: ProgressBar,
    vision: std::sync::OnceLock<ProgressBar>,
}

impl Bars {
    fn new() -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        // Hidden until the number of files is known (`files_total` adds it):
        // a bar of length 0 is drawn full, "0/0", before discover is done.
        let files = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        files.set_style(
            style("{prefix:>8} [{bar:30}] {pos}/{len} {rate} eta {eta}").progress_chars("=> "),
        );
        files.set_prefix("files");
        let pages = multi.add(ProgressBar::new_spinner());
        pages.set_style(style("{prefix:>8} {pos} read ({rate})"));
        pages.set_prefix("pages");
        Bars {
            multi,
            files,
            pages,
            vision: std::sync::OnceLock::new(),
        }
    }
}

impl Reporter for Bars {
    fn files_total(&self, n: u64) {
        self.files.set_length(n);
        self.multi.insert(0, self.files.clone());
    }
    fn file_done(&self) {
        self.files.inc(1);
    }
    fn pages_done(&self, n: u64) {
        self.pages.inc(n);
    }
    fn vision_queue(&self, waiting: u64) {
        let bar = self.vision.get_or_init(|| {
            let bar = self.multi.add(ProgressBar::new_spinner());
            bar.set_style(style("{prefix:>8} {msg}"));
            bar.set_prefix("vision");
            bar
        });
        bar.set_message(format!("{waiting} pages queued"));
    }
    fn message(&self, msg: &str) {
        let _ = self.multi.println(for_terminal(msg));
    }
    fn suspend(&self, print: &mut dyn FnMut()) {
        self.multi.suspend(print);
    }
    fn finish(&self) {
        self.files.finish_and_clear();
        self.pages.finish_and_clear();
        if let Some(bar) = self.vision.get() {
            bar.finish_and_clear();
        }
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
        eprintln!("{}", for_terminal(msg));
    }
    fn finish(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_have_three_significant_digits_at_most() {
        assert_eq!(rate(0.5273), "0.53/s");
        assert_eq!(rate(4.567), "4.57/s");
        assert_eq!(rate(12.44), "12.4/s");
        assert_eq!(rate(187.3), "187/s");
        assert_eq!(rate(0.0), "0/s");
        assert_eq!(rate(f64::NAN), "0/s");
    }

    #[test]
    fn terminal_lines_keep_line_breaks_and_escape_the_rest() {
        assert_eq!(
            for_terminal("a\x1b[31m.pdf: done\n  files 3"),
            "a\\x1b[31m.pdf: done\n  files 3"
        );
    }
}
