//! Ctrl-C and SIGTERM during a run: each sets the stop flags of
//! [`crate::exit`] ([`QUIT`], [`TERMINATED`]) that the run loop, the
//! document threads and the vision pool read; SIGTERM also kills the
//! children of a run that is being abandoned.

use crate::exit::{ExitStatus, QUIT, TERMINATED};
use crate::progress::Reporter;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The write end of the pipe that wakes [`install_sigterm`]'s thread.
static SIGTERM_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_sigterm(_: libc::c_int) {
    // Only atomics and write(2) here: async-signal-safe. A repeated
    // SIGTERM (Slurm signals every process of the step, a wrapper shell
    // may forward it again) changes nothing.
    if TERMINATED.swap(true, Ordering::SeqCst) {
        return;
    }
    QUIT.store(true, Ordering::SeqCst);
    let fd = SIGTERM_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) of one byte from a static buffer.
        unsafe { libc::write(fd, b"t".as_ptr().cast(), 1) };
    }
}

/// SIGTERM, how Slurm and Kubernetes stop a task (preemption, a time
/// limit, a drained node, a deleted pod): no new document is started; the
/// documents in progress are abandoned: their pdfium workers and
/// tesseracts are killed (and any started while the run winds down), so
/// their documents fail with a transient error that is neither cached nor
/// reported; the finished ones are reported, `records.jsonl` and
/// `summary.md` written, the cache flushed and closed with its clean-close
/// mark, and the run exits 143 ([`ExitStatus::Terminated`]). A restarted
/// task finds every reported document in its cache. SIGKILL stays safe
/// too: the workers and tesseracts die with the run (`PR_SET_PDEATHSIG`)
/// and the cache recovers as after any crash.
pub(super) fn install_sigterm(reporter: Arc<dyn Reporter>) {
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) into a two-int array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let read_end = fds[0];
    let woken = std::thread::Builder::new()
        .name("sigterm".into())
        .spawn(move || {
            let mut byte = [0u8; 1];
            loop {
                // SAFETY: read(2) of one byte into a local buffer.
                let n = unsafe { libc::read(read_end, byte.as_mut_ptr().cast(), 1) };
                if n == 1 {
                    break;
                }
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            reporter.error(
                "colophon: SIGTERM: abandoning the documents in progress; finished ones are \
                 kept, and a rerun resumes (exit 143)",
            );
            // Until the process exits: a document thread may render one
            // more page for OCR, or start a worker, before it sees its
            // document fail.
            loop {
                kill_children();
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
    if woken.is_err() {
        return;
    }
    SIGTERM_PIPE.store(fds[1], Ordering::SeqCst);
    // SAFETY: a zeroed sigaction with a handler that is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigterm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

/// SIGKILLs every child process of every thread of this process (the
/// pdfium workers, the tesseracts): `/proc/self/task/*/children`.
fn kill_children() {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: kill(2) on a child of ours (not yet reaped, so its
            // pid cannot have been reused).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// First Ctrl-C: finish the documents in progress (the vision pool skips
/// the pages still queued), report, flush the cache. Second: stop at once.
pub(super) fn install_ctrl_c(reporter: Arc<dyn Reporter>) {
    let _ = ctrlc::set_handler(move || {
        if QUIT.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitStatus::Interrupted.code());
        }
        // Shown with -q too, as it explains why the run ends early.
        reporter
            .error("colophon: stopping after the documents in progress (Ctrl-C again to stop now)");
    });
}
