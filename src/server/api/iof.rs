//! I/O forwarding asked by the host: output it delivers for clients
//! (`PMIx_server_IOF_deliver`), input it pushes (`PMIx_IOF_push`,
//! stdin forwarding).

use std::sync::atomic::Ordering;

use super::Server;
use crate::server::iof::room::Chunk;
use crate::server::iof::service::{deliver, forward_stdin, push_for, write_locally, PUSHING_STDIN};
use crate::server::query::{Tap, NOBODY};
use crate::wire::iof::{channel, Push};
use crate::{keys, Info, Proc, Status};

impl Server {
    /// `PMIx_server_IOF_deliver`: `data` written by `source` on `channel`
    /// (one output channel bit) goes to every requester whose pull matches
    /// it; `infos` travel with it (`PMIX_IOF_COMPLETE` with no bytes: the
    /// channel closed). Callable from any thread; never blocks on a
    /// requester (see the module documentation for the buffering policy).
    /// `done` runs on the progress thread once the chunk is queued. With
    /// [`ServerConfig::local_output`](crate::server::ServerConfig::local_output)
    /// set, the data is also written to this process's stdout or stderr.
    pub fn iof_deliver_nb(
        &self,
        source: &Proc,
        channel: u16,
        data: Vec<u8>,
        infos: Vec<Info>,
        done: Option<Box<dyn FnOnce(Status) + Send + 'static>>,
    ) -> Result<(), Status> {
        if channel.count_ones() != 1 || channel & channel::OUTPUT == 0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        if self.config.local_output == Some(true) {
            write_locally(channel, &data);
        }
        let chunk = Chunk {
            source: source.clone(),
            channel,
            data,
            infos,
        };
        if self.run_on_loop(move |st| {
            deliver(st, chunk);
            if let Some(d) = done {
                d(Status::SUCCESS);
            }
        }) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }

    /// `PMIx_IOF_push` in the server's own process: the host's
    /// `push_stdin` gets `data` for the stdin of `targets` (`None`: the
    /// end of that input) as from this server's process, as OpenPMIx
    /// hands it; `done` gets the host's answer, on the progress thread.
    pub fn iof_push_nb(
        &self,
        targets: Vec<Proc>,
        data: Option<Vec<u8>>,
        directives: Vec<Info>,
        done: Box<dyn FnOnce(Status) + Send + 'static>,
    ) -> Result<(), Status> {
        if targets.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let me = self.proc();
        let p = Push {
            targets,
            directives,
            data,
        };
        let tap: Tap =
            Box::new(move |r| done(r.as_ref().err().copied().unwrap_or(Status::SUCCESS)));
        if self.run_on_loop(move |st| push_for(st, NOBODY, &me, p, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }

    /// `PMIx_IOF_push` of this process's own stdin (`PMIX_IOF_PUSH_STDIN`)
    /// in the server's process: a thread reads it chunk by chunk and hands
    /// each to the host's `push_stdin` as [`Server::iof_push_nb`] does,
    /// waiting for the host's answer before reading on, then the end of
    /// input (no bytes, `PMIX_IOF_COMPLETE`); it stops at the first
    /// refusal or when the server is gone. One at a time per process
    /// (stdin is the process's): a second is `PMIX_ERR_BAD_PARAM` while
    /// the first runs.
    pub fn iof_push_stdin(&self, targets: Vec<Proc>, directives: &[Info]) -> Result<(), Status> {
        if targets.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        if PUSHING_STDIN.swap(true, Ordering::AcqRel) {
            return Err(Status::ERR_BAD_PARAM);
        }
        let dirs: Vec<Info> = directives
            .iter()
            .filter(|i| i.key.as_bytes() != keys::IOF_PUSH_STDIN.as_bytes())
            .cloned()
            .collect();
        let notifier = self.notifier.clone();
        let me = self.proc();
        let started = std::thread::Builder::new()
            .name("pmix-server-stdin".into())
            .spawn(move || {
                forward_stdin(&notifier, &me, &targets, &dirs);
                PUSHING_STDIN.store(false, Ordering::Release);
            });
        if started.is_err() {
            PUSHING_STDIN.store(false, Ordering::Release);
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        Ok(())
    }

    /// [`Server::iof_deliver_nb`] without a completion callback.
    pub fn iof_deliver(
        &self,
        source: &Proc,
        channel: u16,
        data: &[u8],
        infos: &[Info],
    ) -> Result<(), Status> {
        self.iof_deliver_nb(source, channel, data.to_vec(), infos.to_vec(), None)
    }
}
