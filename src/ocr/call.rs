//! What a Tesseract call is, whichever way it runs (the `tesseract`
//! program in `engine`, or libtesseract in the OCR server of `server`):
//! the page segmentation mode, the time limit's error and the watchdog
//! that enforces it. Below both, so that neither imports the other's
//! internals.

use std::sync::mpsc;
use std::time::Duration;

/// The program run, found on `PATH`.
pub(super) const PROGRAM: &str = "tesseract";

/// Tesseract was stopped on its time limit: an error the caller tells
/// from a failure (a failed batch of pages is read again page by page, a
/// batch over time is not: the time is spent).
#[derive(Debug, thiserror::Error)]
#[error(
    "{PROGRAM} took longer than {} s and was stopped (the time left of this document's PDF_TIMEOUT)",
    short_secs(*secs)
)]
pub struct TimedOut {
    pub secs: f64,
}

/// Seconds for a message: whole above 10, else to a tenth (a document's
/// OCR may be stopped with 0.3 s of its budget left, which `{:.0}` showed
/// as "0 s").
pub(super) fn short_secs(secs: f64) -> String {
    if secs >= 10.0 {
        format!("{secs:.0}")
    } else {
        format!("{:.1}", (secs * 10.0).ceil() / 10.0)
    }
}

/// Tesseract's page segmentation mode for a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Psm {
    /// `--psm 3`: automatic page segmentation, the first reading.
    Auto,
    /// `--psm 6`: the page as one uniform block of text; the second look
    /// at a page whose lines the automatic mode dropped (see `mod.rs`).
    Block,
}

/// Runs `f` (which waits on the child `pid`'s pipes) and SIGKILLs the
/// child if `f` has not returned after `timeout`; returns `f`'s result and
/// whether the kill was sent. The caller reaps the child only after this
/// returns, so its pid cannot have been reused when the kill is sent.
pub(super) fn kill_after<T>(pid: u32, timeout: Duration, f: impl FnOnce() -> T) -> (T, bool) {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let watchdog = s.spawn(move || match done_rx.recv_timeout(timeout) {
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // SAFETY: plain kill(2) on the caller's unreaped child.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                true
            }
            _ => false,
        });
        let out = f();
        let _ = done_tx.send(());
        (out, watchdog.join().unwrap_or(false))
    })
}

impl Psm {
    pub(super) fn number(self) -> u8 {
        match self {
            Psm::Auto => 3,
            Psm::Block => 6,
        }
    }
}
