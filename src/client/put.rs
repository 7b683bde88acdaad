//! `PMIx_Put`, `PMIx_Commit` and `PMIx_Fence`(`_nb`) over a [`Client`]:
//! the process's own values and the collective that exchanges them.
//!
//! Invariants: a put is visible to the process's own gets at once (they
//! read it without a lock: see `own_puts`); a
//! commit sends what was put since the last one; a fence returns once the
//! server released it and its segments are mapped.

use crate::wire::{self, FenceRequest, Message, Posted};
use crate::{Info, Key, Proc, Status, Value};

use super::progress::Reply;
use super::{Client, Inner, StatusCallback};
use pmix_shmem::Scope;

impl Client {
    /// `PMIx_Put`: posts `value` under `key` with `scope`, to be sent at
    /// the next [`commit`](Self::commit) (`PMIX_INTERNAL` stays here).
    pub fn put(&self, scope: Scope, key: &str, value: Value) -> Result<(), Status> {
        self.inner.check_active()?;
        let key = Key::new(key)?;
        if key.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let mut local = self.inner.local.write();
        self.inner.own.put(&key, value.clone());
        if scope == Scope::Internal {
            local.store_internal(&self.inner.proc, key, value);
            return Ok(());
        }
        wire::merge_posted(&mut local.uncommitted, vec![Posted { scope, key, value }]);
        Ok(())
    }

    /// `PMIx_Commit`: sends what was put since the last commit to the
    /// server, where local peers (direct modex) and fences find it.
    pub fn commit(&self) -> Result<(), Status> {
        self.inner.check_active()?;
        let items = std::mem::take(&mut self.inner.local.write().uncommitted);
        self.inner.fast.committed();
        self.inner.requester.submit(Message::Commit(items), None);
        Ok(())
    }

    /// `PMIx_Fence`: waits until every process of `procs` (empty: this
    /// process's namespace) entered the fence; with `PMIX_COLLECT_DATA`,
    /// their committed data is then readable locally.
    pub fn fence(&self, procs: &[Proc], infos: &[Info]) -> Result<(), Status> {
        self.inner.check_active()?;
        Inner::fence(&self.inner, procs, infos)
    }

    /// `PMIx_Fence_nb`: as [`fence`](Self::fence); `done` runs on the
    /// progress thread once the fence completed and its data is mapped.
    pub fn fence_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if self.inner.fast.applies(&self.inner.proc, procs) {
            // The page's wait blocks: a thread of its own waits, and the
            // callback runs on the progress thread as every `_nb` one.
            let inner = self.inner.clone();
            let (procs, infos) = (procs.to_vec(), infos.to_vec());
            std::thread::Builder::new()
                .name("pmix-fence-nb".into())
                .spawn(move || {
                    let s = Inner::fence(&inner, &procs, &infos)
                        .err()
                        .unwrap_or(Status::SUCCESS);
                    inner.requester.run_there(Box::new(move || done(s)));
                })
                .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
            return Ok(());
        }
        let inner = self.inner.clone();
        let commits = self.inner.fast.commits();
        let req = Message::FenceRequest(FenceRequest {
            procs: procs.to_vec(),
            infos: infos.to_vec(),
        });
        self.inner.requester.submit(
            req,
            Some(Box::new(move |r: Reply| {
                let s = inner.fence_released(r);
                if s == Status::SUCCESS {
                    inner.fast.synced(commits);
                }
                done(s)
            })),
        );
        Ok(())
    }
}
