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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The setting naming the worker executable (integration tests, benches
/// and scripts point it at a built `colophon` binary).
pub const WORKER_EXE_KEY: &str = "WORKER_EXECUTABLE";

/// This process's resolved `WORKER_EXECUTABLE` ([`configure`]).
static WORKER_EXE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Sets what the settings say about child processes for this process,
/// once, before the first worker starts: `WORKER_EXECUTABLE` here and
/// `PDFIUM_LIBRARY` for the workers (`super::pdfium::configure`).
pub fn configure(settings: &crate::settings::Settings) {
    let _ = WORKER_EXE.set(settings.worker_executable.clone());
    super::pdfium::configure(&settings.pdfium_library);
}

/// The colophon executable that child processes (pdfium workers, OCR
/// servers) run: `WORKER_EXECUTABLE` as configured, else as the
/// environment gives the setting (the unit tests), else this executable.
pub(crate) fn worker_exe() -> PathBuf {
    WORKER_EXE
        .get()
        .cloned()
        .or_else(|| crate::settings::process_env(WORKER_EXE_KEY))
        .filter(|p| !p.trim().is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_exe().ok())
        .unwrap_or_else(|| PathBuf::from("colophon"))
}

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
    /// Address space each worker may map, in bytes
    /// (`WORKER_MEMORY_LIMIT_MB`; `RLIMIT_AS`, set in the child before it
    /// runs the worker); `None`: no limit. A document that needs more
    /// fails alone (its worker's allocation fails and it dies) instead of
    /// taking the machine's memory with every other worker's.
    pub memory_limit: Option<u64>,
}

impl PoolConfig {
    /// `jobs` workers running `<exe> worker`, where exe is
    /// `WORKER_EXECUTABLE` or else this executable; the workers are told
    /// `PDFIUM_LIBRARY`. A timeout of 0 (or
    /// less, or not finite) means no limit.
    pub fn new(jobs: usize, pdf_timeout_secs: f64) -> PoolConfig {
        let program = worker_exe();
        PoolConfig {
            jobs: jobs.max(1),
            doc_timeout: (pdf_timeout_secs.is_finite() && pdf_timeout_secs > 0.0)
                .then(|| Duration::from_secs_f64(pdf_timeout_secs)),
            start_timeout: Duration::from_secs(30),
            program,
            args: vec!["worker".into()],
            env: super::pdfium::child_env(),
            page_num_offset: 1,
            memory_limit: None,
        }
    }

    /// From the run's settings (`PDF_TIMEOUT`, `PAGE_NUM_OFFSET`,
    /// `WORKER_MEMORY_LIMIT_MB`) and `--jobs`.
    pub fn from_settings(settings: &crate::settings::Settings, jobs: usize) -> PoolConfig {
        PoolConfig {
            page_num_offset: settings.page_num_offset,
            memory_limit: Some(settings.worker_memory_limit_mb << 20),
            ..PoolConfig::new(jobs, settings.pdf_timeout)
        }
    }
}

/// A bounded set of worker processes shared by the coordinator's threads.
pub struct WorkerPool {
    config: PoolConfig,
    state: Mutex<PoolState>,
    freed: Condvar,
    spawner: Spawner,
    spawned: AtomicUsize,
    lost: AtomicUsize,
    /// The id of the next document opened (ids are never reused, so a
    /// worker never answers for another document than the one asked).
    next_doc: AtomicU64,
    /// Documents opened again because their session came back to a
    /// worker that did not have them open.
    reopened: AtomicUsize,
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
    /// The documents this worker was last asked to open, newest last: at
    /// most [`worker::KEEP_OPEN`], which the worker may have closed since
    /// (a hint for [`WorkerPool::checkout_for`], not a promise).
    open_docs: Vec<u64>,
}

impl Worker {
    fn opened(&mut self, doc: u64) {
        self.open_docs.retain(|&d| d != doc);
        self.open_docs.push(doc);
        if self.open_docs.len() > worker::KEEP_OPEN {
            self.open_docs.remove(0);
        }
    }
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
            spawner: Spawner::new("pdf-worker-spawner"),
            spawned: AtomicUsize::new(0),
            lost: AtomicUsize::new(0),
            next_doc: AtomicU64::new(1),
            reopened: AtomicUsize::new(0),
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

    /// Documents opened again by a [`DocSession`] that came back to
    /// another worker than the one that had its document open.
    pub fn reopened(&self) -> usize {
        self.reopened.load(Ordering::Relaxed)
    }

    /// A session for one document that holds a worker only while the
    /// worker works for it (see [`DocSession`]).
    pub fn session(&self) -> DocSession<'_> {
        DocSession {
            pool: self,
            doc: None,
            held: None,
            budget: self.config.doc_timeout,
        }
    }

    /// A worker for one document; blocks while `jobs` workers are busy.
    /// Fails only when a new worker cannot be started.
    pub fn checkout(&self) -> Result<WorkerHandle<'_>, PdfError> {
        self.checkout_for(None)
    }

    /// [`checkout`](Self::checkout), preferring an idle worker that has
    /// document `doc` open; any idle worker when none has.
    fn checkout_for(&self, doc: Option<u64>) -> Result<WorkerHandle<'_>, PdfError> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(doc) = doc
                && let Some(at) = st.idle.iter().position(|w| w.open_docs.contains(&doc))
            {
                let w = st.idle.remove(at);
                st.idle.push(w);
            }
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
            doc: None,
            keep_open: false,
        }
    }

    /// Document `doc` is done with: idle workers that have it open close
    /// it now (a busy one closes it when it has opened newer ones).
    fn forget(&self, doc: u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for w in st.idle.iter_mut() {
            if w.open_docs.contains(&doc) {
                w.open_docs.retain(|&d| d != doc);
                // A broken pipe shows at the worker's next checkout.
                let _ = worker::write_frame(&mut w.stdin, &Request::Close { doc });
            }
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
        if let Some(bytes) = cfg.memory_limit {
            limit_address_space(&mut cmd, bytes);
        }
        let cant = |e: String| PdfError::WorkerStart(format!("{}: {e}", cfg.program.display()));
        let mut child = self.spawner.spawn(cmd).map_err(|e| cant(e.to_string()))?;
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
            open_docs: Vec::new(),
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
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for mut w in st.idle.drain(..) {
            kill(&mut w);
        }
        // The spawner, dropped after this, ends its thread; any worker
        // still checked out (a handle cannot outlive the pool, so none)
        // would get SIGKILL from the kernel.
    }
}

fn kill(w: &mut Worker) {
    let _ = w.child.kill();
    let _ = w.child.wait();
}

/// Reads the handshake, then frames, from a worker's stdout.
fn read_loop(stdout: std::process::ChildStdout, tx: Sender<Msg>) {
    let mut rd = BufReader::new(stdout);
    if let Err(why) = await_handshake(&mut rd, HANDSHAKE) {
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
pub(crate) fn await_handshake<R: Read>(rd: &mut R, want: &[u8]) -> Result<(), String> {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while seen.len() < 64 * 1024 {
        match rd.read(&mut byte) {
            Ok(0) => return Err("it exited before the handshake".into()),
            Ok(_) => {
                seen.push(byte[0]);
                if seen.ends_with(want) {
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
    /// The id of the document this handle opened last, if that worked.
    doc: Option<u64>,
    /// Leave the document open in the worker when the handle is dropped
    /// (a [`DocSession`] comes back for more pages).
    keep_open: bool,
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
        self.close();
        let doc = self.pool.next_doc.fetch_add(1, Ordering::Relaxed);
        self.open_as(doc, path, expect)
    }

    /// Opens a document under the id `doc`, within the time left.
    fn open_as(
        &mut self,
        doc: u64,
        path: &Path,
        expect: Option<[u8; 32]>,
    ) -> Result<DocInfo, PdfError> {
        self.doc = None;
        let req = Request::Open {
            doc,
            path: worker::path_to_bytes(path),
            expect,
        };
        match self.call(&req, "opening the document")? {
            Response::Opened(info) => {
                self.doc = Some(doc);
                if let Some(w) = self.worker.as_mut() {
                    w.opened(doc);
                }
                Ok(info)
            }
            other => Err(self.unexpected(other)),
        }
    }

    /// The open document's id, or `NotOpen`.
    fn doc(&self) -> Result<u64, PdfError> {
        self.doc.ok_or(PdfError::NotOpen)
    }

    /// Reads one page (0-based index).
    pub fn read_page(&mut self, index: u32) -> Result<PageRead, PdfError> {
        self.read_pages(&[index]).map(|mut p| p.remove(0))
    }

    /// Reads pages in the given order; stops at the first failure. The
    /// requests go out together and the answers are read after: the
    /// worker goes from page to page without waiting on this thread.
    pub fn read_pages(&mut self, indices: &[u32]) -> Result<Vec<PageRead>, PdfError> {
        let doc = self.doc()?;
        let sent = indices
            .iter()
            .map(|&index| self.send(&Request::ReadPage { doc, index }))
            .take_while(Result::is_ok)
            .count();
        let mut pages = Vec::with_capacity(indices.len());
        let mut failed = None;
        for &index in &indices[..sent] {
            let what = format!("reading page {}", index + self.pool.config.page_num_offset);
            match self.answer(&what) {
                // Later answers are still read: the stream stays in step.
                Ok(_) | Err(_) if failed.is_some() => {}
                Ok(Response::Page(p)) => pages.push(p),
                Ok(other) => failed = Some(self.unexpected(other)),
                Err(e) => failed = Some(e),
            }
            if self.worker.is_none() {
                break;
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        if sent < indices.len() {
            let index = indices[sent];
            let what = format!("reading page {}", index + self.pool.config.page_num_offset);
            let status = self.discard();
            return Err(PdfError::WorkerCrashed(format!("{what}{status}")));
        }
        Ok(pages)
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
            doc: self.doc()?,
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
        let Some(doc) = self.doc.take() else {
            return;
        };
        if let Some(w) = self.worker.as_mut() {
            w.open_docs.retain(|&d| d != doc);
            if worker::write_frame(&mut w.stdin, &Request::Close { doc }).is_err() {
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
        if self.worker.is_none() {
            return Err(PdfError::WorkerCrashed(format!(
                "{what} (worker already lost)"
            )));
        }
        if self.send(req).is_err() {
            let status = self.discard();
            return Err(PdfError::WorkerCrashed(format!("{what}{status}")));
        }
        self.answer(what)
    }

    /// Writes one request (its answer is read by [`answer`](Self::answer)).
    fn send(&mut self, req: &Request) -> Result<(), PdfError> {
        let w = self.worker.as_mut().ok_or(PdfError::NotOpen)?;
        worker::write_frame(&mut w.stdin, req).map_err(|e| PdfError::Io(e.to_string()))
    }

    /// Waits for the answer to the oldest request not yet answered, within
    /// the document's budget.
    fn answer(&mut self, what: &str) -> Result<Response, PdfError> {
        let Some(w) = self.worker.as_mut() else {
            return Err(PdfError::WorkerCrashed(format!(
                "{what} (worker already lost)"
            )));
        };
        let started = Instant::now();
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
        if !self.keep_open {
            self.close();
        }
        if let Some(w) = self.worker.take() {
            self.pool.give_back(w);
        }
    }
}

/// One document read through the pool, holding a worker only while the
/// worker works for it: from [`open`](Self::open) to the end of the first
/// [`read_pages`](Self::read_pages), then for each later call. Between
/// calls (while this document's pages are extracted and decided on, or
/// OCRed) its worker reads other documents, keeping this one open; a later
/// call asks for that worker first, and opens the document again in
/// another one when that one is busy or has closed it. The time budget
/// (`PDF_TIMEOUT`) counts the time spent waiting on workers for this
/// document over all its calls.
pub struct DocSession<'p> {
    pool: &'p WorkerPool,
    /// The open document: its id, path and expected content hash.
    doc: Option<(u64, PathBuf, Option<[u8; 32]>)>,
    /// The worker that opened it, until the first pages are read.
    held: Option<WorkerHandle<'p>>,
    budget: Option<Duration>,
}

impl DocSession<'_> {
    /// Opens a document, failing with [`PdfError::Changed`] unless the
    /// bytes read have the blake3 `expect` (when given).
    pub fn open(&mut self, path: &Path, expect: Option<[u8; 32]>) -> Result<DocInfo, PdfError> {
        self.held = None;
        if let Some((old, _, _)) = self.doc.take() {
            self.pool.forget(old);
        }
        self.budget = self.pool.config.doc_timeout;
        let mut h = self.pool.checkout()?;
        h.keep_open = true;
        h.budget = self.budget;
        let doc = self.pool.next_doc.fetch_add(1, Ordering::Relaxed);
        let info = h.open_as(doc, path, expect);
        self.budget = h.budget;
        let info = info?;
        self.doc = Some((doc, path.to_path_buf(), expect));
        self.held = Some(h);
        Ok(info)
    }

    /// Reads pages in the given order; stops at the first failure.
    pub fn read_pages(&mut self, indices: &[u32]) -> Result<Vec<PageRead>, PdfError> {
        self.with_worker(|h| h.read_pages(indices))
    }

    /// Renders one page to gray at `dpi`, at most `max_pixels` pixels.
    pub fn render_page(
        &mut self,
        index: u32,
        dpi: u32,
        max_pixels: u64,
    ) -> Result<GrayImage, PdfError> {
        self.with_worker(|h| h.render_page(index, dpi, max_pixels))
    }

    /// Runs `f` on a worker that has the document open, then gives the
    /// worker back.
    fn with_worker<T>(
        &mut self,
        f: impl Fn(&mut WorkerHandle<'_>) -> Result<T, PdfError>,
    ) -> Result<T, PdfError> {
        let (doc, path, expect) = self.doc.clone().ok_or(PdfError::NotOpen)?;
        let mut h = match self.held.take() {
            Some(h) => h,
            None => self.pool.checkout_for(Some(doc))?,
        };
        h.keep_open = true;
        h.budget = self.budget;
        let result = (|| {
            let mut first = true;
            loop {
                let has = h
                    .worker
                    .as_ref()
                    .is_some_and(|w| w.open_docs.contains(&doc));
                if has {
                    h.doc = Some(doc);
                } else {
                    self.pool.reopened.fetch_add(1, Ordering::Relaxed);
                    h.open_as(doc, &path, expect)?;
                }
                match f(&mut h) {
                    // The worker closed it to make room: open it again, once.
                    Err(PdfError::NotOpen) if first && has => {
                        if let Some(w) = h.worker.as_mut() {
                            w.open_docs.retain(|&d| d != doc);
                        }
                        first = false;
                    }
                    other => return other,
                }
            }
        })();
        self.budget = h.budget;
        result
    }
}

impl Drop for DocSession<'_> {
    fn drop(&mut self) {
        self.held = None;
        if let Some((doc, _, _)) = self.doc.take() {
            self.pool.forget(doc);
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

/// Forks child processes from a thread of its own, started on first use
/// and ended when the `Spawner` is dropped: a child spawned with
/// [`die_with_spawning_thread`] lives as long as its spawner, not as long
/// as the thread that asked for it.
pub(crate) struct Spawner {
    name: &'static str,
    orders: Mutex<Option<Sender<SpawnOrder>>>,
}

impl Spawner {
    pub(crate) const fn new(name: &'static str) -> Spawner {
        Spawner {
            name,
            orders: Mutex::new(None),
        }
    }

    /// Spawns `cmd` on the spawner's thread.
    pub(crate) fn spawn(&self, cmd: Command) -> std::io::Result<Child> {
        let gone = || std::io::Error::other("spawner thread is gone");
        let sender = {
            let mut orders = self.orders.lock().unwrap_or_else(|e| e.into_inner());
            if orders.is_none() {
                let (tx, rx) = crossbeam_channel::unbounded::<SpawnOrder>();
                std::thread::Builder::new()
                    .name(self.name.into())
                    .spawn(move || {
                        // Lives until the spawner drops the sender; its
                        // exit triggers the children's PR_SET_PDEATHSIG.
                        for (mut cmd, reply) in rx {
                            let _ = reply.send(cmd.spawn());
                        }
                    })?;
                *orders = Some(tx);
            }
            orders.clone().expect("spawner started")
        };
        let (reply_tx, reply_rx) = crossbeam_channel::bounded(1);
        sender.send((cmd, reply_tx)).map_err(|_| gone())?;
        reply_rx.recv().map_err(|_| gone())?
    }
}

/// Limits the child's address space to `bytes` (`RLIMIT_AS`): past it,
/// its allocations fail and it dies (pdfium and Rust both abort on a
/// failed allocation), which the pool reports as a crash of that document.
/// An address-space limit works without cgroups (none are delegated to a
/// user session here, nor in most containers); it counts mapped rather
/// than resident memory, so it is set with room for what pdfium maps and
/// never touches (see `WORKER_MEMORY_LIMIT_MB`).
fn limit_address_space(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit is a plain system call, async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
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

    /// A session holds its worker only while the worker reads for it: with
    /// one worker, a second document is read between two batches of the
    /// first, whose document stays open in the worker (not opened again)
    /// until enough newer ones push it out.
    #[test]
    fn sessions_share_a_worker_between_batches_and_reopen_when_needed() {
        let pool = WorkerPool::new(config(1, 60.0));
        let (a, b) = (fixture("book-p03-asis.pdf"), fixture("book-p02-asis.pdf"));
        let local = Document::open(&a).unwrap();
        let mut first = pool.session();
        assert_eq!(first.open(&a, None).unwrap().page_count, 15);
        assert_eq!(
            first.read_pages(&[0, 1]).unwrap()[1],
            local.read_page(1).unwrap()
        );
        let mut second = pool.session();
        assert_eq!(second.open(&b, None).unwrap().page_count, 16);
        assert_eq!(second.read_pages(&[0]).unwrap().len(), 1);
        assert_eq!(
            first.read_pages(&[2]).unwrap()[0],
            local.read_page(2).unwrap()
        );
        assert_eq!(
            first.render_page(1, 72, 1_000_000).unwrap(),
            local.render_page(1, 72, 1_000_000).unwrap()
        );
        assert_eq!((pool.spawned(), pool.reopened()), (1, 0));
        // Newer documents push the first one out of the worker.
        let mut others: Vec<_> = (0..worker::KEEP_OPEN).map(|_| pool.session()).collect();
        for s in &mut others {
            s.open(&b, None).unwrap();
            s.read_pages(&[0]).unwrap();
        }
        assert_eq!(
            first.read_pages(&[14]).unwrap()[0],
            local.read_page(14).unwrap()
        );
        assert_eq!(pool.reopened(), 1);
        // A page that does not exist fails that call only.
        assert_eq!(
            first.read_pages(&[3, 99, 4]).unwrap_err(),
            PdfError::NoSuchPage {
                index: 99,
                page_count: 15
            }
        );
        assert_eq!(
            first.read_pages(&[4]).unwrap()[0],
            local.read_page(4).unwrap()
        );
        // A file changed since it was hashed fails when opened again.
        let real = *blake3::hash(&std::fs::read(&a).unwrap()).as_bytes();
        let mut third = pool.session();
        assert_eq!(
            third.open(&a, Some([0; 32])).unwrap_err(),
            PdfError::Changed
        );
        assert_eq!(third.read_pages(&[0]).unwrap_err(), PdfError::NotOpen);
        third.open(&a, Some(real)).unwrap();
        assert_eq!(pool.lost(), 0);
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

    /// Issue 38: each worker runs under the address-space limit of its
    /// pool (`WORKER_MEMORY_LIMIT_MB`), and a normal document is read
    /// and rendered within the default limit.
    #[test]
    fn workers_run_under_their_memory_limit() {
        let settings = crate::settings::Settings::default();
        let mut c = config(1, 60.0);
        c.memory_limit = PoolConfig::from_settings(&settings, 1).memory_limit;
        assert_eq!(c.memory_limit, Some(2048 << 20));
        let pool = WorkerPool::new(c);
        let mut h = pool.checkout().unwrap();
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", h.pid().unwrap())).unwrap();
        let line = limits
            .lines()
            .find(|l| l.starts_with("Max address space"))
            .unwrap();
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "Max address space <soft> <hard> bytes"
        assert_eq!(fields[3..5], ["2147483648", "2147483648"], "{line}");
        assert_eq!(
            h.open(&fixture("book-p01-scanned.pdf")).unwrap().page_count,
            9
        );
        h.read_pages(&[0, 1, 2]).unwrap();
        let img = h.render_page(0, 300, 40_000_000).unwrap();
        assert!(img.width() > 1000, "{}", img.width());
        assert_eq!(pool.lost(), 0);
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
