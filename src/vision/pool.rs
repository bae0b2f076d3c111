//! The vision caller pool (SPEC 5 stage 5): exactly `VLM_CONCURRENCY` plain
//! threads fed by a bounded crossbeam channel (`bounded(2 * n)`, fd's
//! pattern). Each job carries its own reply channel, so an answer goes
//! straight back to the document that asked, with no router between. The
//! CPU stages keep parsing, rendering and extracting other documents while the model works,
//! so a run with a slow backend takes about max(CPU work, vision work), not
//! their sum. HTTP never runs on a rayon thread.
//!
//! Per job a worker: looks the [`VisionKey`] up in the [`AnswerStore`]
//! (a hit sends nothing, so a rerun makes no request), otherwise asks the
//! backend with retries, stores a successful answer, and sends back a
//! [`VisionResult`] with the parsed [`Answer`] and the diagnostics.
//!
//! When the backend is unreachable (every attempt for
//! [`UNREACHABLE_AFTER`] pages in a row ended in a connection error or a
//! timeout), or keeps saying the model is not there (HTTP 404: nothing will
//! change until someone runs `ollama pull`), vision is switched off for the rest of the run: the one result
//! that tripped it carries the message to print, retries in progress stop,
//! and queued jobs come back at once as [`SkipReason::VisionOff`] (cached
//! answers are still served). Ctrl-C (the run's quit flag) cancels the
//! pool the same way. Dropping every sender ends the pool.

use super::VisionKey;
use super::answer::Answer;
use super::client::{Diagnostics, VisionClient, VisionError};
use super::hosts::{Hosts, Tripped};
use super::image::EncodedImage;
use crate::model::Candidate;
use crossbeam_channel::{Receiver, SendError, Sender, TrySendError};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Pages in a row whose attempts all failed to connect, timed out, or
/// found the model missing (HTTP 404) before vision is switched off. Three tolerates a backend restart or one huge
/// page, while a backend that is simply not running costs only three pages'
/// retries instead of the whole run's.
pub const UNREACHABLE_AFTER: usize = 3;

/// Where answers are cached, keyed by [`VisionKey`]. The value is the
/// model's raw text (parsing it again is cheap and lets a better parser
/// improve old answers without asking the model again). Only successful
/// answers are stored. Implementations must not fail the run: a broken
/// store behaves as empty.
pub trait AnswerStore: Send + Sync {
    fn get(&self, key: &VisionKey) -> Option<String>;
    fn put(&self, key: &VisionKey, answer: &str);
}

/// An in-memory [`AnswerStore`] (tests; runs without a cache).
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: Mutex<HashMap<VisionKey, String>>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    pub fn len(&self) -> usize {
        self.map.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl AnswerStore for MemoryStore {
    fn get(&self, key: &VisionKey) -> Option<String> {
        self.map.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: &VisionKey, answer: &str) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(*key, answer.to_string());
        }
    }
}

/// No cache: every job asks the backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoStore;

impl AnswerStore for NoStore {
    fn get(&self, _key: &VisionKey) -> Option<String> {
        None
    }
    fn put(&self, _key: &VisionKey, _answer: &str) {}
}

/// One page to ask about. `tag` is the caller's own identification of the
/// page (document hash, page index, ...), handed back in the result, which
/// is sent on `reply`. The sender is the caller's: an unbounded channel, so
/// that a caller never blocks on it (a dropped receiver loses the result).
#[derive(Debug, Clone)]
pub struct VisionJob<T> {
    pub tag: T,
    pub image: EncodedImage,
    pub reply: Sender<VisionResult<T>>,
}

/// Why a page was not asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// Vision was switched off earlier in the run (backend unreachable).
    VisionOff,
    /// The pool was cancelled (Ctrl-C).
    Cancelled,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::VisionOff => "vision switched off: backend unreachable",
            SkipReason::Cancelled => "cancelled",
        }
    }
}

/// What happened to one page.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The backend answered now.
    Answered(Answer),
    /// The answer came from the store; no request was made.
    Cached(Answer),
    /// Every attempt failed; the page goes on without vision (the record
    /// lists it under `vision.failed`). The last attempt's error.
    Failed(VisionError),
    /// Not asked (vision off, cancelled). The page was meant for vision,
    /// so the record lists it as failed too.
    Skipped(SkipReason),
}

impl Outcome {
    /// The answer, fresh or cached.
    pub fn answer(&self) -> Option<&Answer> {
        match self {
            Outcome::Answered(a) | Outcome::Cached(a) => Some(a),
            _ => None,
        }
    }

    /// The page wanted vision and has no answer.
    pub fn is_failed(&self) -> bool {
        self.answer().is_none()
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Answered(_) => "answered",
            Outcome::Cached(_) => "cached",
            Outcome::Failed(_) => "failed",
            Outcome::Skipped(_) => "skipped",
        }
    }
}

/// The pool's answer for one job.
#[derive(Debug, Clone)]
pub struct VisionResult<T> {
    pub tag: T,
    pub key: VisionKey,
    pub outcome: Outcome,
    /// For `page-<N>.vlm.json` (outcome, answer, parsed fields, attempts).
    pub diagnostics: Diagnostics,
    /// Set on exactly one result per pool: the one whose failure switched
    /// vision off. The caller prints it once.
    pub switched_off: Option<String>,
}

impl<T> VisionResult<T> {
    /// Validated candidates (`via = Vision`) for the page with 0-based
    /// index `page_index`; empty when there is no answer.
    pub fn candidates(&self, page_index: u32) -> Vec<Candidate> {
        self.outcome
            .answer()
            .map(|a| a.candidates(page_index))
            .unwrap_or_default()
    }
}

/// Counts for the run summary (a snapshot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolStats {
    /// HTTP chat requests made (attempts, including retries).
    pub requests: u64,
    pub answered: u64,
    pub cached: u64,
    pub failed: u64,
    pub skipped: u64,
}

/// State shared by the workers.
struct Shared {
    /// The backends (`VLM_ENDPOINTS`, or the one `VLM_ENDPOINT`).
    hosts: Hosts,
    store: Arc<dyn AnswerStore>,
    /// Vision switched off for the rest of the run.
    off: AtomicBool,
    cancelled: AtomicBool,
    /// The run's quit flag (Ctrl-C): set, the pool is cancelled.
    quit: Option<&'static AtomicBool>,
    requests: AtomicU64,
    answered: AtomicU64,
    cached: AtomicU64,
    failed: AtomicU64,
    skipped: AtomicU64,
}

impl Shared {
    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst) || self.quit.is_some_and(|q| q.load(Ordering::SeqCst))
    }
}

/// A running pool of vision callers. See the module docs.
pub struct VisionPool<T> {
    jobs: Option<Sender<VisionJob<T>>>,
    workers: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl<T: Send + 'static> VisionPool<T> {
    /// Starts `concurrency` (at least 1) caller threads.
    pub fn start(
        client: VisionClient,
        concurrency: usize,
        store: Arc<dyn AnswerStore>,
    ) -> VisionPool<T> {
        Self::start_with_quit(client, concurrency, store, None)
    }

    /// [`start`](Self::start), cancelled as soon as `quit` is set.
    pub fn start_with_quit(
        client: VisionClient,
        concurrency: usize,
        store: Arc<dyn AnswerStore>,
        quit: Option<&'static AtomicBool>,
    ) -> VisionPool<T> {
        Self::start_hosts(vec![client], concurrency, store, quit)
    }

    /// A pool of `concurrency` callers sharing the backends of `clients`
    /// (at least one; see [`Hosts`]), cancelled as soon as `quit` is set.
    pub fn start_hosts(
        clients: Vec<VisionClient>,
        concurrency: usize,
        store: Arc<dyn AnswerStore>,
        quit: Option<&'static AtomicBool>,
    ) -> VisionPool<T> {
        let n = concurrency.max(1);
        // 2n queued pages: enough that a worker never waits for the next
        // page to be rendered, few enough that encoded images don't pile up.
        let (job_tx, job_rx) = crossbeam_channel::bounded::<VisionJob<T>>(2 * n);
        let shared = Arc::new(Shared {
            hosts: Hosts::new(clients, UNREACHABLE_AFTER),
            store,
            off: AtomicBool::new(false),
            cancelled: AtomicBool::new(false),
            quit,
            requests: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            cached: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
        });
        let workers = (0..n)
            .map(|i| {
                let job_rx = job_rx.clone();
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("vision-{i}"))
                    .spawn(move || worker(&shared, job_rx))
                    .expect("spawning a vision thread")
            })
            .collect();
        VisionPool {
            jobs: Some(job_tx),
            workers,
            shared,
        }
    }

    /// A pool for `VLM_CONCURRENCY` callers sharing the hosts of
    /// `VLM_ENDPOINTS` (or `VLM_ENDPOINT`), clients as
    /// [`VisionClient::from_settings`], cancelled when `quit` is set.
    pub fn from_settings(
        settings: &crate::settings::Settings,
        store: Arc<dyn AnswerStore>,
        quit: &'static AtomicBool,
    ) -> VisionPool<T> {
        let clients = settings
            .vlm_hosts()
            .iter()
            .map(|endpoint| VisionClient::for_endpoint(settings, endpoint))
            .collect();
        Self::start_hosts(clients, settings.vlm_concurrency, store, Some(quit))
    }

    /// Each host's pages so far (sent, answered, failed), for the run's
    /// summary.
    pub fn host_counts(&self) -> Vec<crate::report::HostCount> {
        self.shared.hosts.counts()
    }

    /// Jobs waiting for a caller (for a "vision queue" progress bar).
    pub fn queue_len(&self) -> usize {
        self.jobs.as_ref().map_or(0, |tx| tx.len())
    }

    /// Queues a job, blocking while `2 * concurrency` jobs wait. Call it
    /// from a feeder thread, never from a rayon thread (use
    /// [`VisionPool::try_submit`] there). Errors only after [`close`](Self::close).
    pub fn submit(&self, job: VisionJob<T>) -> Result<(), SendError<VisionJob<T>>> {
        match &self.jobs {
            Some(tx) => tx.send(job),
            None => Err(SendError(job)),
        }
    }

    /// Queues a job if there is room, without blocking.
    pub fn try_submit(&self, job: VisionJob<T>) -> Result<(), TrySendError<VisionJob<T>>> {
        match &self.jobs {
            Some(tx) => tx.try_send(job),
            None => Err(TrySendError::Disconnected(job)),
        }
    }

    /// A clone of the job sender for a feeder thread. The pool ends when
    /// [`close`](Self::close) has been called and every clone is dropped.
    pub fn sender(&self) -> Option<Sender<VisionJob<T>>> {
        self.jobs.clone()
    }

    /// No more jobs from the pool's own sender; workers finish the queue and exit.
    pub fn close(&mut self) {
        self.jobs = None;
    }

    /// Closes the pool and waits for every queued job (its result sent
    /// on the job's own reply channel).
    pub fn finish(mut self) {
        self.close();
        for w in self.workers.drain(..) {
            // A worker catches panics per job, so join only fails if the
            // thread itself died; its jobs' results are then just missing.
            let _ = w.join();
        }
    }

    /// Ctrl-C: queued jobs come back as skipped, retries stop; requests in
    /// flight finish (bounded by `VLM_TIMEOUT`).
    pub fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::SeqCst);
    }

    /// Vision was switched off (backend unreachable).
    pub fn is_off(&self) -> bool {
        self.shared.off.load(Ordering::SeqCst)
    }

    pub fn stats(&self) -> PoolStats {
        let s = &self.shared;
        PoolStats {
            requests: s.requests.load(Ordering::Relaxed),
            answered: s.answered.load(Ordering::Relaxed),
            cached: s.cached.load(Ordering::Relaxed),
            failed: s.failed.load(Ordering::Relaxed),
            skipped: s.skipped.load(Ordering::Relaxed),
        }
    }
}

impl<T> Drop for VisionPool<T> {
    /// Dropping without [`finish`](VisionPool::finish) cancels: queued jobs
    /// are skipped and the threads exit on their own (not joined, so a
    /// request in flight does not hold up the caller).
    fn drop(&mut self) {
        self.jobs = None;
        if !self.workers.is_empty() {
            self.shared.cancelled.store(true, Ordering::SeqCst);
        }
    }
}

fn worker<T>(shared: &Shared, jobs: Receiver<VisionJob<T>>) {
    for job in jobs {
        let VisionJob { tag, image, reply } = job;
        let key = VisionKey::new(&image, shared.hosts.first().model());
        let (outcome, diagnostics, switched_off) =
            match catch_unwind(AssertUnwindSafe(|| process(shared, &image, &key))) {
                Ok(done) => done,
                Err(_) => {
                    let mut d = shared.hosts.first().diagnostics_for(&image, &key);
                    let e = VisionError::BadBody("internal error while reading the answer".into());
                    d.outcome = "failed".into();
                    d.error = Some(e.to_string());
                    (Outcome::Failed(e), d, None)
                }
            };
        let counter = match &outcome {
            Outcome::Answered(_) => &shared.answered,
            Outcome::Cached(_) => &shared.cached,
            Outcome::Failed(_) => &shared.failed,
            Outcome::Skipped(_) => &shared.skipped,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        // The caller may be gone (its document failed): nothing to do.
        let _ = reply.send(VisionResult {
            tag,
            key,
            outcome,
            diagnostics,
            switched_off,
        });
    }
}

fn process(
    shared: &Shared,
    image: &EncodedImage,
    key: &VisionKey,
) -> (Outcome, Diagnostics, Option<String>) {
    let client = shared.hosts.first();
    let skip = |reason: SkipReason| {
        let mut d = client.diagnostics_for(image, key);
        d.outcome = "skipped".into();
        d.error = Some(reason.as_str().to_string());
        (Outcome::Skipped(reason), d, None)
    };
    if shared.cancelled() {
        return skip(SkipReason::Cancelled);
    }
    if let Some(text) = shared.store.get(key) {
        let answer = Answer::parse(&text);
        let mut d = client.diagnostics_for(image, key);
        d.outcome = "cached".into();
        d.answer = Some(text);
        d.fields = Some(answer.clone());
        return (Outcome::Cached(answer), d, None);
    }
    if shared.off.load(Ordering::SeqCst) {
        return skip(SkipReason::VisionOff);
    }
    ask(shared, image, key)
}

/// Asks the hosts about one page: the least loaded host first, then, when
/// every attempt there was unreachable, the next host still on that this
/// page has not tried. The diagnostics list every attempt at every host;
/// the message returned names each host (or vision) switched off.
fn ask(
    shared: &Shared,
    image: &EncodedImage,
    key: &VisionKey,
) -> (Outcome, Diagnostics, Option<String>) {
    let give_up = || shared.off.load(Ordering::SeqCst) || shared.cancelled();
    let (mut tried, mut attempts, mut messages) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    while let Some(lease) = shared.hosts.lease(&tried) {
        let exchange = lease.client().ask_until(image, &give_up);
        let mut d = exchange.diagnostics;
        shared
            .requests
            .fetch_add(d.attempts.len() as u64, Ordering::Relaxed);
        attempts.append(&mut d.attempts);
        match exchange.result {
            Ok(text) => {
                shared.hosts.reached(&lease);
                shared.hosts.count(&lease, true);
                shared.store.put(key, &text);
                let answer = Answer::parse(&text);
                d.outcome = "answered".into();
                d.fields = Some(answer.clone());
                d.attempts = attempts;
                return (Outcome::Answered(answer), d, joined(messages));
            }
            Err(e) if !(e.is_unreachable() || e.is_model_missing()) => {
                // The host is there; the page failed on its own account.
                shared.hosts.reached(&lease);
                shared.hosts.count(&lease, false);
                d.outcome = "failed".into();
                d.attempts = attempts;
                return (Outcome::Failed(e), d, joined(messages));
            }
            Err(e) => {
                shared.hosts.count(&lease, false);
                match shared.hosts.unreachable(&lease, &e) {
                    Tripped::No => {}
                    Tripped::Host(msg) => messages.push(msg),
                    // swap: exactly one worker reports the switch.
                    Tripped::All if !shared.off.swap(true, Ordering::SeqCst) => {
                        messages.push(switch_off_message(&shared.hosts, lease.client(), &e));
                    }
                    Tripped::All => {}
                }
                tried.push(lease.index());
                last = Some((e, d));
                if give_up() {
                    break;
                }
            }
        }
    }
    let Some((e, mut d)) = last else {
        // Every host was switched off before this page got one.
        let mut d = shared.hosts.first().diagnostics_for(image, key);
        d.outcome = "skipped".into();
        d.error = Some(SkipReason::VisionOff.as_str().to_string());
        return (Outcome::Skipped(SkipReason::VisionOff), d, joined(messages));
    };
    d.outcome = "failed".into();
    d.attempts = attempts;
    (Outcome::Failed(e), d, joined(messages))
}

/// The messages of one page's hosts switched off, one per line.
fn joined(messages: Vec<String>) -> Option<String> {
    (!messages.is_empty()).then(|| messages.join("\n"))
}

/// The one message printed when vision is switched off, with the fix:
/// `client` is the last host that failed, `hosts` all of them.
fn switch_off_message(hosts: &Hosts, client: &VisionClient, last: &VisionError) -> String {
    let streak = UNREACHABLE_AFTER;
    let why = if last.is_model_missing() {
        format!(
            "the backend at {} does not have model {} ({last}); download it on the backend \
             host with `ollama pull {}` or set VLM_MODEL",
            client.endpoint(),
            client.model(),
            client.model()
        )
    } else if hosts.len() > 1 {
        format!(
            "none of the backends at {} could be reached ({last}); check them with \
             `colophon vlm-check` (VLM_ENDPOINTS, VLM_TIMEOUT)",
            hosts.endpoints()
        )
    } else {
        format!(
            "the backend at {} could not be reached ({last}); check it with \
             `colophon vlm-check` (VLM_ENDPOINT, VLM_PORT, VLM_TIMEOUT)",
            client.endpoint()
        )
    };
    format!(
        "vision switched off for the rest of this run after {streak} pages in a row failed: \
         {why}. The remaining pages go on without vision."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, Value, Via};
    use crate::vision::fake_ollama::{
        FakeOllama, NOT_VISIBLE_ANSWER, Reply, SAMPLE_ANSWER, closed_port_endpoint,
    };
    use crate::vision::image::prepare;
    use image::{GrayImage, Luma};
    use std::time::{Duration, Instant};

    /// Distinct small page images.
    fn pages(n: usize) -> Vec<EncodedImage> {
        (0..n)
            .map(|i| prepare(&GrayImage::from_pixel(40, 60, Luma([i as u8 * 9 + 1]))).unwrap())
            .collect()
    }

    fn client(endpoint: &str, model: &str, timeout: f64, retries: u32, delay: f64) -> VisionClient {
        VisionClient::new(
            endpoint,
            model,
            Duration::from_secs_f64(timeout),
            retries,
            Duration::from_secs_f64(delay),
        )
    }

    /// Runs every image through a fresh pool and returns the results by tag.
    fn run(
        client: VisionClient,
        concurrency: usize,
        store: Arc<dyn AnswerStore>,
        images: &[EncodedImage],
    ) -> (Vec<VisionResult<usize>>, PoolStats) {
        let pool = VisionPool::start(client, concurrency, store);
        let feeder = pool.sender().unwrap();
        let jobs: Vec<_> = images.to_vec();
        let (reply, results) = crossbeam_channel::unbounded();
        // A feeder thread, as the integrator would use: the bounded queue
        // may block it, never the thread collecting results.
        let feed = std::thread::spawn(move || {
            for (tag, image) in jobs.into_iter().enumerate() {
                let reply = reply.clone();
                feeder.send(VisionJob { tag, image, reply }).unwrap();
            }
        });
        let mut results: Vec<_> = results.iter().take(images.len()).collect();
        feed.join().unwrap();
        let stats = pool.stats();
        pool.finish();
        results.sort_by_key(|r| r.tag);
        (results, stats)
    }

    #[test]
    fn answers_become_vision_candidates() {
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "qwen2.5vl:7b", 5.0, 0, 0.0);
        let (results, stats) = run(c, 2, Arc::new(NoStore), &pages(1));
        let r = &results[0];
        assert!(matches!(r.outcome, Outcome::Answered(_)));
        assert_eq!(r.diagnostics.outcome, "answered");
        assert_eq!(
            r.diagnostics.fields.as_ref().unwrap().title.as_deref(),
            Some("The Art of Computer Programming")
        );
        let cands = r.candidates(4);
        assert!(
            cands
                .iter()
                .all(|c| c.via == Via::Vision && c.page == Some(4))
        );
        let year = cands.iter().find(|c| c.field == Field::Year).unwrap();
        assert_eq!(year.value, Value::Number(1997));
        assert_eq!(stats.requests, 1);
        assert_eq!(stats.answered, 1);
    }

    #[test]
    fn warm_cache_sends_nothing_and_a_new_model_asks_again() {
        let server = FakeOllama::streaming(SAMPLE_ANSWER, 11);
        let store = Arc::new(MemoryStore::new());
        let images = pages(3);
        let c = || client(&server.endpoint(), "qwen2.5vl:7b", 5.0, 0, 0.0);

        let (first, stats) = run(c(), 2, store.clone(), &images);
        assert!(
            first
                .iter()
                .all(|r| matches!(r.outcome, Outcome::Answered(_)))
        );
        assert_eq!(server.chat_count(), 3);
        assert_eq!(store.len(), 3);
        assert_eq!(stats.requests, 3);

        let (second, stats) = run(c(), 2, store.clone(), &images);
        assert_eq!(server.chat_count(), 3, "a rerun makes no request");
        assert_eq!(stats.requests, 0);
        assert_eq!(stats.cached, 3);
        for (a, b) in first.iter().zip(&second) {
            assert!(matches!(b.outcome, Outcome::Cached(_)));
            assert_eq!(a.outcome.answer(), b.outcome.answer());
            assert_eq!(a.key, b.key);
            assert_eq!(b.diagnostics.outcome, "cached");
            assert!(b.diagnostics.attempts.is_empty());
        }

        let other = client(&server.endpoint(), "llava:13b", 5.0, 0, 0.0);
        let (third, _) = run(other, 2, store.clone(), &images);
        assert!(
            third
                .iter()
                .all(|r| matches!(r.outcome, Outcome::Answered(_)))
        );
        assert_eq!(server.chat_count(), 6, "another model is asked again");
        let models: Vec<_> = server.chat_requests()[3..]
            .iter()
            .map(|r| r.model())
            .collect();
        assert!(models.iter().all(|m| m.as_deref() == Some("llava:13b")));
    }

    #[test]
    fn failures_are_not_cached() {
        let server = FakeOllama::failing_first(100, 500, SAMPLE_ANSWER);
        let store = Arc::new(MemoryStore::new());
        let c = client(&server.endpoint(), "m", 5.0, 1, 0.01);
        let (results, stats) = run(c, 1, store.clone(), &pages(2));
        for r in &results {
            assert_eq!(r.outcome, Outcome::Failed(VisionError::Status(500)));
            assert!(r.outcome.is_failed());
            assert_eq!(r.diagnostics.attempts.len(), 2);
            assert!(r.switched_off.is_none());
        }
        assert!(store.is_empty());
        assert_eq!(stats.failed, 2);
        assert_eq!(stats.requests, 4);
    }

    #[test]
    fn not_visible_answer_is_answered_without_candidates() {
        let server = FakeOllama::answering(NOT_VISIBLE_ANSWER);
        let c = client(&server.endpoint(), "m", 5.0, 3, 0.01);
        let (results, _) = run(c, 1, Arc::new(NoStore), &pages(1));
        assert!(matches!(&results[0].outcome, Outcome::Answered(a) if a.is_empty()));
        assert!(results[0].candidates(0).is_empty());
        assert_eq!(server.chat_count(), 1);
    }

    #[test]
    fn pool_overlaps_slow_requests() {
        let server = FakeOllama::slow(Duration::from_millis(500), SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "m", 10.0, 0, 0.0);
        let start = Instant::now();
        let (results, _) = run(c, 4, Arc::new(NoStore), &pages(8));
        let elapsed = start.elapsed().as_secs_f64();
        assert_eq!(results.len(), 8);
        assert!(
            results
                .iter()
                .all(|r| matches!(r.outcome, Outcome::Answered(_)))
        );
        assert_eq!(server.chat_count(), 8);
        // 8 jobs × 0.5 s on 4 callers: ~1 s, not 4 s.
        assert!((0.95..2.5).contains(&elapsed), "took {elapsed:.2} s");
    }

    #[test]
    fn unreachable_backend_switches_vision_off_once() {
        let endpoint = closed_port_endpoint();
        let c = client(&endpoint, "m", 5.0, 1, 0.05);
        let start = Instant::now();
        let (results, stats) = run(c, 1, Arc::new(NoStore), &pages(7));
        let elapsed = start.elapsed().as_secs_f64();
        for r in &results[..UNREACHABLE_AFTER] {
            assert!(
                matches!(r.outcome, Outcome::Failed(VisionError::Connect(_))),
                "{:?}",
                r.outcome
            );
            assert_eq!(r.diagnostics.attempts.len(), 2);
        }
        for r in &results[UNREACHABLE_AFTER..] {
            assert_eq!(r.outcome, Outcome::Skipped(SkipReason::VisionOff));
            assert!(r.outcome.is_failed());
            assert!(r.diagnostics.attempts.is_empty());
        }
        let messages: Vec<_> = results
            .iter()
            .filter_map(|r| r.switched_off.as_deref())
            .collect();
        assert_eq!(messages.len(), 1);
        assert!(messages[0].contains(&endpoint) && messages[0].contains("vlm-check"));
        assert_eq!(
            results[UNREACHABLE_AFTER - 1].switched_off.as_deref(),
            Some(messages[0])
        );
        assert_eq!(stats.requests, 2 * UNREACHABLE_AFTER as u64);
        assert_eq!(stats.skipped, 4);
        assert!(elapsed < 2.0, "took {elapsed:.2} s");
    }

    #[test]
    fn timeouts_count_as_unreachable_but_errors_do_not() {
        let server = FakeOllama::slow(Duration::from_secs(3), SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "m", 0.2, 0, 0.0);
        let (results, _) = run(c, 1, Arc::new(NoStore), &pages(4));
        assert!(
            results[..3]
                .iter()
                .all(|r| r.outcome == Outcome::Failed(VisionError::Timeout))
        );
        assert_eq!(results[3].outcome, Outcome::Skipped(SkipReason::VisionOff));
        assert_eq!(server.chat_count(), 3);

        // HTTP errors prove the backend is there: vision stays on.
        let server = FakeOllama::failing_first(100, 500, SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "m", 5.0, 0, 0.0);
        let (results, _) = run(c, 1, Arc::new(NoStore), &pages(5));
        assert!(
            results
                .iter()
                .all(|r| r.outcome == Outcome::Failed(VisionError::Status(500)))
        );
        assert!(results.iter().all(|r| r.switched_off.is_none()));
        assert_eq!(server.chat_count(), 5);
    }

    #[test]
    fn missing_model_switches_vision_off_with_the_pull_command() {
        let server = FakeOllama::failing_first(100, 404, SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "llava:13b", 5.0, 1, 0.01);
        let (results, _) = run(c, 1, Arc::new(NoStore), &pages(5));
        let kinds: Vec<_> = results.iter().map(|r| r.outcome.as_str()).collect();
        assert_eq!(kinds, ["failed", "failed", "failed", "skipped", "skipped"]);
        let msg = results[2].switched_off.as_deref().unwrap();
        assert!(msg.contains("ollama pull llava:13b"), "{msg}");
        assert_eq!(server.chat_count(), 6);
    }

    #[test]
    fn a_success_resets_the_unreachable_streak() {
        // Two timeouts, one answer, two timeouts: never three in a row.
        let server = FakeOllama::start(|n, _| {
            if n == 2 {
                Reply::Answer(SAMPLE_ANSWER.to_string())
            } else {
                Reply::delayed(Duration::from_secs(3), Reply::Answer(String::new()))
            }
        });
        let c = client(&server.endpoint(), "m", 0.2, 0, 0.0);
        let (results, _) = run(c, 1, Arc::new(NoStore), &pages(5));
        let kinds: Vec<_> = results.iter().map(|r| r.outcome.as_str()).collect();
        assert_eq!(kinds, ["failed", "failed", "answered", "failed", "failed"]);
    }

    #[test]
    fn cached_answers_are_served_while_vision_is_off() {
        let images = pages(4);
        let store = Arc::new(MemoryStore::new());
        let cached_key = VisionKey::new(&images[3], "m");
        store.put(&cached_key, SAMPLE_ANSWER);
        let c = client(&closed_port_endpoint(), "m", 5.0, 0, 0.0);
        let (results, _) = run(c, 1, store, &images);
        assert!(results[..3].iter().all(|r| r.outcome.is_failed()));
        assert!(matches!(&results[3].outcome, Outcome::Cached(a) if a.title.is_some()));
    }

    #[test]
    fn cancel_skips_queued_jobs() {
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let pool = VisionPool::start(
            client(&server.endpoint(), "m", 5.0, 0, 0.0),
            2,
            Arc::new(NoStore),
        );
        pool.cancel();
        let (reply, results) = crossbeam_channel::unbounded();
        for (tag, image) in pages(3).into_iter().enumerate() {
            let reply = reply.clone();
            pool.submit(VisionJob { tag, image, reply }).unwrap();
        }
        pool.finish();
        drop(reply);
        let results: Vec<_> = results.iter().collect();
        assert_eq!(results.len(), 3);
        assert!(
            results
                .iter()
                .all(|r| r.outcome == Outcome::Skipped(SkipReason::Cancelled))
        );
        assert_eq!(server.chat_count(), 0);
    }

    #[test]
    fn the_quit_flag_cancels_the_pool() {
        static QUIT: AtomicBool = AtomicBool::new(false);
        let server = FakeOllama::answering(SAMPLE_ANSWER);
        let c = client(&server.endpoint(), "m", 5.0, 0, 0.0);
        let pool = VisionPool::start_with_quit(c, 1, Arc::new(NoStore), Some(&QUIT));
        QUIT.store(true, Ordering::SeqCst);
        let (reply, results) = crossbeam_channel::unbounded();
        for (tag, image) in pages(2).into_iter().enumerate() {
            let reply = reply.clone();
            pool.submit(VisionJob { tag, image, reply }).unwrap();
        }
        let kinds: Vec<_> = results.iter().take(2).map(|r| r.outcome).collect();
        assert_eq!(kinds, vec![Outcome::Skipped(SkipReason::Cancelled); 2]);
        assert_eq!(server.chat_count(), 0);
        pool.finish();
    }

    #[test]
    fn closed_pool_refuses_jobs_and_queue_is_bounded() {
        // A backend that never answers in time keeps both callers busy.
        let server = FakeOllama::slow(Duration::from_secs(2), SAMPLE_ANSWER);
        let mut pool = VisionPool::start(
            client(&server.endpoint(), "m", 5.0, 0, 0.0),
            2,
            Arc::new(NoStore),
        );
        let mut accepted = 0;
        let (reply, _results) = crossbeam_channel::unbounded();
        for (tag, image) in pages(10).into_iter().enumerate() {
            let reply = reply.clone();
            if pool.try_submit(VisionJob { tag, image, reply }).is_ok() {
                accepted += 1;
            }
        }
        // 2 in flight (once picked up) + 4 queued at most.
        assert!((4..=6).contains(&accepted), "accepted {accepted}");
        pool.cancel();
        pool.close();
        let image = pages(1).pop().unwrap();
        assert!(
            pool.submit(VisionJob {
                tag: 99,
                image,
                reply
            })
            .is_err()
        );
    }
}
