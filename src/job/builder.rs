//! The registration a launcher passes for a job on one node (what
//! `pmixrun` registers): every standard job, application, node and process
//! key, in the forms of section 16.2.3.2 of the standard — maps made by the
//! generators, one `PMIX_APP_INFO_ARRAY` per application, a
//! `PMIX_NODE_INFO_ARRAY` for the node and a `PMIX_PROC_DATA` array per
//! rank — so that `PMIx_server_register_nspace` receives from our own
//! launcher exactly what a complete host would send.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::derived_keys::rank_list;
use super::description::{info, JobDescription};
use crate::keys as k;
use crate::regex::{generate_node_regex, generate_ppn};
use crate::{Info, Nspace, Status, Value};

/// One application context (`-n NP PROGRAM ARGS...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppContext {
    /// Number of processes.
    pub np: u32,
    /// The command line (`PMIX_APP_ARGV`, joined by spaces).
    pub argv: Vec<String>,
    /// The working directory (`PMIX_WDIR`).
    pub cwd: Option<PathBuf>,
    /// The process set its ranks form (`PMIX_PSET_NAME`, as PRRTE's
    /// `--pset`).
    pub pset: Option<String>,
}

impl AppContext {
    /// `np` processes of a program not described further.
    pub fn new(np: u32) -> Self {
        AppContext {
            np,
            ..AppContext::default()
        }
    }

    /// With a command line.
    pub fn argv<I, S>(mut self, argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.argv = argv.into_iter().map(Into::into).collect();
        self
    }

    /// With a working directory.
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Whose ranks form the process set `name`.
    pub fn pset(mut self, name: impl Into<String>) -> Self {
        self.pset = Some(name.into());
        self
    }
}

/// A job of one or more applications, all of whose ranks run on this node.
/// Ranks are numbered application after application.
#[derive(Clone, Debug)]
pub struct SingleNodeJob {
    nspace: Nspace,
    hostname: String,
    apps: Vec<AppContext>,
    tmpdir: Option<PathBuf>,
    cpusets: Option<Vec<String>>,
    slots: Option<u32>,
    univ_size: Option<u32>,
    session_id: Option<u32>,
    extra: Vec<Info>,
}

fn path_value(p: &Path) -> Value {
    Value::String(CString::new(p.as_os_str().as_bytes()).ok())
}

fn array(items: Vec<Info>) -> Value {
    Value::info_array(items)
}

impl SingleNodeJob {
    /// A job in `nspace` on the node called `hostname`.
    pub fn new(nspace: &Nspace, hostname: &str) -> Self {
        SingleNodeJob {
            nspace: nspace.clone(),
            hostname: hostname.to_owned(),
            apps: Vec::new(),
            tmpdir: None,
            cpusets: None,
            slots: None,
            univ_size: None,
            session_id: None,
            extra: Vec::new(),
        }
    }

    /// Adds an application (numbered from 0 in the order added).
    pub fn app(mut self, app: AppContext) -> Self {
        self.apps.push(app);
        self
    }

    /// The session's temporary directory (`PMIX_TMPDIR`); the job's
    /// (`PMIX_NSDIR`) is `TMPDIR/NSPACE` and each process's
    /// (`PMIX_PROCDIR`) `TMPDIR/NSPACE/RANK`. Nothing is created.
    pub fn tmpdir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.tmpdir = Some(dir.into());
        self
    }

    /// The cpuset of each rank (hwloc list syntax, e.g. `0-3`, optionally
    /// `hwloc:`-prefixed), when the launcher binds processes.
    pub fn cpusets(mut self, cpusets: Vec<String>) -> Self {
        self.cpusets = Some(cpusets);
        self
    }

    /// The processes the node can run at once (its cpus): a job of more
    /// ranks oversubscribes it, which the node's info says with
    /// `PMIX_NODE_OVERSUBSCRIBED` (true; absent otherwise, as PRRTE
    /// registers it and Open MPI reads it: present means oversubscribed,
    /// and its ranks then yield the cpu when idle). Default: not said.
    pub fn slots(mut self, n: u32) -> Self {
        self.slots = Some(n);
        self
    }

    /// `PMIX_UNIV_SIZE` (default: the job size).
    pub fn univ_size(mut self, n: u32) -> Self {
        self.univ_size = Some(n);
        self
    }

    /// `PMIX_SESSION_ID` (default: none).
    pub fn session_id(mut self, id: u32) -> Self {
        self.session_id = Some(id);
        self
    }

    /// Any further job-level info.
    pub fn job_info(mut self, i: Info) -> Self {
        self.extra.push(i);
        self
    }

    /// Number of processes (the `nlocalprocs` of the registration).
    pub fn size(&self) -> u32 {
        self.apps.iter().map(|a| a.np).sum()
    }

    /// The registration's info array.
    pub fn infos(&self) -> Result<Vec<Info>, Status> {
        let size = self.size();
        if let Some(c) = &self.cpusets {
            if c.len() != size as usize {
                return Err(Status::ERR_BAD_PARAM);
            }
        }
        let ns = self.nspace.to_string_lossy().into_owned();
        let all: Vec<u32> = (0..size).collect();
        let peers = rank_list(&all);
        let nsdir = self.tmpdir.as_ref().map(|t| t.join(&ns));
        let mut v: Vec<Info> = Vec::new();

        // Session.
        let mut session = Vec::new();
        if let Some(id) = self.session_id {
            session.push(info(k::SESSION_ID, Value::Uint32(id)));
        }
        session.push(info(
            k::UNIV_SIZE,
            Value::Uint32(self.univ_size.unwrap_or(size)),
        ));
        if let Some(t) = &self.tmpdir {
            session.push(info(k::TMPDIR, path_value(t)));
        }
        if self.session_id.is_some() {
            v.push(info(k::SESSION_INFO_ARRAY, array(session)));
        } else {
            v.extend(session);
        }

        // Job.
        v.push(info(k::JOBID, Value::string(&ns)));
        v.push(info(k::JOB_SIZE, Value::Uint32(size)));
        v.push(info(k::MAX_PROCS, Value::Uint32(size)));
        v.push(info(k::NUM_NODES, Value::Uint32(1)));
        v.push(info(k::JOB_NUM_APPS, Value::Uint32(self.apps.len() as u32)));
        if size > 0 {
            // A map cannot describe a node without ranks.
            v.push(info(
                k::NODE_MAP,
                Value::string(&generate_node_regex(&self.hostname)),
            ));
            v.push(info(k::PROC_MAP, Value::string(&generate_ppn(&peers))));
        }
        v.push(info(k::NODE_LIST, Value::string(&self.hostname)));
        if let Some(d) = &nsdir {
            v.push(info(k::NSDIR, path_value(d)));
        }
        v.extend(self.extra.iter().cloned());

        // Node.
        let mut node = vec![
            info(k::NODEID, Value::Uint32(0)),
            info(k::HOSTNAME, Value::string(&self.hostname)),
            info(k::LOCAL_SIZE, Value::Uint32(size)),
            info(k::NODE_SIZE, Value::Uint32(size)),
            info(k::LOCAL_PEERS, Value::string(&peers)),
        ];
        if size > 0 {
            node.push(info(k::LOCALLDR, Value::ProcRank(0)));
        }
        if self.slots.is_some_and(|slots| size > slots) {
            node.push(info(k::NODE_OVERSUBSCRIBED, Value::Bool(true)));
        }
        if let Some(c) = &self.cpusets {
            let lists: Vec<&str> = c
                .iter()
                .map(|s| s.strip_prefix("hwloc:").unwrap_or(s))
                .collect();
            node.push(info(k::LOCAL_CPUSETS, Value::string(&lists.join(":"))));
        }
        v.push(info(k::NODE_INFO_ARRAY, array(node)));

        // Applications and processes.
        let mut first = 0u32;
        for (n, app) in self.apps.iter().enumerate() {
            let mut a = vec![
                info(k::APPNUM, Value::Uint32(n as u32)),
                info(k::APP_SIZE, Value::Uint32(app.np)),
                info(k::MAX_PROCS, Value::Uint32(app.np)),
                info(k::NUM_NODES, Value::Uint32(u32::from(app.np > 0))),
            ];
            if app.np > 0 {
                a.push(info(k::APPLDR, Value::ProcRank(first)));
            }
            if !app.argv.is_empty() {
                a.push(info(k::APP_ARGV, Value::string(&app.argv.join(" "))));
            }
            if let Some(cwd) = &app.cwd {
                a.push(info(k::WDIR, path_value(cwd)));
            }
            if let Some(name) = &app.pset {
                a.push(info(k::PSET_NAME, Value::string(name)));
            }
            v.push(info(k::APP_INFO_ARRAY, array(a)));
            for i in 0..app.np {
                let rank = first + i;
                let mut p = vec![
                    info(k::RANK, Value::ProcRank(rank)),
                    info(k::APPNUM, Value::Uint32(n as u32)),
                    info(k::APP_RANK, Value::ProcRank(i)),
                    info(k::GLOBAL_RANK, Value::ProcRank(rank)),
                    info(k::LOCAL_RANK, Value::Uint16(rank as u16)),
                    info(k::NODE_RANK, Value::Uint16(rank as u16)),
                    info(k::NODEID, Value::Uint32(0)),
                    info(k::HOSTNAME, Value::string(&self.hostname)),
                ];
                if let Some(d) = &nsdir {
                    p.push(info(k::PROCDIR, path_value(&d.join(rank.to_string()))));
                }
                if let Some(c) = &self.cpusets {
                    let cs = &c[rank as usize];
                    let cs = if cs.starts_with("hwloc:") {
                        cs.clone()
                    } else {
                        format!("hwloc:{cs}")
                    };
                    p.push(info(k::CPUSET, Value::string(&cs)));
                }
                v.push(info(k::PROC_DATA, array(p)));
            }
            first += app.np;
        }
        Ok(v)
    }

    /// The job description the registration yields.
    pub fn describe(&self) -> Result<JobDescription, Status> {
        JobDescription::from_registration(&self.nspace, self.size(), &self.infos()?, &self.hostname)
    }
}

impl JobDescription {
    /// The description of a job on one node: `apps` numbered from 0, ranks
    /// numbered application after application, temporary directories
    /// under `tmpdir` if given. Equivalent to registering
    /// [`SingleNodeJob::infos`].
    pub fn single_node(
        nspace: &Nspace,
        apps: &[AppContext],
        hostname: &str,
        tmpdir: Option<&Path>,
    ) -> Result<JobDescription, Status> {
        let mut job = SingleNodeJob::new(nspace, hostname);
        for a in apps {
            job = job.app(a.clone());
        }
        if let Some(t) = tmpdir {
            job = job.tmpdir(t);
        }
        job.describe()
    }
}
