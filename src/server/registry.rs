//! What the host registered: namespaces (with their job segments),
//! clients (with the uid/gid they must connect as) and per-client secrets.
//! Shared between the host's threads and the progress thread; the mutex
//! is held only for lookups and inserts, never while building a segment.
//!
//! Invariant: a namespace's record (job segment, barrier page) is replaced
//! whole, never changed in place, so a reader holding it sees one
//! consistent registration.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use pmix_shmem::SealedSegment;

use super::psets::registered_sets;
use crate::barrier::BarrierPage;
use crate::job::JobDescription;
use crate::net::PeerCredentials;
use crate::{Info, Nspace, Proc, Rank, Status};

/// A registered namespace: made by its registration, never changed
/// after (a registration again replaces it).
pub(crate) struct NsRecord {
    /// Number of processes in the job.
    size: u32,
    /// Ranks of the job on this node, sorted.
    local_ranks: Vec<u32>,
    /// The sealed job segment.
    job_segment: SealedSegment,
    /// Its generation number.
    generation: u64,
    /// This node's name, as registered.
    hostname: String,
    /// The job barrier page and its generation number, for a job wholly
    /// on this node whose host leaves such fences to the server (see
    /// `crate::barrier`).
    barrier: Option<(Arc<BarrierPage>, u64)>,
}

impl NsRecord {
    /// Number of processes in the job.
    pub(crate) fn size(&self) -> u32 {
        self.size
    }

    /// Ranks of the job on this node, sorted.
    pub(crate) fn local_ranks(&self) -> &[u32] {
        &self.local_ranks
    }

    /// The sealed job segment.
    pub(crate) fn job_segment(&self) -> &SealedSegment {
        &self.job_segment
    }

    /// The job segment's generation number.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// This node's name, as registered.
    pub(crate) fn hostname(&self) -> &str {
        &self.hostname
    }

    /// The job barrier page and its generation number, if the job has one
    /// (see the field).
    pub(crate) fn barrier(&self) -> Option<&(Arc<BarrierPage>, u64)> {
        self.barrier.as_ref()
    }

    /// True if `rank` runs on this node.
    pub(crate) fn is_local(&self, rank: u32) -> bool {
        self.local_ranks.binary_search(&rank).is_ok()
    }

    /// True if every process of the job runs on this node.
    pub(crate) fn all_local(&self) -> bool {
        self.local_ranks.len() as u64 == u64::from(self.size)
    }
}

struct ClientRecord {
    uid: u32,
    gid: u32,
}

struct Inner {
    nspaces: HashMap<Nspace, Arc<NsRecord>>,
    clients: HashMap<Proc, ClientRecord>,
    secrets: HashMap<Proc, String>,
}

/// See the module documentation.
pub(crate) struct Registry {
    inner: Mutex<Inner>,
    next_generation: AtomicU64,
    /// Jobs wholly on this node get a barrier page.
    barriers: bool,
}

/// A fresh secret: 16 bytes from the kernel's generator, as hex.
fn new_secret() -> Result<String, Status> {
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Compares secrets in time independent of where they differ.
fn secrets_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What the server adds to a registration's description of a job.
pub(crate) struct Derivations {
    /// See [`crate::server::ServerConfig::locality`].
    pub locality: Option<fn(&str) -> Option<String>>,
    /// See [`crate::server::ServerConfig::device_distances`].
    pub device_distances: Option<fn(&str) -> Option<crate::Value>>,
    /// Delivered inventories' node-realm keys, by hostname.
    pub node_inventories: Vec<(String, Vec<Info>)>,
}

impl Registry {
    /// Counts this room's entries (see [`Census`](super::census::Census)).
    pub(super) fn count(&self, c: &mut super::census::Census) {
        let inner = self.inner.lock();
        c.add("registry.nspaces", inner.nspaces.len());
        c.add("registry.clients", inner.clients.len());
        c.add("registry.secrets", inner.secrets.len());
    }

    /// `barriers`: the host takes no part in fences of jobs wholly on this
    /// node, which may then use a barrier page.
    pub(crate) fn new(barriers: bool) -> Registry {
        Registry {
            barriers,
            inner: Mutex::new(Inner {
                nspaces: HashMap::new(),
                clients: HashMap::new(),
                secrets: HashMap::new(),
            }),
            next_generation: AtomicU64::new(1),
        }
    }

    /// A new generation number (job and modex segments share the counter).
    pub(crate) fn next_generation(&self) -> u64 {
        self.next_generation.fetch_add(1, Ordering::Relaxed)
    }

    /// Registers (or replaces) a namespace; returns the process sets its
    /// registration carries (see [`registered_sets`]).
    pub(crate) fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocalprocs: u32,
        infos: &[Info],
        hostname: &str,
        derive: &Derivations,
    ) -> Result<Vec<(String, Vec<Proc>)>, Status> {
        let mut job = JobDescription::from_registration(nspace, nlocalprocs, infos, hostname)?;
        let psets = registered_sets(nspace, &job);
        if let Some(f) = derive.locality {
            job.derive_localities(f);
        }
        if let Some(f) = derive.device_distances {
            job.derive_device_distances(f);
        }
        for (host, infos) in &derive.node_inventories {
            job.add_node_values(host, infos);
        }
        let generation = self.next_generation();
        let mut local_ranks: Vec<u32> = job.local_ranks().to_vec();
        local_ranks.sort_unstable();
        local_ranks.dedup();
        let size = job.size();
        let image = job.into_segment()?;
        let job_segment = image.seal().map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
        drop(image);
        let all_local = size > 0 && local_ranks.len() as u64 == u64::from(size);
        let mut g = self.inner.lock();
        // A namespace registered again keeps its page while its size
        // stays: clients that connected before use it too.
        let kept = g
            .nspaces
            .get(nspace)
            .and_then(|r| r.barrier.clone())
            .filter(|(p, _)| p.size() == size);
        let barrier = match kept {
            Some(b) => Some(b),
            None if self.barriers && all_local => BarrierPage::create(size)
                .ok()
                .map(|p| (Arc::new(p), self.next_generation())),
            None => None,
        };
        let rec = NsRecord {
            size,
            local_ranks,
            job_segment,
            generation,
            hostname: hostname.to_owned(),
            barrier,
        };
        g.nspaces.insert(nspace.clone(), Arc::new(rec));
        Ok(psets)
    }

    /// Removes a namespace and its clients; returns the clients removed.
    pub(crate) fn deregister_nspace(&self, nspace: &Nspace) -> Vec<Proc> {
        let mut g = self.inner.lock();
        g.nspaces.remove(nspace);
        let gone: Vec<Proc> = g
            .clients
            .keys()
            .filter(|p| &p.nspace == nspace)
            .cloned()
            .collect();
        for p in &gone {
            g.clients.remove(p);
        }
        g.secrets.retain(|p, _| &p.nspace != nspace);
        gone
    }

    pub(crate) fn register_client(&self, proc: &Proc, uid: u32, gid: u32) -> Result<(), Status> {
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        let secret = {
            let g = self.inner.lock();
            g.secrets.get(proc).cloned()
        };
        let secret = match secret {
            Some(s) => s,
            None => new_secret()?,
        };
        let mut g = self.inner.lock();
        g.clients.insert(proc.clone(), ClientRecord { uid, gid });
        g.secrets.entry(proc.clone()).or_insert(secret);
        Ok(())
    }

    pub(crate) fn deregister_client(&self, proc: &Proc) {
        let mut g = self.inner.lock();
        g.clients.remove(proc);
        g.secrets.remove(proc);
    }

    /// The secret of `proc`, created if it has none yet.
    pub(crate) fn secret_for(&self, proc: &Proc) -> Result<String, Status> {
        if let Some(s) = self.inner.lock().secrets.get(proc) {
            return Ok(s.clone());
        }
        let fresh = new_secret()?;
        Ok(self
            .inner
            .lock()
            .secrets
            .entry(proc.clone())
            .or_insert(fresh)
            .clone())
    }

    /// Every registered namespace, sorted.
    pub(crate) fn nspaces(&self) -> Vec<Nspace> {
        let mut v: Vec<Nspace> = self.inner.lock().nspaces.keys().cloned().collect();
        v.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        v
    }

    /// A registered namespace.
    pub(crate) fn nspace(&self, nspace: &Nspace) -> Option<Arc<NsRecord>> {
        self.inner.lock().nspaces.get(nspace).cloned()
    }

    /// Checks a connecting process's claim: `proc` is a registered client,
    /// the socket's credentials match its registered uid/gid, and `secret`
    /// is its secret. Returns its namespace's record.
    pub(crate) fn authenticate(
        &self,
        proc: &Proc,
        creds: &PeerCredentials,
        secret: &[u8],
    ) -> Result<Arc<NsRecord>, Status> {
        let g = self.inner.lock();
        let client = g.clients.get(proc).ok_or(Status::ERR_INVALID_CRED)?;
        if client.uid != creds.uid || client.gid != creds.gid {
            return Err(Status::ERR_NO_PERMISSIONS);
        }
        let expected = g.secrets.get(proc).ok_or(Status::ERR_INVALID_CRED)?;
        if !secrets_equal(expected.as_bytes(), secret) {
            return Err(Status::ERR_INVALID_CRED);
        }
        g.nspaces
            .get(&proc.nspace)
            .cloned()
            .ok_or(Status::ERR_NOT_FOUND)
    }

    /// The uid and gid `proc` was registered with (what its connection
    /// proved), if it is a registered client.
    pub(crate) fn ids_of(&self, proc: &Proc) -> Option<(u32, u32)> {
        let g = self.inner.lock();
        g.clients.get(proc).map(|c| (c.uid, c.gid))
    }

    /// True if `proc` (a specific rank) runs on this node.
    pub(crate) fn is_local(&self, proc: &Proc) -> bool {
        self.nspace(&proc.nspace)
            .is_some_and(|ns| ns.is_local(proc.rank.0))
    }

    /// The local processes of the set `procs`: every local rank of a
    /// wildcard's namespace, and the listed ranks that are local.
    pub(crate) fn local_participants(&self, procs: &[Proc]) -> BTreeSet<Proc> {
        let mut out = BTreeSet::new();
        for p in procs {
            let Some(ns) = self.nspace(&p.nspace) else {
                continue;
            };
            if p.rank == Rank::WILDCARD {
                out.extend(
                    ns.local_ranks
                        .iter()
                        .map(|&r| Proc::new(p.nspace.clone(), Rank(r))),
                );
            } else if ns.is_local(p.rank.0) {
                out.insert(p.clone());
            }
        }
        out
    }

    /// The set `procs` with each wildcard of a registered namespace
    /// replaced by every rank of its job (a wildcard of a namespace this
    /// server does not know stays), sorted and without duplicates.
    pub(crate) fn expand(&self, procs: &[Proc]) -> Vec<Proc> {
        let mut out = BTreeSet::new();
        for p in procs {
            match self.nspace(&p.nspace) {
                Some(ns) if p.rank == Rank::WILDCARD => {
                    out.extend((0..ns.size).map(|r| Proc::new(p.nspace.clone(), Rank(r))));
                }
                _ => {
                    out.insert(p.clone());
                }
            }
        }
        out.into_iter().collect()
    }

    /// True if every process of the set `procs` runs on this node.
    pub(crate) fn all_local(&self, procs: &[Proc]) -> bool {
        procs.iter().all(|p| {
            self.nspace(&p.nspace).is_some_and(|ns| {
                if p.rank == Rank::WILDCARD {
                    ns.all_local()
                } else {
                    ns.is_local(p.rank.0)
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_hex_and_differ() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn secret_comparison() {
        assert!(secrets_equal(b"abc", b"abc"));
        assert!(!secrets_equal(b"abc", b"abd"));
        assert!(!secrets_equal(b"abc", b"ab"));
    }
}
