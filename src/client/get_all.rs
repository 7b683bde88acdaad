//! `PMIx_Get` with no key: everything the library holds for one process,
//! as OpenPMIx 4.2 returns it (one info per key).
//!
//! - This process: what it stored internally about itself (the server's
//!   identity keys) and everything it put, in put order, whatever the
//!   scope. Its process-realm job data is not included (as OpenPMIx).
//! - A peer: what it posted that this node may see (the mapped modex
//!   segments, then data fetched by direct modex), then its process-realm
//!   job data, then `PMIx_Store_internal` values about it. If nothing it
//!   posted is here yet, the data is fetched by direct modex first (as a
//!   get of a key it posted would; `PMIX_OPTIONAL` skips that).
//! - `PMIX_RANK_WILDCARD` (or another special rank): `PMIX_ERR_BAD_PARAM`,
//!   as OpenPMIx 4.2's client answers.

use std::collections::HashSet;

use crate::wire::{DmodexRequest, Message};
use crate::{keys, Info, Key, Proc, Rank, Status, Value};

use super::lookup::GetOptions;
use super::{Client, Inner};

/// Callback of [`Client::get_all_nb`]; runs on the progress thread.
pub type GetAllCallback = Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>;

/// `PMIX_ERR_PROC_ENTRY_NOT_FOUND`: what OpenPMIx answers for a rank
/// outside the job.
const PROC_ENTRY_NOT_FOUND: Status = Status(-17);

/// What was collected: the infos, and whether any of it was posted by the
/// process (else a direct modex is worth asking for).
struct Collected {
    infos: Vec<Info>,
    posted: bool,
}

impl Collected {
    fn add(&mut self, seen: &mut HashSet<Vec<u8>>, key: Key, value: Value) {
        if seen.insert(key.as_bytes().to_vec()) {
            self.infos.push(Info::new(key, value));
        }
    }
}

impl Inner {
    /// Everything this process holds about itself.
    fn all_own(&self) -> Vec<Info> {
        let local = self.local.read();
        let mut internal = local.internal_of(&self.proc);
        internal.retain(|(k, _)| {
            k.as_bytes() != keys::RANK.as_bytes() && !self.own.contains(k.as_bytes())
        });
        let guard = crossbeam_epoch::pin();
        let own = self.own.all(&guard);
        internal
            .into_iter()
            .chain(own.into_iter().map(|(k, p)| (k, &p.value)))
            .map(|(k, v)| Info::new(k.clone(), v.clone()))
            .collect()
    }

    /// Everything held locally about a peer.
    fn all_of_peer(&self, proc: &Proc) -> Collected {
        let mut c = Collected {
            infos: Vec::new(),
            posted: false,
        };
        let mut seen = HashSet::new();
        {
            let r = self.directory.reader();
            if let Some(ns) = r.namespace(&proc.nspace.to_string_lossy()) {
                // A corrupt segment reads as absent (as a keyed get does).
                let entries = ns.rank_entries(proc.rank.0).unwrap_or_default();
                let proc_level: HashSet<&[u8]> = match ns.job_segment() {
                    Some(j) => j
                        .row_entries(pmix_shmem::Realm::Proc(proc.rank.0))
                        .map(|it| {
                            it.filter_map(Result::ok)
                                .map(|(k, _)| k.to_bytes())
                                .collect()
                        })
                        .unwrap_or_default(),
                    None => HashSet::new(),
                };
                for (k, v) in entries {
                    if !proc_level.contains(k.to_bytes()) {
                        c.posted = true;
                    }
                    if let Ok(key) = Key::new(k.to_bytes()) {
                        c.add(&mut seen, key, Value::from(v));
                    }
                }
            }
        }
        let local = self.local.read();
        if let Some(posted) = local.fetched(proc.nspace.as_bytes(), proc.rank.0) {
            c.posted = true;
            for p in posted.iter().rev() {
                c.add(&mut seen, p.key.clone(), p.value.clone());
            }
        }
        for (k, v) in local.internal_of(proc) {
            c.add(&mut seen, k.clone(), v.clone());
        }
        c
    }

    /// The size of `proc`'s job, if its job data is mapped.
    fn job_size_of(&self, proc: &Proc) -> Option<u32> {
        let r = self.directory.reader();
        let ns = r.namespace(&proc.nspace.to_string_lossy())?;
        ns.job(keys::JOB_SIZE)?.as_u32()
    }

    /// The answer from what is held locally, without asking the server.
    fn all_final(&self, proc: &Proc, c: Collected) -> Result<Vec<Info>, Status> {
        if !c.infos.is_empty() {
            return Ok(c.infos);
        }
        match self.job_size_of(proc) {
            Some(n) if proc.rank.0 >= n => Err(PROC_ENTRY_NOT_FOUND),
            _ => Err(Status::ERR_NOT_FOUND),
        }
    }
}

/// The rest of [`Client::get_all_nb`] for a peer, once its namespace is
/// mapped (if it can be).
fn peer_rest(
    inner: std::sync::Arc<Inner>,
    proc: Proc,
    qualifiers: Vec<Info>,
    done: GetAllCallback,
) {
    let opts = GetOptions::parse(&qualifiers);
    let c = inner.all_of_peer(&proc);
    let out_of_job = matches!(inner.job_size_of(&proc), Some(n) if proc.rank.0 >= n);
    if c.posted || opts.directives.optional || out_of_job {
        let r = inner.all_final(&proc, c);
        inner.requester.run_there(Box::new(move || done(r)));
        return;
    }
    let again = inner.clone();
    let req = Message::DmodexRequest(DmodexRequest {
        proc: proc.clone(),
        key: None,
        infos: qualifiers,
    });
    inner.requester.submit(
        req,
        Some(Box::new(move |r| {
            let fetched = again.store_fetched(r);
            let c = again.all_of_peer(&proc);
            // What is here (its job data) is the answer even if the peer
            // never posted; the fetch's error only when nothing is.
            let r = match fetched {
                Err(s) if c.infos.is_empty() => Err(s),
                _ => again.all_final(&proc, c),
            };
            done(r);
        })),
    );
}

impl Client {
    /// `PMIx_Get` with a NULL key: every key held for `proc`, one info
    /// each (see the module documentation for which). A special rank
    /// (`PMIX_RANK_WILDCARD`, ...) is `PMIX_ERR_BAD_PARAM`, a rank outside
    /// its job `PMIX_ERR_PROC_ENTRY_NOT_FOUND`; for a peer whose posts
    /// are not here yet this waits for them as [`get`](Self::get) does
    /// (bounded by `PMIX_TIMEOUT`, skipped under `PMIX_OPTIONAL`).
    pub fn get_all(&self, proc: &Proc, qualifiers: &[Info]) -> Result<Vec<Info>, Status> {
        self.inner.check_active()?;
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        if proc == &self.inner.proc {
            return Ok(self.inner.all_own());
        }
        super::wait_for(|cb| self.get_all_nb(proc, qualifiers, cb))?
    }

    /// `PMIx_Get_nb` with a NULL key: as [`get_all`](Self::get_all);
    /// `done` runs on the progress thread.
    pub fn get_all_nb(
        &self,
        proc: &Proc,
        qualifiers: &[Info],
        done: GetAllCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        if proc == &self.inner.proc {
            let r = Ok(self.inner.all_own());
            self.inner.requester.run_there(Box::new(move || done(r)));
            return Ok(());
        }
        let inner = self.inner.clone();
        let (p, q) = (proc.clone(), qualifiers.to_vec());
        self.fetch_if_unknown_nb(&proc.nspace, Box::new(move || peer_rest(inner, p, q, done)));
        Ok(())
    }
}
