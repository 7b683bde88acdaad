//! `PMIx_Get` and `PMIx_Get_nb` over a [`Client`]: resolving a key in
//! the mapped segments and local caches, else asking the server
//! (`DmodexRequest`) and reading its reply.
//!
//! Invariants: a key found in the segments is served in the calling
//! thread without a lock or a socket; a fetch stores what the server sent
//! before the get is answered again from the caches.

use std::sync::Arc;

use crate::wire::{DmodexRequest, Message};
use crate::{keys, Info, Key, Proc, Rank, Status, Value};

use super::group::GroupTarget;
use super::progress::Reply;
use super::{Answer, Client, GetCallback, GetOptions, Inner, ProcRef};

fn fetch_request(proc: &Proc, key: &str, qualifiers: &[Info]) -> Message {
    Message::DmodexRequest(DmodexRequest {
        proc: proc.clone(),
        key: Key::new(key).ok(),
        infos: qualifiers.to_vec(),
    })
}

/// The rest of [`Client::get_nb`] once the namespace is mapped (if it
/// can be): the local answer, else direct modex.
fn get_nb_rest(
    inner: Arc<Inner>,
    proc: Proc,
    key: String,
    qualifiers: Vec<Info>,
    done: GetCallback,
) {
    let opts = GetOptions::parse(&qualifiers);
    let reserved = keys::is_reserved(&key);
    let mine = proc == inner.proc;
    // PMIX_GET_REFRESH_CACHE: a peer's posted data from the server again.
    let refresh = opts.refresh && !reserved && !mine && proc.rank.0 <= Rank::VALID.0;
    let local = if refresh {
        None
    } else {
        inner.local_value(&proc, &key, &opts)
    };
    if local.is_some()
        || reserved
        || mine
        || proc.rank.0 > Rank::VALID.0
        || opts.directives.optional
    {
        let r = local.ok_or(Status::ERR_NOT_FOUND);
        inner.requester.run_there(Box::new(move || done(r)));
        return;
    }
    let again = inner.clone();
    inner.requester.submit(
        fetch_request(&proc, &key, &qualifiers),
        Some(Box::new(move |r: Reply| {
            let r = again.store_fetched(r).and_then(|_| {
                again
                    .latest_fetched(&proc, &key)
                    .ok_or(Status::ERR_NOT_FOUND)
            });
            done(r);
        })),
    );
}

impl Client {
    /// `PMIx_Get`: the value of `key` for `proc` (see
    /// [`get_with`](Self::get_with)).
    pub fn get(&self, proc: &Proc, key: &str, qualifiers: &[Info]) -> Result<Value, Status> {
        self.get_with(proc, key, qualifiers, |a| a.into_value())
    }

    /// `PMIx_Get`, handing the answer and where it came from to `f`
    /// (borrowed from the segments while `f` runs). The one question a
    /// get asks: the local sources in their order
    /// ([`resolve`](Self::resolve)); then another namespace's job data
    /// (spawned, parent, connected) is mapped and looked at; then, for a
    /// non-reserved key of a specific rank other than this process,
    /// unless `PMIX_OPTIONAL`, its data is fetched by direct modex through
    /// the server, waiting for the peer to commit (bounded by
    /// `PMIX_TIMEOUT`). `PMIX_ERR_NOT_FOUND` if absent. `PMIX_PSET_NAMES`
    /// is asked of the server (see `query::pset_names`).
    pub fn get_with<R>(
        &self,
        proc: &Proc,
        key: &str,
        qualifiers: &[Info],
        f: impl FnOnce(Answer<'_>) -> R,
    ) -> Result<R, Status> {
        self.inner.check_active()?;
        if key.is_empty() || key.len() > crate::MAX_KEYLEN {
            return Err(Status::ERR_BAD_PARAM);
        }
        if key == keys::PSET_NAMES || key == keys::GROUP_NAMES {
            // Sets and groups change after the job data was made: the
            // server knows.
            return self.set_names(proc, key).map(|v| f(Answer::Local(v)));
        }
        let member;
        let proc = match self.group_member(proc, key, qualifiers) {
            GroupTarget::Proc(p) => {
                member = p;
                &member
            }
            GroupTarget::Value(v) => return Ok(f(Answer::Local(v))),
            GroupTarget::Error(s) => return Err(s),
            GroupTarget::NotAGroup => proc,
        };
        let opts = GetOptions::parse(qualifiers);
        let target = ProcRef::from(proc);
        let mut f = Some(f);
        // No reader stays pinned while this waits for the server.
        let mut attempt = || {
            let r = self.reader();
            let view = Inner::view_of(&r, target.nspace);
            let a = self.inner.resolve(&r, view, target, key, &opts)?;
            f.take().map(|f| f(a))
        };
        let mine = proc == &self.inner.proc;
        // PMIX_GET_REFRESH_CACHE: a peer's posted data from the server
        // again, whatever is held here (the latest fetched answers).
        let refresh =
            opts.refresh && !keys::is_reserved(key) && !mine && proc.rank.0 <= Rank::VALID.0;
        if refresh {
            self.fetch(proc, key, qualifiers)?;
            let v = self
                .inner
                .latest_fetched(proc, key)
                .ok_or(Status::ERR_NOT_FOUND)?;
            return f
                .take()
                .map(|f| f(Answer::Local(v)))
                .ok_or(Status::ERR_NOT_FOUND);
        }
        if let Some(v) = attempt() {
            return Ok(v);
        }
        // Another namespace's job data (spawned, parent, connected).
        if self.fetch_if_unknown(&proc.nspace) {
            if let Some(v) = attempt() {
                return Ok(v);
            }
        }
        // Reserved keys come from the host's job data only, never from a
        // peer's posts; nobody but this process can supply its own data:
        // never wait for it through the server (as OpenPMIx).
        if keys::is_reserved(key) || mine || proc.rank.0 > Rank::VALID.0 || opts.directives.optional
        {
            return Err(Status::ERR_NOT_FOUND);
        }
        self.fetch(proc, key, qualifiers)?;
        attempt().ok_or(Status::ERR_NOT_FOUND)
    }

    /// `PMIx_Get_nb`: as [`get`](Self::get); `done` runs on the progress
    /// thread with the result (also when it was found locally).
    pub fn get_nb(
        &self,
        proc: &Proc,
        key: &str,
        qualifiers: &[Info],
        done: GetCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if key.is_empty() || key.len() > crate::MAX_KEYLEN {
            return Err(Status::ERR_BAD_PARAM);
        }
        if key == keys::PSET_NAMES {
            return self.set_names_nb(proc, keys::PSET_NAMES, done);
        }
        if key == keys::GROUP_NAMES {
            return self.set_names_nb(proc, keys::GROUP_NAMES, done);
        }
        let member;
        let proc = match self.group_member(proc, key, qualifiers) {
            GroupTarget::Proc(p) => {
                member = p;
                &member
            }
            GroupTarget::Value(v) => {
                self.inner
                    .requester
                    .run_there(Box::new(move || done(Ok(v))));
                return Ok(());
            }
            GroupTarget::Error(s) => return Err(s),
            GroupTarget::NotAGroup => proc,
        };
        let opts = GetOptions::parse(qualifiers);
        if let Some(v) = self.inner.local_value(proc, key, &opts) {
            self.inner
                .requester
                .run_there(Box::new(move || done(Ok(v))));
            return Ok(());
        }
        // Another namespace's job data (spawned, parent, connected) is
        // mapped first (at once if it already is).
        let inner = self.inner.clone();
        let (p, k, q) = (proc.clone(), key.to_owned(), qualifiers.to_vec());
        self.fetch_if_unknown_nb(
            &proc.nspace,
            Box::new(move || get_nb_rest(inner, p, k, q, done)),
        );
        Ok(())
    }

    /// Direct modex: asks the server for `proc`'s data and caches it.
    fn fetch(&self, proc: &Proc, key: &str, qualifiers: &[Info]) -> Result<(), Status> {
        let r = self
            .inner
            .requester
            .call(fetch_request(proc, key, qualifiers));
        self.inner.store_fetched(r)
    }
}
