//! One online source as a polite HTTP client: a token bucket spacing its
//! requests, a per-request time limit, a bounded body, `429`/`503` with
//! `Retry-After` honoured, retries with doubling backoff, and a switch
//! that turns the source off for the rest of the run after
//! [`SWITCH_OFF_AFTER`] failed requests in a row, so that a dead service
//! costs a few seconds rather than a timeout per document. A host name
//! that does not resolve means this machine is offline (or the name is
//! wrong): that switches the source off at the first failure, without
//! retries, with a message that says so.
//!
//! Nothing here ever fails the run: every way a request can go wrong ends
//! as [`Fetched::Failed`] or [`Fetched::Skipped`] with a reason.
//!
//! Requests are made from the thread that reports records (one at a time
//! per run), never from a rayon thread; the state is behind a mutex all the
//! same so that a client can be shared.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// Attempts per lookup (the first and two retries).
pub const MAX_ATTEMPTS: u32 = 3;
/// Failed requests in a row after which a source is off for the run.
pub const SWITCH_OFF_AFTER: u32 = 5;
/// First backoff delay; it doubles with each retry.
pub const BACKOFF: Duration = Duration::from_millis(500);
/// The longest `Retry-After` waited for inside a lookup. A longer one
/// pauses the source until then: its lookups meanwhile are skipped (and
/// asked again next run), rather than the whole run waiting.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// Answers larger than this are refused (the largest real answers, Crossref
/// works with long reference lists, are a few hundred kilobytes).
pub const MAX_BODY: u64 = 4 * 1024 * 1024;

/// What one lookup at one source came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// A `2xx` answer's body.
    Body(String),
    /// `404` or `410`: the catalogue has no record.
    NotFound,
    /// Every attempt failed (or the answer was refused); the reason.
    Failed(String),
    /// No request was made: the source is off or paused, or the run is
    /// stopping.
    Skipped(String),
}

/// The result of [`SourceClient::get`]: the outcome, how many requests went
/// out, and the message to show once when this lookup switched the source
/// off.
#[derive(Debug)]
pub struct Exchange {
    pub fetched: Fetched,
    pub requests: u32,
    pub switched_off: Option<String>,
}

/// A token bucket: `rate` tokens a second, at most `burst` saved up.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64, now: Instant) -> TokenBucket {
        let burst = burst.max(1.0);
        TokenBucket {
            rate: rate.max(1e-6),
            burst,
            tokens: burst,
            last: now,
        }
    }

    /// Takes one token at `now`: how long to wait before sending. The token
    /// is taken even when a wait is returned (the bucket goes negative), so
    /// the caller must then wait that long.
    pub fn take(&mut self, now: Instant) -> Duration {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now.max(self.last);
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.rate)
        }
    }
}

#[derive(Debug)]
struct State {
    bucket: TokenBucket,
    /// Failed requests in a row.
    failures: u32,
    /// Why the source is off for the run.
    off: Option<String>,
    /// No request before this (a long `Retry-After`).
    paused_until: Option<Instant>,
}

/// One source: its agent, its `Accept` header and its state.
pub struct SourceClient {
    name: &'static str,
    base_url: String,
    agent: ureq::Agent,
    accept: &'static str,
    timeout: Duration,
    state: Mutex<State>,
    /// Requests in flight now, at most `max_in_flight` (a service's
    /// concurrency limit, on top of its rate limit).
    in_flight: Mutex<usize>,
    freed: std::sync::Condvar,
    max_in_flight: usize,
}

impl SourceClient {
    /// A client for the source `name` at `base_url`, sending at most
    /// `rate` requests a second and `max_in_flight` at once, each within
    /// `timeout`, as `user_agent`.
    pub fn new(
        name: &'static str,
        base_url: &str,
        rate: f64,
        max_in_flight: usize,
        timeout: Duration,
        user_agent: &str,
        accept: &'static str,
    ) -> SourceClient {
        let mut config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(user_agent)
            .max_redirects(5);
        // A mirror or test server on this machine is never reached through
        // a proxy meant for the internet.
        if crate::vision::client::is_loopback_url(base_url) {
            config = config.proxy(None);
        }
        SourceClient {
            name,
            base_url: base_url.to_string(),
            agent: ureq::Agent::new_with_config(config.build()),
            accept,
            timeout,
            state: Mutex::new(State {
                bucket: TokenBucket::new(rate, rate.ceil(), Instant::now()),
                failures: 0,
                off: None,
                paused_until: None,
            }),
            in_flight: Mutex::new(0),
            freed: std::sync::Condvar::new(),
            max_in_flight: max_in_flight.max(1),
        }
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Why the source takes no requests now, if it does not.
    pub fn unavailable(&self) -> Option<String> {
        let st = self.state();
        if let Some(why) = &st.off {
            return Some(why.clone());
        }
        match st.paused_until {
            Some(until) if until > Instant::now() => Some(format!(
                "{} asked to wait {:.0} s more (Retry-After); asked again next run",
                self.name,
                (until - Instant::now()).as_secs_f64()
            )),
            _ => None,
        }
    }

    /// `GET url` with retries; `quit()` true stops waiting at once.
    pub fn get(&self, url: &str, quit: &dyn Fn() -> bool) -> Exchange {
        let mut requests = 0;
        let mut last_error = String::new();
        for attempt in 1..=MAX_ATTEMPTS {
            if let Some(why) = self.unavailable() {
                return self.ended(Fetched::Skipped(why), requests, None);
            }
            let wait = self.state().bucket.take(Instant::now());
            if !sleep_unless(wait, quit) {
                return self.ended(
                    Fetched::Skipped("the run is stopping".into()),
                    requests,
                    None,
                );
            }
            // Another lookup may have switched the source off meanwhile.
            if let Some(why) = self.unavailable() {
                return self.ended(Fetched::Skipped(why), requests, None);
            }
            requests += 1;
            let (retry, wait) = match self.attempt(url) {
                Attempt::Done(fetched) => {
                    self.state().failures = 0;
                    return self.ended(fetched, requests, None);
                }
                Attempt::Refused(why) => {
                    // The service is up and said no to this request: no
                    // retry, and not a sign of a dead source.
                    self.state().failures = 0;
                    return self.ended(Fetched::Failed(why), requests, None);
                }
                Attempt::Offline(why) => {
                    // Retrying a name lookup only waits longer for the same
                    // answer; every later lookup would fail the same way.
                    let (msg, first) = self.go_offline(&why);
                    return self.ended(
                        Fetched::Failed(msg.clone()),
                        requests,
                        first.then_some(msg),
                    );
                }
                Attempt::Retry { why, retry_after } => {
                    last_error = why;
                    (true, retry_after)
                }
            };
            debug_assert!(retry);
            let switched = self.count_failure(&last_error);
            if let Some(msg) = switched {
                return self.ended(Fetched::Failed(last_error), requests, msg);
            }
            let backoff = BACKOFF * 2u32.pow(attempt - 1);
            let wait = wait.map_or(backoff, |w| w.max(backoff));
            if wait > MAX_WAIT {
                self.state().paused_until = Some(Instant::now() + wait);
                return self.ended(
                    Fetched::Failed(format!(
                        "{last_error}; {} asked to wait {:.0} s",
                        self.name,
                        wait.as_secs_f64()
                    )),
                    requests,
                    None,
                );
            }
            if attempt < MAX_ATTEMPTS && !sleep_unless(wait, quit) {
                break;
            }
        }
        self.ended(
            Fetched::Failed(format!("{last_error} (after {requests} attempts)")),
            requests,
            None,
        )
    }

    /// Switches the source off for the run: it cannot be reached
    /// (`why`). Returns the message and whether this call switched it off.
    fn go_offline(&self, why: &str) -> (String, bool) {
        let msg = format!("offline: could not reach {} ({why})", self.name);
        let mut st = self.state();
        let first = st.off.is_none();
        if first {
            st.off = Some(msg.clone());
        }
        (msg, first)
    }

    /// Counts a failed request (`last_error`). After SWITCH_OFF_AFTER in
    /// a row the source is off for the run: returns `Some`, with the
    /// message to say when this call switched it off. Counting and
    /// switching off are one step under the lock, so that of lookups
    /// failing at once exactly one switches the source off and says so.
    fn count_failure(&self, last_error: &str) -> Option<Option<String>> {
        let mut st = self.state();
        st.failures += 1;
        let failures = st.failures;
        if failures < SWITCH_OFF_AFTER {
            return None;
        }
        let first = st.off.is_none();
        if first {
            st.off = Some(format!(
                "{} is off for this run after {failures} failed requests in a row",
                self.name
            ));
        }
        Some(first.then(|| {
            format!(
                "online: {} switched off for this run after {failures} failed requests in a row (last: {last_error})",
                self.name
            )
        }))
    }

    fn ended(&self, fetched: Fetched, requests: u32, switched_off: Option<String>) -> Exchange {
        Exchange {
            fetched,
            requests,
            switched_off,
        }
    }

    /// One request, once fewer than `max_in_flight` are out.
    fn attempt(&self, url: &str) -> Attempt {
        {
            let mut n = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
            while *n >= self.max_in_flight {
                n = self.freed.wait(n).unwrap_or_else(|p| p.into_inner());
            }
            *n += 1;
        }
        let result = self.send(url);
        *self.in_flight.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        self.freed.notify_one();
        result
    }

    fn send(&self, url: &str) -> Attempt {
        let response = self.agent.get(url).header("Accept", self.accept).call();
        let mut response = match response {
            Ok(r) => r,
            Err(e) if name_lookup_failed(&e) => {
                return Attempt::Offline(format!(
                    "the name of {} could not be looked up",
                    host_of(&self.base_url)
                ));
            }
            Err(e) => {
                return Attempt::Retry {
                    why: self.transport(&e),
                    retry_after: None,
                };
            }
        };
        let status = response.status().as_u16();
        match status {
            200..=299 => match response
                .body_mut()
                .with_config()
                .limit(MAX_BODY)
                .lossy_utf8(true)
                .read_to_string()
            {
                Ok(body) => Attempt::Done(Fetched::Body(body)),
                Err(ureq::Error::BodyExceedsLimit(n)) => {
                    Attempt::Refused(format!("answer larger than {n} bytes"))
                }
                Err(e) => Attempt::Retry {
                    why: format!("answer cut off ({})", self.transport(&e)),
                    retry_after: None,
                },
            },
            404 | 410 => Attempt::Done(Fetched::NotFound),
            429 | 503 => Attempt::Retry {
                why: format!("HTTP {status}"),
                retry_after: response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| retry_after(v, SystemTime::now())),
            },
            500..=599 => Attempt::Retry {
                why: format!("HTTP {status}"),
                retry_after: None,
            },
            _ => Attempt::Refused(format!("HTTP {status}")),
        }
    }

    fn transport(&self, e: &ureq::Error) -> String {
        match e {
            ureq::Error::Timeout(_) => {
                format!(
                    "no answer within {:.0} s (ONLINE_TIMEOUT)",
                    self.timeout.as_secs_f64()
                )
            }
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                format!(
                    "no answer within {:.0} s (ONLINE_TIMEOUT)",
                    self.timeout.as_secs_f64()
                )
            }
            ureq::Error::ConnectionFailed => "connection failed".into(),
            ureq::Error::HostNotFound => "host not found".into(),
            other => other.to_string(),
        }
    }
}

enum Attempt {
    Done(Fetched),
    /// Not retried.
    Refused(String),
    /// The host name did not resolve: not retried, and the source is off.
    Offline(String),
    Retry {
        why: String,
        retry_after: Option<Duration>,
    },
}

/// A `Retry-After` value: delay seconds or an HTTP date (RFC 9110 10.2.3).
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs.min(86_400)));
    }
    let at = http_date(v)?;
    let now = now.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now).min(86_400)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` → seconds since the epoch.
fn http_date(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: i64 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + m * 60 + sec).ok()
}

/// Whether `e` is a failed name lookup (no resolver answer for the host):
/// ureq's own `HostNotFound`, or the system resolver's error as an I/O
/// error ("failed to lookup address information", getaddrinfo's text).
fn name_lookup_failed(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::HostNotFound => true,
        ureq::Error::Io(io) => io.to_string().contains("failed to lookup address"),
        _ => false,
    }
}

/// The host part of `url` (`https://host:port/path` → `host`).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match host_port.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !h.is_empty() => h,
        _ => host_port,
    }
}

/// Sleeps `d`, waking early (returning false) when `quit()` turns true.
fn sleep_unless(d: Duration, quit: &dyn Fn() -> bool) -> bool {
    let end = Instant::now() + d;
    loop {
        if quit() {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_spaces_requests_after_its_burst() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(2.0, 2.0, t0);
        assert_eq!(b.take(t0), Duration::ZERO);
        assert_eq!(b.take(t0), Duration::ZERO);
        // Empty: the third waits half a second (2 a second), the fourth a whole one.
        assert_eq!(b.take(t0), Duration::from_millis(500));
        assert_eq!(b.take(t0), Duration::from_millis(1000));
        // Long idle refills at most `burst` tokens.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(b.take(later), Duration::ZERO);
        assert_eq!(b.take(later), Duration::ZERO);
        assert!(b.take(later) > Duration::ZERO);
        // A slow source: one request every two seconds.
        let mut slow = TokenBucket::new(0.5, 0.5, t0);
        assert_eq!(slow.take(t0), Duration::ZERO);
        assert_eq!(slow.take(t0), Duration::from_secs(2));
    }

    #[test]
    fn a_name_that_does_not_resolve_is_offline_and_other_failures_are_not() {
        assert!(name_lookup_failed(&ureq::Error::HostNotFound));
        // getaddrinfo's text, as std reports a failed lookup.
        let lookup = std::io::Error::other(
            "failed to lookup address information: Temporary failure in name resolution",
        );
        assert!(name_lookup_failed(&ureq::Error::Io(lookup)));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(!name_lookup_failed(&ureq::Error::Io(refused)));
        assert!(!name_lookup_failed(&ureq::Error::ConnectionFailed));
    }

    #[test]
    fn the_host_is_named_without_scheme_port_or_path() {
        assert_eq!(
            host_of("https://openlibrary.org/api/books?x=1"),
            "openlibrary.org"
        );
        assert_eq!(host_of("http://127.0.0.1:8080/"), "127.0.0.1");
        assert_eq!(host_of("http://user@example.org:81"), "example.org");
        assert_eq!(host_of("example.org"), "example.org");
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        // A date in the past: go now.
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-3", now), None);
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date("Tue, 29 Feb 2000 00:00:00 GMT"),
            Some(951_782_400)
        );
    }
}
