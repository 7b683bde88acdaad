//! What a host registers with the server (namespaces, clients), what
//! it prepares for a client it launches (`setup_fork`, application
//! setup) and the data it asks the server for (`dmodex_request`).

use super::Server;
use crate::server::command::Command;
use crate::server::host::DmodexCallback;
use crate::server::host_side::{
    self, app_setup::application_setup, app_setup::EnvChange, app_setup::EnvEdit,
};
use crate::{Info, Nspace, Proc, Rank, Status};

impl Server {
    /// `PMIx_server_register_nspace`: describes a job with `nlocalprocs`
    /// processes on this node. Builds the namespace's job segment (every
    /// form of job description the standard allows, see
    /// [`crate::job::JobDescription`]); clients of the namespace receive it
    /// when they connect. Registering an existing namespace replaces its
    /// description for clients that connect afterwards. The process sets
    /// the registration carries (an application's `PMIX_PSET_NAME`, as
    /// PRRTE registers `--pset`) join the server's table, without events.
    /// What [`Server::register_resources`] holds joins the job-level data.
    pub fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocalprocs: u32,
        infos: &[Info],
    ) -> Result<(), Status> {
        let infos = self.with_resources(infos);
        let psets = self.registry.register_nspace(
            nspace,
            nlocalprocs,
            &infos,
            &self.config.hostname,
            &crate::server::registry::Derivations {
                locality: self.config.locality,
                device_distances: self.config.device_distances,
                node_inventories: self.node_inventories(),
            },
        )?;
        if !psets.is_empty() {
            self.run_on_loop(move |st| {
                for (name, members) in psets {
                    let _ = st.psets_mut().define(&name, members);
                }
            });
        }
        Ok(())
    }

    /// `PMIx_server_deregister_nspace`: forgets the namespace, its clients,
    /// its committed data and its segments.
    pub fn deregister_nspace(&self, nspace: &Nspace) {
        self.local_support.lock().remove(nspace);
        let clients = self.registry.deregister_nspace(nspace);
        for p in clients {
            self.notifier.send(Command::ClientGone(p));
        }
        self.notifier.send(Command::NspaceGone(nspace.clone()));
    }

    /// `PMIx_server_register_client`: a local process of a registered
    /// namespace and the uid/gid it will run as. Its connection is
    /// accepted only from a process with those ids.
    pub fn register_client(&self, proc: &Proc, uid: u32, gid: u32) -> Result<(), Status> {
        self.registry.register_client(proc, uid, gid)
    }

    /// The host's word that its local process `proc` ended (a launcher
    /// reaped it). A process that never connected (it died starting up)
    /// then departs as a lost connection does: the collectives and
    /// waits that expect it fail instead of waiting for it. A connected
    /// process departs when its connection closes; this changes nothing
    /// for it.
    pub fn client_terminated(&self, proc: &Proc) {
        let p = proc.clone();
        self.notifier.send(Command::Run(Box::new(move |st| {
            st.conns_mut().terminated(&p)
        })));
    }

    /// `PMIx_server_deregister_client`: forgets the client and closes its
    /// connection if open.
    pub fn deregister_client(&self, proc: &Proc) {
        self.registry.deregister_client(proc);
        self.notifier.send(Command::ClientGone(proc.clone()));
    }

    /// `PMIx_server_setup_fork`: the environment variables the child that
    /// will be `proc` needs (see `host_side::env` for the list), in a stable
    /// order. Generates the process's secret if it has none yet. The
    /// namespace's `setup_local_support` directives (which may unset or
    /// extend existing variables) come with
    /// [`setup_fork_changes`](Self::setup_fork_changes) instead.
    pub fn setup_fork(&self, proc: &Proc) -> Result<Vec<(String, String)>, Status> {
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        let secret = self.registry.secret_for(proc)?;
        Ok(host_side::env::client_env(
            proc,
            &self.uri,
            self.stock_uri.as_deref(),
            self.dir.path(),
            &self.config,
            &secret,
        ))
    }

    /// `PMIx_server_setup_fork` as changes to an existing environment
    /// (whose current values `current` returns): the variables of
    /// [`setup_fork`](Self::setup_fork), then the environment directives
    /// [`setup_local_support`](Self::setup_local_support) kept for the
    /// process's namespace.
    pub fn setup_fork_changes(
        &self,
        proc: &Proc,
        current: impl Fn(&str) -> Option<String>,
    ) -> Result<Vec<EnvChange>, Status> {
        let vars = self.setup_fork(proc)?;
        let mut edits: Vec<EnvEdit> = vars
            .into_iter()
            .map(|(name, value)| EnvEdit::Set { name, value })
            .collect();
        if let Some(more) = self.local_support.lock().get(&proc.nspace) {
            edits.extend(more.iter().cloned());
        }
        Ok(host_side::app_setup::apply(&edits, current))
    }

    /// `PMIx_server_setup_application`: the application-specific setup
    /// of job `nspace` for the launcher to hand to every node's
    /// [`setup_local_support`](Self::setup_local_support) (see
    /// [`app_setup`] for what it holds: the harvested environment).
    /// Reads this process's environment; the same as
    /// [`application_setup`], which needs no server.
    pub fn setup_application(&self, nspace: &Nspace, infos: &[Info]) -> Result<Vec<Info>, Status> {
        application_setup(nspace, infos)
    }

    /// `PMIx_server_setup_local_support`: keeps the environment directives
    /// among `infos` (`PMIX_SET_ENVAR`, `PMIX_UNSET_ENVAR`,
    /// `PMIX_PREPEND_ENVAR`, `PMIX_APPEND_ENVAR`, as returned by
    /// [`setup_application`](Self::setup_application)) for namespace
    /// `nspace`, replacing earlier ones; [`setup_fork_changes`]
    /// (Self::setup_fork_changes) applies them. The namespace need not be
    /// registered yet.
    pub fn setup_local_support(&self, nspace: &Nspace, infos: &[Info]) -> Result<(), Status> {
        if nspace.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let edits = host_side::app_setup::edits_of(infos)?;
        self.local_support.lock().insert(nspace.clone(), edits);
        Ok(())
    }

    /// `PMIx_server_dmodex_request`: the data local process `proc` posted
    /// (its remote and global scopes, as a modex blob), for the host to
    /// forward to the server that asked. `done` runs on the progress
    /// thread once `proc` has committed (never before this returns).
    /// `PMIX_ERR_NOT_FOUND` (and `done` is not called) if `proc` is not a
    /// local process of a registered namespace.
    pub fn dmodex_request(&self, proc: &Proc, done: DmodexCallback) -> Result<(), Status> {
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        if !self.registry.is_local(proc) {
            return Err(Status::ERR_NOT_FOUND);
        }
        if !self.notifier.send(Command::HostDmodex {
            proc: proc.clone(),
            done,
        }) {
            return Err(Status::ERR_INIT);
        }
        Ok(())
    }
}
