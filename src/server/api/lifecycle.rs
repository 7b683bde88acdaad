//! Starting and stopping a server, and what a host asks of it as a whole:
//! its URI, identity, configuration, census, deferred work.

use std::path::Path;
use std::sync::Arc;

use crossbeam_channel::unbounded;

use super::{Server, ServerConfig, ServerError};
use crate::net::{Listener, RendezvousDir};
use crate::server::command::{Command, Notifier};
use crate::server::registry::Registry;
use crate::server::{clients, event_loop, host_side, stock, Census, HostModule};
use crate::Proc;

/// The server's fixed `malloc` mapping threshold: glibc's default.
const MMAP_THRESHOLD: libc::c_int = 128 << 10;

impl Server {
    /// Creates the rendezvous socket and starts the progress thread.
    /// First removes what servers of this user that died without
    /// cleaning up (killed by `SIGKILL`) left in `tmpdir`: their
    /// rendezvous directories and tool files (see
    /// [`crate::net::remove_stale_dirs`]).
    pub fn start(config: ServerConfig, host: Arc<dyn HostModule>) -> Result<Server, ServerError> {
        // Before the progress thread's allocator warm-up frees its large
        // block: the server's memory stays what it holds (a registration
        // of 131,072 ranks leaves 10 MiB resident instead of 17-20 MiB,
        // docs/PERFORMANCE.md).
        crate::sys::fix_mmap_threshold(MMAP_THRESHOLD);
        crate::net::remove_stale_dirs(&config.tmpdir, "pmix-rs");
        crate::net::tool_files::remove_stale(&config.tmpdir, &config.hostname);
        let dir =
            RendezvousDir::create(&config.tmpdir, "pmix-rs").map_err(ServerError::Rendezvous)?;
        let listener = Listener::bind(&dir.socket_path()).map_err(ServerError::Rendezvous)?;
        if let Some((uid, gid)) = config.rendezvous_owner {
            dir.give_to(uid, gid).map_err(ServerError::Rendezvous)?;
        }
        let uri = format!(
            "{}.{};unix://{}",
            config.nspace,
            config.rank.0,
            dir.socket_path().display()
        );
        if let Some(target) = &config.report_uri {
            host_side::report_uri::report(target, &uri).map_err(ServerError::ReportUri)?;
        }
        let registry = Arc::new(Registry::new(host.fences_are_local()));
        let poll = mio::Poll::new().map_err(ServerError::Loop)?;
        let waker = Arc::new(
            mio::Waker::new(poll.registry(), clients::connections::WAKER)
                .map_err(ServerError::Loop)?,
        );
        let (tx, rx) = unbounded();
        let notifier = Notifier::new(tx, waker);
        let server_proc = Proc::new(config.nspace.clone(), config.rank);
        let events = Arc::new(crate::events::EventHandlers::new(Some(server_proc.clone())));
        let stock = if config.stock_door {
            stock::StockListeners::bind(&server_proc, &config.hostname).ok()
        } else {
            None
        };
        let stock_uri = stock.as_ref().map(|s| s.uri.clone());
        let tools = config.tool_support || config.session_support || config.system_support;
        let tool_files = if tools {
            use crate::net::tool_files as tf;
            let host_name = &config.hostname;
            let mut paths = Vec::new();
            if config.tool_support {
                paths.push(tf::by_pid(&config.tmpdir, host_name, std::process::id()));
                paths.push(tf::by_nspace(
                    &config.tmpdir,
                    host_name,
                    &config.nspace.to_string_lossy(),
                ));
            }
            if config.session_support {
                paths.push(tf::session(&config.tmpdir, host_name));
            }
            if config.system_support {
                paths.push(tf::system(&config.system_tmpdir, host_name));
            }
            Some(
                // OpenPMIx's tools read the door's URI; ours the socket's.
                crate::net::tool_files::ToolFiles::write_with_door(
                    &uri,
                    stock_uri.as_deref(),
                    paths,
                )
                .map_err(ServerError::Rendezvous)?,
            )
        } else {
            None
        };
        let el = event_loop::EventLoop::new(
            poll,
            listener,
            rx,
            notifier.clone(),
            registry.clone(),
            host,
            server_proc,
            config.max_message,
            events.clone(),
            tools,
            stock,
        )
        .map_err(ServerError::Loop)?;
        let thread = std::thread::Builder::new()
            .name("pmix-server".into())
            .spawn(move || el.run())
            .map_err(ServerError::Loop)?;
        Ok(Server {
            registry,
            notifier,
            thread: Some(thread),
            uri,
            stock_uri,
            config,
            dir,
            local_support: Default::default(),
            events,
            resources: Default::default(),
            inventory: Default::default(),
            _tool_files: tool_files,
        })
    }

    /// The URI clients connect to (`PMIX_SERVER_URI*`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The rendezvous directory (`PMIX_SERVER_TMPDIR`).
    pub fn rendezvous_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's identity.
    pub fn proc(&self) -> Proc {
        Proc::new(self.config.nspace.clone(), self.config.rank)
    }

    /// The configuration the server runs with.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// True on the server's progress thread (inside an upcall), where a
    /// call waiting for the server would wait for itself.
    pub fn on_progress_thread(&self) -> bool {
        self.notifier.on_loop_thread()
    }

    /// How many entries each room of the server's state holds now (see
    /// [`Census`]); `None` once the server has stopped. For finding state
    /// that outlives its owner; waits for the progress thread.
    pub fn census(&self) -> Option<Census> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if !self.run_on_loop(move |st| {
            let _ = tx.send(st.census());
        }) {
            return None;
        }
        rx.recv_timeout(std::time::Duration::from_secs(10)).ok()
    }

    /// Runs `f` on the progress thread, after what is queued there now;
    /// gives `f` back if the server has stopped. For work that must not
    /// run in the caller's thread: a host that calls back while holding a
    /// lock its own release function takes (Slurm 22.05's fence) gets that
    /// release function called from here, after its callback returned.
    pub fn defer(&self, f: Box<dyn FnOnce() + Send>) -> Result<(), Box<dyn FnOnce() + Send>> {
        match self.notifier.try_send(Command::Defer(f)) {
            Err(Command::Defer(f)) => Err(f),
            _ => {
                // A loop that cannot be woken is stopping; what it had
                // queued is dropped with it.
                self.notifier.wake();
                Ok(())
            }
        }
    }

    /// `PMIx_server_finalize`: stops the server.
    pub fn finalize(mut self) {
        self.stop();
    }

    pub(super) fn stop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.notifier.send(Command::Shutdown);
            let _ = t.join();
        }
        self.events.shutdown();
    }
}
