//! How a command ends and how it is told to stop: the [`ExitStatus`]
//! `main` maps to the process exit code, and the flags Ctrl-C and SIGTERM
//! set ([`QUIT`], [`TERMINATED`]), read by the run loop, the document
//! threads, the vision pool and `merge`. Low in the house so that every
//! command and the pipeline can use them without importing the app.

use std::sync::atomic::AtomicBool;

/// How a command ended; `main` maps it to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Every PDF processed (0).
    Success,
    /// Some PDFs had errors; the rest were processed (1).
    SomeFailed,
    /// Bad usage or settings; nothing processed (2).
    BadUsage,
    /// A part of the installation is missing or broken (pdfium, Tesseract,
    /// the worker executable): every document would fail the same way, so
    /// the run stopped (2, as documented for errors that are not a PDF's).
    Installation,
    /// Ctrl-C (130).
    Interrupted,
    /// SIGTERM, a scheduler stopping the task (143, as a shell reports a
    /// process killed by it): the finished documents are kept (records,
    /// cache closed cleanly), the ones in progress were abandoned, and a
    /// rerun resumes. The job files in docs/cluster have the engine retry
    /// it.
    Terminated,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::SomeFailed => 1,
            ExitStatus::BadUsage | ExitStatus::Installation => 2,
            ExitStatus::Interrupted => 130,
            ExitStatus::Terminated => 143,
        }
    }
}

/// Set by Ctrl-C: no new document is started, finished ones are reported,
/// the cache is flushed.
pub static QUIT: AtomicBool = AtomicBool::new(false);

/// Set by SIGTERM (with [`QUIT`]): the documents in progress are abandoned
/// rather than finished, since a scheduler's SIGKILL follows within its
/// grace period (Slurm's KillWait, Kubernetes'
/// terminationGracePeriodSeconds: 30 s by default). Set by
/// `commands::signals::install_sigterm`.
pub static TERMINATED: AtomicBool = AtomicBool::new(false);
