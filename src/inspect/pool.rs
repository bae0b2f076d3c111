//! The pool of PDF worker processes (SPEC 5 stage 3).
//!
//! - Workers are spawned lazily, up to `jobs`: a run that needs no PDF work
//!   starts none.
//! - The coordinator runs N documents at once from N plain threads, each
//!   taking a [`WorkerHandle`] with [`WorkerPool::checkout`] (blocking while
//!   all `jobs` workers are busy) and driving one document through it:
//!   open, pages, more pages later (back matter in fallback mode), renders.
//!   Dropping the handle gives the worker back.
//! - Each document has a time budget (`PDF_TIMEOUT`): the time spent
//!   waiting on the worker for that document, from `open` on. A worker that
//!   exceeds it, dies (crash, abort, kill) or sends a bad frame is killed;
//!   that document fails with a reason ("worker crashed while reading page
//!   3", "timed out after 120 s") and the next checkout spawns a fresh
//!   worker in its place.
//! - Workers die with the pool: dropping it kills the idle ones, and every
//!   worker is spawned by one long-lived spawner thread with
//!   `PR_SET_PDEATHSIG`, so when that thread ends (pool dropped, or the
//!   whole coordinator died) the kernel kills them too. (The signal follows
//!   the *thread* that forked, which is why forks do not happen on the
//!   coordinator's short-lived document threads.)
//!
//! Each worker has a reader thread that turns its stdout into messages on a
//! channel, so waits have a deadline (`recv_timeout`) without non-blocking
//! pipes.

use super::worker::{self, HANDSHAKE, Request, Response};
use super::{PageRead, PdfError};
use crate::model::DocInfo;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use image::GrayImage;
use std::ffi::OsString;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Environment variable naming the worker executable (integration tests
/// and benches point it at the built `colophon` binary).
pub const WORKER_EXE_ENV: &str = "COLOPHON_WORKER_EXE";

/// How a pool starts workers and how long they may take.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Number of worker processes at most (`--jobs`).
    pub jobs: usize,
    /// Time budget per document (`PDF_TIMEOUT`); `None` (a setting of 0)
    /// waits forever.
    pub doc_timeout: Option<Duration>,
    /// Time a new worker has to answer the handshake.
    pub start_timeout: Duration,
    /// Executable and arguments that run [`worker::serve_stdio`].
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Extra environment for workers.
    pub env: Vec<(OsString, OsString)>,
    /// Base of page numbers in messages (`PAGE_NUM_OFFSET`).
    pub page_num_offset: u32,
}

impl PoolConfig {
    /// `jobs` workers running `<exe> worker`, where exe is
    /// `COLOPHON_WORKER_EXE` or else this executable. A timeout of 0 (or
    /// less, or not finite) means no limit.
    pub fn new(jobs: usize, pdf_timeout_secs: f64) -> PoolConfig {
        let program = std::env::var_os(WORKER_EXE_ENV)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::current_exe().ok())
            .unwrap_or_else(|| PathBuf::from("colophon"));
        PoolConfig {
            jobs: jobs.max(1),
            doc_timeout: (pdf_timeout_secs.is_finite() && pdf_timeout_secs > 0.0)
                .then(|| Duration::from_secs_f64(pdf_timeout_secs)),
            start_timeout: Duration::from_secs(30),
            program,
            args: vec!["worker".into()],
            env: Vec::new(),
            page_num_offset: 1,
        }
    }

    /// From the run's settings (`PDF_TIMEOUT`, `PAGE_NUM_OFFSET`) and `--jobs`.
    pub fn from_settings(settings: &crate::settings::Settings, jobs: usize) -> PoolConfig {
        PoolConfig {
            page_num_offset: settings.page_num_offset,
            ..PoolConfig::new(jobs, settings.pdf_timeout)
        }
    }
}

/// A bounded set of worker processes shared by the coordinator's threads.
pub struct WorkerPool {
    config: PoolConfig,
    state: Mutex<PoolState>,
    freed: Condvar,
    spawner: Mutex<Option<Sender<SpawnOrder>>>,
    spawned: AtomicUsize,
    lost: AtomicUsize,
}

struct PoolState {
    idle: Vec<Worker>,
    /// Workers alive or being spawned, idle or checked out.
    live: usize,
}

type SpawnOrder = (Command, Sender<std::io::Result<Child>>);

struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    rx: Receiver<Msg>,
}

enum Msg {
    Ready,
    Resp(Response),
    /// The stream ended or made no sense; the text says how.
    Broken(String),
}

impl WorkerPool {
    /// A pool that has started nothing yet.
    pub fn new(config: PoolConfig) -> WorkerPool {
        WorkerPool {
            config,
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
            spawner: Mutex::new(None),
            spawned: AtomicUsize::new(0),
            lost: AtomicUsize::new(0),
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Workers started so far (0 for a run that read no PDF).
    pub fn spawned(&self) -> usize {
        self.spawned.load(Ordering::Relaxed)
    }

    /// Workers killed after a crash, hang or bad frame.
    pub fn lost(&self) -> usize {
        self.lost.load(Ordering::Relaxed)
    }

    /// A worker for one document; blocks while `jobs` workers are busy.
    /// Fails only when a new worker cannot be started.
    pub fn checkout(&self) -> Result<WorkerHandle<'_>, PdfError> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while let Some(mut w) = st.idle.pop() {
                // An idle worker may have died meanwhile (OOM killer...).
                if matches!(w.child.try_wait(), Ok(None)) {
                    return Ok(self.handle(w));
                }
                let _ = w.child.wait();
                st.live -= 1;
            }
            if st.live < self.config.jobs {
                st.live += 1;
                drop(st);
                return match self.spawn() {
                    Ok(w) => Ok(self.handle(w)),
                    Err(e) => {
                        self.forget_one();
                        Err(e)
                    }
                };
            }
            st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn handle(&self, worker: Worker) -> WorkerHandle<'_> {
        WorkerHandle {
            pool: self,
            worker: Some(worker),
            budget: self.config.doc_timeout,
        }
    }

    fn give_back(&self, worker: Worker) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.idle.push(worker);
        drop(st);
        self.freed.notify_one();
    }

    fn forget_one(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.live -= 1;
        drop(st);
        self.freed.notify_one();
    }

    /// Starts a worker (through the spawner thread) and waits for its
    /// handshake.
    fn spawn(&self) -> Result<Worker, PdfError> {
        let cfg = &self.config;
        let mut cmd = Command::new(&cfg.program);
        cmd.args(&cfg.args)
            .envs(cfg.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        die_with_spawning_thread(&mut cmd);
        let cant = |e: String| PdfError::WorkerStart(format!("{}: {e}", cfg.program.display()));
        let mut child = self.fork(cmd).map_err(|e| cant(e.to_string()))?;
        self.spawned.fetch_add(1, Ordering::Relaxed);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("pdf-worker-reader".into())
            .spawn(move || read_loop(stdout, tx))
            .map_err(|e| cant(e.to_string()))?;
        let mut w = Worker {
            child,
            stdin: BufWriter::new(stdin),
            rx,
        };
        match w.rx.recv_timeout(cfg.start_timeout) {
            Ok(Msg::Ready) => Ok(w),
            Ok(Msg::Broken(why)) => {
                kill(&mut w);
                Err(cant(format!("did not answer as a colophon worker ({why})")))
            }
            Ok(Msg::Resp(_)) => unreachable!("responses only follow the handshake"),
            Err(_) => {
                kill(&mut w);
                Err(cant(format!(
                    "no handshake within {} s",
                    cfg.start_timeout.as_secs()
                )))
            }
        }
    }

    /// Forks on the spawner thread, started on first use.
    fn fork(&self, cmd: Command) -> std::io::Result<Child> {
        let mut sp = self.spawner.lock().unwrap_or_else(|e| e.into_inner());
        if sp.is_none() {
            let (tx, rx) = crossbeam_channel::unbounded::<SpawnOrder>();
            std::thread::Builder::new()
                .name("pdf-worker-spawner".into())
                .spawn(move || {
                    // Lives until the pool drops the sender; its exit
                    // triggers the workers' PR_SET_PDEATHSIG.
                    for (mut cmd, reply) in rx {
                        let _ = reply.send(cmd.spawn());
                    }
                })?;
            *sp = Some(tx);
        }
        let (reply_tx, reply_rx) = crossbeam_channel::bounded(1);
        let sender = sp.as_ref().expect("spawner started");
        sender
            .send((cmd, reply_tx))
            .map_err(|_| std::io::Error::other("spawner thread is gone"))?;
        drop(sp);
        reply_rx
            .recv()
            .map_err(|_| std::io::Error::other("spawner thread is gone"))?
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for mut w in st.idle.drain(..) {
            kill(&mut w);
        }
        // Ends the spawner thread; any worker still checked out (a handle
        // cannot outlive the pool, so none) would get SIGKILL from the kernel.
        self.spawner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

fn kill(w: &mut Worker) {
    let _ = w.child.kill();
    let _ = w.child.wait();
}

/// Reads the handshake, then frames, from a worker's stdout.
fn read_loop(stdout: std::process::ChildStdout, tx: Sender<Msg>) {
    let mut rd = BufReader::new(stdout);
    if let Err(why) = await_handshake(&mut rd) {
        let _ = tx.send(Msg::Broken(why));
        return;
    }
    if tx.send(Msg::Ready).is_err() {
        return;
    }
    loop {
        let msg = match worker::read_frame::<_, Response>(&mut rd) {
            Ok(Some(r)) => Msg::Resp(r),
            Ok(None) => Msg::Broken("it exited".into()),
            Err(e) => Msg::Broken(format!("bad frame: {e}")),
        };
        let end = matches!(msg, Msg::Broken(_));
        if tx.send(msg).is_err() || end {
            return;
        }
    }
}

/// Skips anything a wrapper printed before the handshake (a test harness
/// prints a line), up to 64 KiB.
fn await_handshake<R: Read>(rd: &mut R) -> Result<(), String> {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while seen.len() < 64 * 1024 {
        match rd.read(&mut byte) {
            Ok(0) => return Err("it exited before the handshake".into()),
            Ok(_) => {
                seen.push(byte[0]);
                if seen.ends_with(HANDSHAKE) {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("no handshake in its first 64 KiB of output".into())
}

/// A worker checked out by one of the coordinator's threads: open a
/// document, read and render its pages (now or later), then drop the handle
/// to give the worker back (or open the next document).
pub struct WorkerHandle<'p> {
    pool: &'p WorkerPool,
    /// `None` once the worker was killed; the next call fails fast.
    worker: Option<Worker>,
    /// Time left for the current document (`None`: no limit).
    budget: Option<Duration>,
}

impl WorkerHandle<'_> {
    /// Process id of the worker (tests kill it to simulate a crash).
    pub fn pid(&self) -> Option<u32> {
        self.worker.as_ref().map(|w| w.child.id())
    }

    /// Opens a document (closing the previous one) and starts its time budget.
    pub fn open(&mut self, path: &Path) -> Result<DocInfo, PdfError> {
        self.open_expecting(path, None)
    }

    /// [`open`](Self::open), failing with [`PdfError::Changed`] unless the
    /// bytes the worker read have the blake3 `expect` (what the
    /// coordinator fingerprinted): every page read afterwards comes from
    /// those bytes, so results cached under that hash are that content's.
    pub fn open_expecting(
        &mut self,
        path: &Path,
        expect: Option<[u8; 32]>,
    ) -> Result<DocInfo, PdfError> {
        self.budget = self.pool.config.doc_timeout;
        let req = Request::Open {
            path: worker::path_to_bytes(path),
            expect,
        };
        match self.call(&req, "opening the document")? {
            Response::Opened(info) => Ok(info),
            other => Err(self.unexpected(other)),
        }
    }

    /// Reads one page (0-based index).
    pub fn read_page(&mut self, index: u32) -> Result<PageRead, PdfError> {
        let what = format!("reading page {}", index + self.pool.config.page_num_offset);
        match self.call(&Request::ReadPage { index }, &what)? {
            Response::Page(p) => Ok(p),
            other => Err(self.unexpected(other)),
        }
    }

    /// Reads pages in the given order; stops at the first failure.
    pub fn read_pages(&mut self, indices: &[u32]) -> Result<Vec<PageRead>, PdfError> {
        indices.iter().map(|&i| self.read_page(i)).collect()
    }

    /// Renders one page to gray at `dpi`, at most `max_pixels` pixels.
    pub fn render_page(
        &mut self,
        index: u32,
        dpi: u32,
        max_pixels: u64,
    ) -> Result<GrayImage, PdfError> {
        let what = format!(
            "rendering page {}",
            index + self.pool.config.page_num_offset
        );
        let req = Request::Render {
            index,
            dpi,
            max_pixels,
        };
        match self.call(&req, &what)? {
            Response::Rendered {
                width,
                height,
                pixels,
            } => GrayImage::from_raw(width, height, pixels)
                .ok_or_else(|| PdfError::Pdfium("rendered image has the wrong size".into())),
            other => Err(self.unexpected(other)),
        }
    }

    /// Closes the open document (frees the worker's memory early).
    pub fn close(&mut self) {
        if let Some(w) = self.worker.as_mut() {
            if worker::write_frame(&mut w.stdin, &Request::Close).is_err() {
                self.discard();
            }
        }
    }

    #[doc(hidden)]
    /// Test hook: makes the worker abort.
    pub fn debug_abort(&mut self) -> Result<(), PdfError> {
        self.call(&Request::DebugAbort, "aborting on request")
            .map(|_| ())
    }

    #[doc(hidden)]
    /// Test hook: makes the worker sleep (counts against the budget).
    pub fn debug_sleep(&mut self, millis: u64) -> Result<(), PdfError> {
        self.call(&Request::DebugSleep { millis }, "sleeping on request")
            .map(|_| ())
    }

    /// Sends a request and waits for its answer within the document's budget.
    fn call(&mut self, req: &Request, what: &str) -> Result<Response, PdfError> {
        let Some(w) = self.worker.as_mut() else {
            return Err(PdfError::WorkerCrashed(format!(
                "{what} (worker already lost)"
            )));
        };
        let started = Instant::now();
        if worker::write_frame(&mut w.stdin, req).is_err() {
            let status = self.discard();
            return Err(PdfError::WorkerCrashed(format!("{what}{status}")));
        }
        let got = match self.budget {
            Some(left) => w.rx.recv_timeout(left),
            None => w.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        self.budget = self.budget.map(|b| b.saturating_sub(started.elapsed()));
        match got {
            Ok(Msg::Resp(Response::Failed(e))) => Err(e),
            Ok(Msg::Resp(Response::Fatal(e))) => {
                self.discard();
                Err(e)
            }
            Ok(Msg::Resp(r)) => Ok(r),
            Ok(Msg::Ready) => unreachable!("handshake comes once"),
            Ok(Msg::Broken(why)) => {
                let status = self.discard();
                let why = if why == "it exited" {
                    String::new()
                } else {
                    format!(" ({why})")
                };
                Err(PdfError::WorkerCrashed(format!("{what}{status}{why}")))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.discard();
                let secs = self
                    .pool
                    .config
                    .doc_timeout
                    .unwrap_or_default()
                    .as_secs_f64();
                Err(PdfError::Timeout(secs.round() as u64))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.discard();
                Err(PdfError::WorkerCrashed(format!("{what}{status}")))
            }
        }
    }

    /// An answer of the wrong kind: the two sides disagree on the protocol
    /// (a stale worker executable?), so this worker cannot be trusted.
    fn unexpected(&mut self, r: Response) -> PdfError {
        self.discard();
        PdfError::WorkerCrashed(format!(
            "answering: unexpected {} response",
            response_kind(&r)
        ))
    }

    /// Kills and reaps the worker; the pool will spawn a replacement on
    /// demand. Returns how the process ended, for the message.
    fn discard(&mut self) -> String {
        let Some(mut w) = self.worker.take() else {
            return String::new();
        };
        // If it already died on its own, its status says how.
        let status = match w.child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                // Give a dying process a moment to finish exiting before
                // it is killed, so a crash is reported as such.
                std::thread::sleep(Duration::from_millis(20));
                w.child.try_wait().ok().flatten()
            }
        };
        kill(&mut w);
        self.pool.lost.fetch_add(1, Ordering::Relaxed);
        self.pool.forget_one();
        match status {
            Some(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.signal(), s.code()) {
                    (Some(sig), _) => format!(" (signal {sig})"),
                    (None, Some(code)) => format!(" (exit code {code})"),
                    _ => String::new(),
                }
            }
            None => String::new(),
        }
    }
}

impl Drop for WorkerHandle<'_> {
    fn drop(&mut self) {
        self.close();
        if let Some(w) = self.worker.take() {
            self.pool.give_back(w);
        }
    }
}

fn response_kind(r: &Response) -> &'static str {
    match r {
        Response::Opened(_) => "Opened",
        Response::Page(_) => "Page",
        Response::Rendered { .. } => "Rendered",
        Response::Slept => "Slept",
        Response::Failed(_) => "Failed",
        Response::Fatal(_) => "Fatal",
    }
}

/// Makes the child get SIGKILL when the thread that spawns it ends, so a
/// worker or a tesseract never outlives the run: a killed colophon
/// (SIGTERM, SIGKILL, a second Ctrl-C) takes them with it. The spawning
/// thread waits for (or owns) the child, so in a normal run it ends only
/// after the child.
pub(crate) fn die_with_spawning_thread(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            // The parent may have died before prctl took effect.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::Document;
    use crate::inspect::pdfium::tests::fixture;

    /// Workers are this test binary running `worker_process_entry`.
    fn config(jobs: usize, timeout_secs: f64) -> PoolConfig {
        let mut c = PoolConfig::new(jobs, timeout_secs);
        c.program = std::env::current_exe().unwrap();
        c.args = [
            "inspect::worker::tests::worker_process_entry",
            "--exact",
            "--ignored",
            "--test-threads=1",
            "-q",
        ]
        .map(OsString::from)
        .to_vec();
        c.env = vec![("COLOPHON_TEST_WORKER".into(), "1".into())];
        c
    }

    /// Running (not gone, not a zombie waiting to be reaped).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().to_string())
            })
            .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
    }

    fn wait_until_gone(pid: u32) -> bool {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Not a test: run in a child process by
    /// `workers_die_when_the_coordinator_dies`. Starts a worker from a
    /// short-lived thread, prints its pid, then dies abruptly.
    #[test]
    #[ignore = "child process of workers_die_when_the_coordinator_dies"]
    fn coordinator_that_dies() {
        if std::env::var_os("COLOPHON_TEST_DYING_COORDINATOR").is_none() {
            return;
        }
        // Leaked: the process ends without dropping anything.
        let pool: &'static WorkerPool = Box::leak(Box::new(WorkerPool::new(config(1, 60.0))));
        let pid = std::thread::scope(|s| {
            s.spawn(|| {
                let mut h = pool.checkout().unwrap();
                h.open(&fixture("book-p03-asis.pdf")).unwrap();
                h.pid().unwrap()
            })
            .join()
            .unwrap()
        });
        // The checkout thread is gone; the worker must still serve.
        let mut h = pool.checkout().unwrap();
        assert_eq!(h.pid(), Some(pid));
        h.open(&fixture("book-p03-asis.pdf")).unwrap();
        h.read_page(0).unwrap();
        // Keep the worker busy (not reading its stdin, so a closed pipe
        // alone would not end it) while this process dies.
        std::thread::spawn(move || h.debug_sleep(60_000));
        std::thread::sleep(Duration::from_millis(300));
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // The harness has already written "test ... " on this line.
        writeln!(out, "WORKER-PID {pid}").unwrap();
        out.flush().unwrap();
        // SAFETY: ends this process at once, no destructors, as a crash would.
        unsafe { libc::_exit(3) };
    }

    #[test]
    fn workers_die_when_the_coordinator_dies() {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "inspect::pool::tests::coordinator_that_dies",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("COLOPHON_TEST_DYING_COORDINATOR", "1")
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let pid: u32 = stdout
            .split("WORKER-PID ")
            .nth(1)
            .and_then(|p| p.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no worker pid in {stdout:?}"));
        assert!(
            wait_until_gone(pid),
            "worker {pid} outlived its coordinator"
        );
    }

    #[test]
    fn workers_start_lazily_and_read_like_in_process() {
        let pool = WorkerPool::new(config(2, 60.0));
        assert_eq!(pool.spawned(), 0, "no PDF work, no worker");
        let path = fixture("book-p03-asis.pdf");
        let mut h = pool.checkout().unwrap();
        assert_eq!(pool.spawned(), 1);
        let info = h.open(&path).unwrap();
        let local = Document::open(&path).unwrap();
        assert_eq!(info, local.info());
        let front = h.read_pages(&[0, 1, 2]).unwrap();
        // Back matter decided later, same document still open.
        let back = h.read_page(14).unwrap();
        assert_eq!(front[1], local.read_page(1).unwrap());
        assert_eq!(back, local.read_page(14).unwrap());
        let img = h.render_page(1, 72, 1_000_000).unwrap();
        assert_eq!(img, local.render_page(1, 72, 1_000_000).unwrap());
        assert_eq!(
            h.read_page(99).unwrap_err(),
            PdfError::NoSuchPage {
                index: 99,
                page_count: 15
            }
        );
        // A typed error crosses the pipe and the worker stays usable.
        assert_eq!(
            h.open(&fixture("encrypted_should_fail.pdf")).unwrap_err(),
            PdfError::Encrypted
        );
        assert_eq!(h.read_page(0).unwrap_err(), PdfError::NotOpen);
        assert_eq!(h.open(&path).unwrap().page_count, 15);
        let pid = h.pid().unwrap();
        drop(h);
        // The same worker is handed out again.
        assert_eq!(pool.checkout().unwrap().pid(), Some(pid));
        assert_eq!((pool.spawned(), pool.lost()), (1, 0));
        drop(pool);
        assert!(wait_until_gone(pid), "worker {pid} outlived the pool");
    }

    #[test]
    fn killed_worker_fails_its_document_and_is_replaced() {
        let pool = WorkerPool::new(config(1, 60.0));
        let path = fixture("book-p03-asis.pdf");
        let mut h = pool.checkout().unwrap();
        h.open(&path).unwrap();
        let pid = h.pid().unwrap();
        // SAFETY: killing our own child.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        let err = h.read_page(2).unwrap_err();
        assert_eq!(
            err,
            PdfError::WorkerCrashed("reading page 3 (signal 9)".into())
        );
        assert_eq!(
            err.to_string(),
            "worker crashed while reading page 3 (signal 9)"
        );
        // Later calls on the lost worker fail fast instead of hanging.
        assert!(matches!(h.read_page(3), Err(PdfError::WorkerCrashed(_))));
        drop(h);
        // With jobs = 1 the next document gets a fresh worker.
        let mut h = pool.checkout().unwrap();
        assert_ne!(h.pid(), Some(pid));
        assert_eq!(h.open(&path).unwrap().page_count, 15);
        assert_eq!((pool.spawned(), pool.lost()), (2, 1));
    }

    #[test]
    fn aborting_worker_is_reported_with_its_signal() {
        let pool = WorkerPool::new(config(1, 60.0));
        let mut h = pool.checkout().unwrap();
        let err = h.debug_abort().unwrap_err();
        assert_eq!(
            err,
            PdfError::WorkerCrashed("aborting on request (signal 6)".into())
        );
        drop(h);
        let mut h = pool.checkout().unwrap();
        assert_eq!(
            h.open(&fixture("book-p02-asis.pdf")).unwrap().page_count,
            16
        );
    }

    #[test]
    fn hung_worker_times_out_is_killed_and_replaced() {
        let pool = WorkerPool::new(config(1, 1.0));
        let mut h = pool.checkout().unwrap();
        h.open(&fixture("book-p03-asis.pdf")).unwrap();
        let pid = h.pid().unwrap();
        let t = Instant::now();
        assert_eq!(h.debug_sleep(60_000).unwrap_err(), PdfError::Timeout(1));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert_eq!(
            PdfError::Timeout(120).to_string(),
            "timed out after 120 s (PDF_TIMEOUT)"
        );
        assert!(wait_until_gone(pid));
        drop(h);
        let mut h = pool.checkout().unwrap();
        // The budget is per document: a fresh open starts a fresh budget.
        h.debug_sleep(600).unwrap();
        h.open(&fixture("book-p03-asis.pdf")).unwrap();
        h.debug_sleep(600).unwrap();
        assert_eq!(h.read_page(1).unwrap().text.index, 1);
        assert_eq!(pool.lost(), 1);
    }

    #[test]
    fn zero_timeout_means_no_limit() {
        assert_eq!(PoolConfig::new(1, 0.0).doc_timeout, None);
        assert_eq!(
            PoolConfig::new(1, 2.5).doc_timeout,
            Some(Duration::from_millis(2500))
        );
        let pool = WorkerPool::new(config(1, 0.0));
        let mut h = pool.checkout().unwrap();
        h.debug_sleep(300).unwrap();
        assert_eq!(
            h.open(&fixture("book-p03-asis.pdf")).unwrap().page_count,
            15
        );
    }

    #[test]
    fn documents_run_concurrently_from_plain_threads_within_jobs() {
        let pool = WorkerPool::new(config(2, 60.0));
        let files = [
            "book-p03-asis.pdf",
            "book-p02-asis.pdf",
            "book-p03-scanned.pdf",
            "book-p03-asis.pdf",
        ];
        let counts: Vec<u32> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .iter()
                .map(|f| {
                    let pool = &pool;
                    s.spawn(move || {
                        let mut h = pool.checkout().unwrap();
                        let info = h.open(&fixture(f)).unwrap();
                        let pages = h.read_pages(&[0, 1]).unwrap();
                        assert_eq!(pages.len(), 2);
                        info.page_count
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(counts, [15, 16, 9, 15]);
        assert!(pool.spawned() <= 2, "{}", pool.spawned());
        // The threads that checked workers out are gone; the workers are
        // not (they were forked by the pool's spawner thread).
        let mut h = pool.checkout().unwrap();
        assert_eq!(
            h.open(&fixture("book-p03-asis.pdf")).unwrap().page_count,
            15
        );
        assert!(pool.spawned() <= 2);
    }

    #[test]
    fn an_executable_that_is_not_a_worker_is_a_clear_error() {
        let mut c = config(1, 5.0);
        c.program = PathBuf::from("/bin/echo");
        c.args = vec!["hello".into()];
        c.env.clear();
        let pool = WorkerPool::new(c);
        let err = pool.checkout().err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.starts_with("cannot start a PDF worker: /bin/echo: did not answer"),
            "{msg}"
        );
        // The failed start does not use up a slot.
        assert!(pool.checkout().is_err());
        assert_eq!(pool.spawned(), 2);
    }
}
