//! Several vision hosts (`VLM_ENDPOINTS`, issue 16): the pool's callers
//! share them by **least outstanding requests** (ties go to the host sent
//! the fewest so far, so equal hosts share evenly and a slow one gets
//! fewer), and each host has a **circuit breaker**: after
//! [`UNREACHABLE_AFTER`](super::pool::UNREACHABLE_AFTER) pages in a row
//! whose attempts there all failed to connect, timed out or found the
//! model missing, the host is switched off for the rest of the run, once,
//! with one message. A page that fails that way is asked again of another
//! host that is still on, so a host that goes down costs its share of the
//! pool, not pages and not the run. Only when every host is off is vision
//! switched off (the pool's message). With one host this is exactly the
//! single-backend behaviour of SPEC 6.

use super::client::{VisionClient, VisionError};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// One backend and its counters.
#[derive(Debug)]
struct Host {
    client: VisionClient,
    /// Requests (pages) in flight now.
    outstanding: AtomicUsize,
    /// Pages sent so far (for ties, and the run's summary).
    sent: AtomicU64,
    /// Pages answered here / failed here (a page that failed here may
    /// have been answered by another host).
    answered: AtomicU64,
    failed: AtomicU64,
    /// Pages in a row whose every attempt here was unreachable.
    streak: AtomicUsize,
    off: AtomicBool,
}

/// The vision hosts of a run.
#[derive(Debug)]
pub struct Hosts {
    hosts: Vec<Host>,
    /// Picking and counting a lease are one step, so that two callers
    /// picking at once do not both take the idlest host.
    pick: Mutex<()>,
    /// Pages in a row before a host is switched off.
    breaker: usize,
}

/// A host lent to one caller for one page; dropping it returns the slot.
pub struct Lease<'h> {
    hosts: &'h Hosts,
    index: usize,
}

impl Lease<'_> {
    pub fn client(&self) -> &VisionClient {
        &self.hosts.hosts[self.index].client
    }

    pub fn index(&self) -> usize {
        self.index
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.hosts.hosts[self.index]
            .outstanding
            .fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a failed page did to its host's breaker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tripped {
    /// The host stays on.
    No,
    /// This page switched the host off; other hosts are on. The message
    /// to print once.
    Host(String),
    /// This page switched the last host off.
    All,
}

impl Hosts {
    /// The hosts of `clients` (at least one), each switched off after
    /// `breaker` unreachable pages in a row.
    pub fn new(clients: Vec<VisionClient>, breaker: usize) -> Hosts {
        assert!(!clients.is_empty(), "at least one vision host");
        Hosts {
            hosts: clients
                .into_iter()
                .map(|client| Host {
                    client,
                    outstanding: AtomicUsize::new(0),
                    sent: AtomicU64::new(0),
                    answered: AtomicU64::new(0),
                    failed: AtomicU64::new(0),
                    streak: AtomicUsize::new(0),
                    off: AtomicBool::new(false),
                })
                .collect(),
            pick: Mutex::new(()),
            breaker: breaker.max(1),
        }
    }

    /// The first host's client: the model and prompt are the same on all.
    pub fn first(&self) -> &VisionClient {
        &self.hosts[0].client
    }

    pub fn len(&self) -> usize {
        self.hosts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }

    /// The host with the fewest requests in flight among those on and
    /// not in `tried` (the hosts this page already failed on); `None` when
    /// there is none.
    pub fn lease(&self, tried: &[usize]) -> Option<Lease<'_>> {
        let _guard = self.pick.lock().unwrap_or_else(|p| p.into_inner());
        let index = self
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, h)| !tried.contains(i) && !h.off.load(Ordering::SeqCst))
            .min_by_key(|(_, h)| {
                (
                    h.outstanding.load(Ordering::SeqCst),
                    h.sent.load(Ordering::SeqCst),
                )
            })?
            .0;
        let host = &self.hosts[index];
        host.outstanding.fetch_add(1, Ordering::SeqCst);
        host.sent.fetch_add(1, Ordering::SeqCst);
        Some(Lease { hosts: self, index })
    }

    /// The host answered (an HTTP error counts: it is there).
    pub fn reached(&self, lease: &Lease) {
        self.hosts[lease.index].streak.store(0, Ordering::SeqCst);
    }

    /// Counts the leased page as answered (`true`) or failed at its host.
    pub fn count(&self, lease: &Lease, answered: bool) {
        let host = &self.hosts[lease.index];
        let n = if answered {
            &host.answered
        } else {
            &host.failed
        };
        n.fetch_add(1, Ordering::Relaxed);
    }

    /// Every attempt of a page at the leased host was unreachable (or the
    /// model is missing there): counts towards its breaker.
    pub fn unreachable(&self, lease: &Lease, last: &VisionError) -> Tripped {
        let host = &self.hosts[lease.index];
        let streak = host.streak.fetch_add(1, Ordering::SeqCst) + 1;
        // swap: exactly one caller switches a host off.
        if streak < self.breaker || host.off.swap(true, Ordering::SeqCst) {
            return Tripped::No;
        }
        let on = self.on();
        if on == 0 {
            return Tripped::All;
        }
        Tripped::Host(format!(
            "vision host {} switched off for the rest of this run after {streak} pages in a \
             row failed there ({last}); the other {on} host(s) take its share",
            host.client.endpoint()
        ))
    }

    /// Hosts still on.
    pub fn on(&self) -> usize {
        self.hosts
            .iter()
            .filter(|h| !h.off.load(Ordering::SeqCst))
            .count()
    }

    /// Each host's pages so far, for the run's summary.
    pub fn counts(&self) -> Vec<crate::report::HostCount> {
        self.hosts
            .iter()
            .map(|h| crate::report::HostCount {
                endpoint: h.client.endpoint().to_string(),
                sent: h.sent.load(Ordering::SeqCst),
                answered: h.answered.load(Ordering::SeqCst),
                failed: h.failed.load(Ordering::SeqCst),
                switched_off: h.off.load(Ordering::SeqCst),
            })
            .collect()
    }

    /// The endpoints, joined for messages.
    pub fn endpoints(&self) -> String {
        self.hosts
            .iter()
            .map(|h| h.client.endpoint())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn hosts(n: usize) -> Hosts {
        let clients = (0..n)
            .map(|i| {
                VisionClient::new(
                    &format!("http://127.0.0.1:{}/api/chat", 9000 + i),
                    "m",
                    Duration::from_secs(1),
                    0,
                    Duration::ZERO,
                )
            })
            .collect();
        Hosts::new(clients, 3)
    }

    #[test]
    fn leases_go_to_the_least_loaded_host() {
        let h = hosts(3);
        let a = h.lease(&[]).unwrap();
        let b = h.lease(&[]).unwrap();
        let c = h.lease(&[]).unwrap();
        let mut first: Vec<usize> = [&a, &b, &c].iter().map(|l| l.index()).collect();
        first.sort_unstable();
        assert_eq!(first, [0, 1, 2], "one each before any gets a second");
        // Host 1 finishes: it is the idlest now.
        let freed = b.index();
        drop(b);
        assert_eq!(h.lease(&[]).unwrap().index(), freed);
        // A host this page failed on is not asked again for it.
        let d = h.lease(&[0, 1]).unwrap();
        assert_eq!(d.index(), 2);
        assert!(h.lease(&[0, 1, 2]).is_none());
        drop((a, c, d));
        // With nothing in flight, the one sent the fewest pages goes next.
        let sent = h.counts();
        let fewest = (0..3).min_by_key(|&i| (sent[i].sent, i)).unwrap();
        assert_eq!(h.lease(&[]).unwrap().index(), fewest);
    }

    #[test]
    fn a_host_is_switched_off_once_after_pages_in_a_row_and_the_last_one_says_all() {
        let h = hosts(2);
        let err = VisionError::Connect("refused".into());
        let lease_of = |i: usize| h.lease(&[1 - i]).unwrap();
        let l = lease_of(0);
        assert_eq!(h.unreachable(&l, &err), Tripped::No);
        h.reached(&l); // an answer resets the count
        assert_eq!(h.unreachable(&l, &err), Tripped::No);
        assert_eq!(h.unreachable(&l, &err), Tripped::No);
        match h.unreachable(&l, &err) {
            Tripped::Host(msg) => assert!(
                msg.starts_with("vision host http://127.0.0.1:9000/api/chat switched off")
                    && msg.contains("the other 1 host(s)"),
                "{msg}"
            ),
            other => panic!("{other:?}"),
        }
        // Once: more failures there say nothing, and it gets no lease.
        assert_eq!(h.unreachable(&l, &err), Tripped::No);
        drop(l);
        assert_eq!(h.lease(&[]).unwrap().index(), 1);
        assert_eq!(h.on(), 1);
        let l = lease_of(1);
        for _ in 0..2 {
            assert_eq!(h.unreachable(&l, &err), Tripped::No);
        }
        assert_eq!(h.unreachable(&l, &err), Tripped::All);
        assert!(h.lease(&[]).is_none());
    }
}
