//! The OCR server process (`colophon ocr-server`) and the client side
//! that hands it page images.
//!
//! Why: starting the `tesseract` program loads its models every call,
//! 0.13-0.15 CPU-s with English alone and about 0.47 with four languages,
//! and the program reads its image the slow way. A server loads
//! libtesseract (`tesslib`) and each language set once, then reads one
//! image file after another with the program's own code path
//! (`ProcessPages` into an hOCR renderer), so its hOCR is the program's,
//! byte for byte (checked on the 22 calls of the scanned gold PDFs).
//!
//! Why a process, as for pdfium: it is started with `OMP_THREAD_LIMIT=1`
//! (OpenMP reads it only at load time), it can be killed on a time
//! limit, and a Tesseract that aborts (`ASSERT_HOST`) takes down this
//! process only; the batch then fails like a failed `tesseract` call and
//! its pages are read again one by one (see `ocr::read_pages`).
//!
//! Protocol: after start the server writes [`HANDSHAKE`], and only when
//! libtesseract loaded; then it answers each [`Job`] frame with one
//! [`Answer`] frame. It exits on stdin EOF, after [`SERVER_IDLE_EXIT`]
//! without a job, and with the thread that spawned it
//! (`PR_SET_PDEATHSIG`; one spawner thread lives as long as colophon);
//! the client stops a server idle for [`IDLE_LIMIT`] before reusing it. A server that never shakes hands (no libtesseract, or an
//! executable that is not colophon) marks the servers unavailable for the
//! rest of the process, and `engine` runs the `tesseract` program instead.

use super::call::{Psm, TimedOut, kill_after};
use super::tesslib::{Api, TessLib};
use crate::inspect::pool::Spawner;
use crate::inspect::worker::{read_frame, write_frame};
use anyhow::{Context, Result, anyhow};
use serde::{Deserialize, Serialize};
use std::io::{BufReader, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

/// First bytes a server writes once libtesseract is loaded. Bump the digit
/// when a message changes shape.
pub const HANDSHAKE: &[u8] = b"colophon-ocr-server 1\n";

/// Time a new server has to load libtesseract and shake hands.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A server idle this long is not given another job but stopped: in a
/// library of born-digital PDFs with a few scans, servers (66 MiB each
/// with English, about 120 with four languages) do not stay for the rest
/// of the run.
const IDLE_LIMIT: Duration = Duration::from_secs(20);

/// A server that has had no job this long exits by itself (so one that
/// is never asked again does not wait for the run's end). Twice
/// [`IDLE_LIMIT`]: a server the client still takes is never one about to
/// exit.
const SERVER_IDLE_EXIT: Duration = Duration::from_secs(40);

/// One image file to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Path of the image (BMP or multi-page TIFF), as raw bytes.
    pub image: Vec<u8>,
    /// Tesseract's page segmentation mode (`--psm`).
    pub psm: u8,
    /// The program's `--dpi`, for an image that carries none.
    pub dpi: Option<u32>,
    /// Language codes joined with '+'.
    pub languages: String,
}

/// A server's answer to one [`Job`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    Hocr(String),
    Failed(String),
}

/// Entry point of `colophon ocr-server`: loads libtesseract, shakes hands,
/// serves jobs until stdin closes or no job has come for
/// [`SERVER_IDLE_EXIT`]. Fails (no handshake written) when the library
/// cannot be loaded.
pub fn serve_stdio() -> Result<()> {
    let out = crate::inspect::worker::private_stdout()?;
    let lib = TessLib::load()?;
    let mut out = BufWriter::new(out);
    out.write_all(HANDSHAKE)?;
    out.flush()?;
    let stdin = std::io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let mut api: Option<Api> = None;
    while !input.buffer().is_empty() || readable_within(0, SERVER_IDLE_EXIT)? {
        let Some(job) = read_frame::<_, Job>(&mut input)? else {
            break;
        };
        let answer = match read_job(&lib, &mut api, &job) {
            Ok(hocr) => Answer::Hocr(hocr),
            Err(e) => Answer::Failed(format!("{e:#}")),
        };
        write_frame(&mut out, &answer)?;
    }
    Ok(())
}

/// Whether the file descriptor `fd` has something to read (data, or its
/// end) within `wait`.
fn readable_within(fd: libc::c_int, wait: Duration) -> Result<bool> {
    let mut fd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: poll(2) on one pollfd that lives across the call.
        match unsafe { libc::poll(&mut fd, 1, millis) } {
            n if n >= 0 => return Ok(n > 0),
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return Err(std::io::Error::last_os_error().into()),
        }
    }
}

/// Reads one job with the instance for its languages, made (and the
/// previous one dropped) when the languages change.
fn read_job<'l>(lib: &'l TessLib, api: &mut Option<Api<'l>>, job: &Job) -> Result<String> {
    if api.as_ref().is_none_or(|a| a.languages() != job.languages) {
        *api = None;
        *api = Some(Api::new(lib, &job.languages)?);
    }
    let api = api.as_mut().expect("made above");
    let image = Path::new(std::ffi::OsStr::from_bytes(&job.image));
    api.hocr(image, job.psm, job.dpi, &out_base(image))
}

/// Where the renderer of `image`'s job writes (`<base>.hocr`): beside the
/// image, so the caller's temporary folder holds both.
fn out_base(image: &Path) -> PathBuf {
    let mut base = image.as_os_str().to_owned();
    base.push(".out");
    PathBuf::from(base)
}

/// Reads `image` through an OCR server: `None` when servers are not
/// available in this process (the caller runs the program), else the
/// hOCR or the failure. A server over `timeout` is killed.
pub fn read(
    image: &Path,
    psm: Psm,
    dpi: Option<u32>,
    languages: &str,
    timeout: Duration,
) -> Option<Result<String>> {
    let pool = &*POOL;
    if pool.unavailable.load(Ordering::Relaxed) || super::tesslib::turned_off() {
        return None;
    }
    let idle = {
        let mut idle = pool.idle.lock().unwrap_or_else(|e| e.into_inner());
        let (fresh, stale): (Vec<_>, Vec<_>) = idle
            .drain(..)
            .partition(|s: &Server| s.idle_since.elapsed() < IDLE_LIMIT);
        *idle = fresh;
        let next = idle.pop();
        drop(idle);
        stale.into_iter().for_each(Server::stop);
        next
    };
    let mut server = match idle {
        Some(s) => s,
        None => match Server::start(pool) {
            Some(s) => s,
            None => {
                pool.unavailable.store(true, Ordering::Relaxed);
                return None;
            }
        },
    };
    let job = Job {
        image: image.as_os_str().as_bytes().to_vec(),
        psm: psm.number(),
        dpi,
        languages: languages.to_string(),
    };
    let result = server.ask(&job, timeout);
    // Whatever happened, nothing of this job stays in the temporary folder.
    let _ = std::fs::remove_file(super::tesslib::rendered_file(&out_base(image)));
    match result {
        Ok(answer) => {
            server.idle_since = Instant::now();
            pool.idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(server);
            Some(match answer {
                Answer::Hocr(h) => Ok(h),
                Answer::Failed(why) => Err(anyhow!(why)),
            })
        }
        Err(e) => {
            server.stop();
            Some(Err(e))
        }
    }
}

/// Stops the idle servers and reaps them: called when a run's documents
/// are done, so that their CPU time counts in the run's own
/// (`getrusage`, `/usr/bin/time`), and no server waits for the run's end.
pub fn stop_idle() {
    let idle = std::mem::take(&mut *POOL.idle.lock().unwrap_or_else(|e| e.into_inner()));
    idle.into_iter().for_each(Server::stop);
}

/// The servers of this process: idle ones wait here between jobs (at most
/// one per OCR slot is ever busy, so there are at most that many).
struct Pool {
    idle: Mutex<Vec<Server>>,
    unavailable: AtomicBool,
    /// Spawns servers from one thread that lives as long as the process,
    /// so `PR_SET_PDEATHSIG` ends them with colophon, not with the OCR
    /// thread that first needed one.
    spawner: Spawner,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| Pool {
    idle: Mutex::new(Vec::new()),
    unavailable: AtomicBool::new(false),
    spawner: Spawner::new("ocr-server-spawner"),
});

/// One running server.
struct Server {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// When its last job ended (or it started).
    idle_since: Instant,
}

impl Server {
    /// Starts a server and waits for its handshake; `None` when it does not
    /// come (the program is not a colophon, or libtesseract is missing).
    fn start(pool: &Pool) -> Option<Server> {
        let (program, args, env) = command();
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(env)
            .env("OMP_THREAD_LIMIT", "1")
            .env(super::tesslib::LIBRARY_KEY, super::tesslib::choice())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Tesseract prints progress and warnings; failures come back
            // as answers.
            .stderr(Stdio::null());
        crate::inspect::pool::die_with_spawning_thread(&mut cmd);
        let mut child = pool.spawner.spawn(cmd).ok()?;
        let stdin = BufWriter::new(child.stdin.take()?);
        let mut stdout = BufReader::new(child.stdout.take()?);
        let (shook, _) = kill_after(child.id(), START_TIMEOUT, || {
            crate::inspect::pool::await_handshake(&mut stdout, HANDSHAKE)
        });
        let server = Server {
            child,
            stdin,
            stdout,
            idle_since: Instant::now(),
        };
        if shook.is_err() {
            server.stop();
            return None;
        }
        Some(server)
    }

    /// Sends `job` and waits for its answer, killing the server after
    /// `timeout`.
    fn ask(&mut self, job: &Job, timeout: Duration) -> Result<Answer> {
        let Server {
            child,
            stdin,
            stdout,
            ..
        } = self;
        let (answer, timed_out) = kill_after(child.id(), timeout, || {
            write_frame(stdin, job)?;
            read_frame::<_, Answer>(stdout)
        });
        if timed_out {
            return Err(anyhow::Error::new(TimedOut {
                secs: timeout.as_secs_f64(),
            }));
        }
        match answer {
            Ok(Some(a)) => Ok(a),
            Ok(None) => Err(anyhow!("the OCR server stopped")),
            Err(e) => Err(anyhow::Error::new(e).context("talking to the OCR server")),
        }
        .with_context(|| format!("reading a page image with Tesseract ({})", job.languages))
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The executable, arguments and environment that run [`serve_stdio`]:
/// `colophon ocr-server`, where colophon is `WORKER_EXECUTABLE` or this
/// executable (as for the pdfium workers). A unit-test binary runs its
/// `server_process_entry` test instead.
fn command() -> (
    PathBuf,
    Vec<&'static str>,
    Vec<(&'static str, &'static str)>,
) {
    let exe = crate::inspect::pool::worker_exe();
    if cfg!(test) {
        let args = vec![
            "ocr::server::tests::server_process_entry",
            "--exact",
            "--ignored",
            "--test-threads=1",
            "-q",
        ];
        return (exe, args, vec![("COLOPHON_TEST_OCR_SERVER", "1")]);
    }
    (exe, vec!["ocr-server"], Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_is_readable_once_written_to_or_closed() {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) into a two-int array; both ends closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let [read, write] = fds;
        let short = Duration::from_millis(20);
        assert!(!readable_within(read, short).unwrap(), "nothing written");
        // SAFETY: write(2) of one byte from a local buffer.
        assert_eq!(unsafe { libc::write(write, b"j".as_ptr().cast(), 1) }, 1);
        assert!(readable_within(read, short).unwrap(), "a byte waits");
        let mut byte = [0u8; 1];
        // SAFETY: read(2) of one byte into a local buffer.
        assert_eq!(unsafe { libc::read(read, byte.as_mut_ptr().cast(), 1) }, 1);
        assert!(!readable_within(read, short).unwrap(), "read again");
        // SAFETY: closing the write end we own.
        unsafe { libc::close(write) };
        assert!(readable_within(read, short).unwrap(), "the end is readable");
        // SAFETY: closing the read end we own.
        unsafe { libc::close(read) };
    }

    /// Not a test: the OCR server that unit tests spawn from this test
    /// binary (see [`command`]).
    #[test]
    #[ignore = "OCR server process entry for the OCR tests"]
    fn server_process_entry() {
        if std::env::var_os("COLOPHON_TEST_OCR_SERVER").is_some() {
            serve_stdio().unwrap();
        }
    }
}
