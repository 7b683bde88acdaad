//! Two [`Server`]s in one test process ("node a" holds ranks 0 and 1 of a
//! four-rank job, "node b" ranks 2 and 3), each with a host module of its
//! own, both sharing one [`Fabric`] that does what a resource manager's
//! daemons do between nodes: the allgather of fences (`fence_nb`), of
//! group constructs and destructs (`group`, keyed by operation and id,
//! handing out context ids from one counter and every server's
//! `PMIX_GROUP_ENDPT_DATA`), direct modex (`direct_modex` asks the other
//! server through `Server::dmodex_request`) and event distribution
//! (`notify_event` delivers to both servers through
//! `Server::notify_event`). Used by `server_client` (two-node wire-up,
//! direct modex, a dead rank) and `groups_two_servers`.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use pmix::events::{Event, Range};
use pmix::group::GroupOp;
use pmix::server::{Completion, HostModule, OpOutput, Server, ServerConfig};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

/// Ranks per node: rank `r` lives on node `r / PER_NODE`.
pub const PER_NODE: u32 = 2;

fn info(k: &str, v: Value) -> Info {
    super::info(k, v)
}

/// True if `i` is `key`.
pub fn is(i: &Info, key: &str) -> bool {
    i.key.as_bytes() == key.as_bytes()
}

// ---------------------------------------------------------------------
// The fabric between the two servers.
// ---------------------------------------------------------------------

/// One collective's contributions, gathered from the servers involved.
struct Gather<T: OpOutput, A> {
    /// The nodes that must contribute.
    expected: BTreeSet<usize>,
    /// Those that did.
    arrived: BTreeSet<usize>,
    /// Their completions, not yet answered.
    waiting: Vec<Completion<T>>,
    /// A node's failure (its `PMIX_LOCAL_COLLECTIVE_STATUS`): fails every
    /// contribution, present and to come.
    error: Option<Status>,
    acc: A,
}

/// What the servers asked of the fabric, for the test to check.
#[derive(Default)]
pub struct Seen {
    /// `group` upcalls: (node, op, id, local status).
    pub groups: Vec<(usize, GroupOp, String, Status)>,
    /// `notify_event`: (node, code).
    pub events: Vec<(usize, Status)>,
    /// Context ids handed out, by group id.
    pub cids: HashMap<String, u64>,
    /// Something a host must never see (a server calling twice for one
    /// operation, a server missing).
    pub errors: Vec<String>,
}

type Fences = HashMap<Vec<Proc>, Gather<Vec<u8>, Vec<u8>>>;
type Groups = HashMap<(GroupOp, String), Gather<Vec<Info>, GroupAcc>>;

/// A group's contributions: every server's endpoint data, and whether a
/// context id was asked for.
#[derive(Default)]
struct GroupAcc {
    endpoints: Vec<Info>,
    assign_cid: bool,
}

/// What connects the two servers: the allgathers, direct modex and
/// events a resource manager's daemons would carry.
pub struct Fabric {
    nspace: Nspace,
    servers: OnceLock<Vec<Weak<Server>>>,
    fences: Mutex<Fences>,
    groups: Mutex<Groups>,
    next_cid: AtomicU64,
    pub dmodex: AtomicUsize,
    pub seen: Mutex<Seen>,
}

impl Fabric {
    fn new(nspace: Nspace) -> Fabric {
        Fabric {
            nspace,
            servers: OnceLock::new(),
            fences: Mutex::default(),
            groups: Mutex::default(),
            next_cid: AtomicU64::new(0),
            dmodex: AtomicUsize::new(0),
            seen: Mutex::default(),
        }
    }

    fn server(&self, node: usize) -> Result<Arc<Server>, Status> {
        self.servers
            .get()
            .and_then(|s| s.get(node))
            .and_then(Weak::upgrade)
            .ok_or(Status::ERR_UNREACH)
    }

    fn error(&self, e: String) {
        self.seen.lock().unwrap().errors.push(e);
    }

    /// The nodes hosting `procs` (a wildcard of the job, or another
    /// namespace: both).
    fn nodes_of(&self, procs: &[Proc]) -> BTreeSet<usize> {
        let mut nodes = BTreeSet::new();
        for p in procs {
            if p.nspace == self.nspace && p.rank != Rank::WILDCARD {
                nodes.insert((p.rank.0 / PER_NODE) as usize);
            } else {
                nodes.extend([0, 1]);
            }
        }
        nodes
    }

    /// Node `node` contributes to the collective `key` of `table`; once
    /// every node involved did (or one failed), every contribution is
    /// answered with `finish` of the gathered contributions (or the
    /// failure).
    #[allow(clippy::too_many_arguments)]
    fn contribute<K, T, A>(
        &self,
        table: &Mutex<HashMap<K, Gather<T, A>>>,
        key: K,
        node: usize,
        expected: BTreeSet<usize>,
        error: Option<Status>,
        add: impl FnOnce(&mut A),
        finish: impl FnOnce(A) -> T,
        done: Completion<T>,
    ) where
        K: std::hash::Hash + Eq + Clone + std::fmt::Debug,
        T: OpOutput + Clone,
        A: Default,
    {
        let (answer, result) = {
            let mut t = table.lock().unwrap();
            let g = t.entry(key.clone()).or_insert_with(|| Gather {
                expected,
                arrived: BTreeSet::new(),
                waiting: Vec::new(),
                error: None,
                acc: A::default(),
            });
            if !g.arrived.insert(node) {
                self.error(format!("node {node} called twice for {key:?}"));
            }
            if g.error.is_none() {
                g.error = error;
            }
            add(&mut g.acc);
            g.waiting.push(done);
            let over = g.arrived.is_superset(&g.expected);
            let result = match g.error {
                Some(s) => Some(Err(s)),
                None if over => Some(Ok(finish(std::mem::take(&mut g.acc)))),
                None => None,
            };
            let answer = if result.is_some() {
                std::mem::take(&mut g.waiting)
            } else {
                Vec::new()
            };
            if over {
                t.remove(&key);
            }
            (answer, result)
        };
        if let Some(r) = result {
            for d in answer {
                d.complete(r.clone());
            }
        }
    }

    /// True once no collective is half gathered.
    pub fn idle(&self) -> bool {
        self.fences.lock().unwrap().is_empty() && self.groups.lock().unwrap().is_empty()
    }
}

/// The failure a server reports with `PMIX_LOCAL_COLLECTIVE_STATUS`.
fn local_failure(infos: &[Info]) -> Option<Status> {
    infos
        .iter()
        .find(|i| is(i, keys::LOCAL_COLLECTIVE_STATUS))
        .and_then(|i| match i.value {
            Value::Status(0) => None,
            Value::Status(s) => Some(Status(s)),
            _ => Some(Status::ERR_BAD_PARAM),
        })
}

/// The host module of the server of node `node`.
struct NodeHost {
    node: usize,
    fabric: Arc<Fabric>,
}

impl HostModule for NodeHost {
    fn client_connected(&self, _proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        done.complete(Ok(()));
        Ok(())
    }

    fn client_finalized(&self, _proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        done.complete(Ok(()));
        Ok(())
    }

    fn fences_are_local(&self) -> bool {
        false
    }

    fn fence_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        data: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let f = &self.fabric;
        f.contribute(
            &f.fences,
            procs.to_vec(),
            self.node,
            f.nodes_of(procs),
            local_failure(infos),
            |acc| acc.extend_from_slice(&data),
            |acc| acc,
            done,
        );
        Ok(())
    }

    fn direct_modex(
        &self,
        proc: &Proc,
        _infos: &[Info],
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let f = &self.fabric;
        f.dmodex.fetch_add(1, Ordering::Relaxed);
        if proc.nspace != f.nspace || proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_NOT_FOUND);
        }
        let node = (proc.rank.0 / PER_NODE) as usize;
        if node == self.node {
            f.error(format!("node {node} asked the host for its own {proc:?}"));
            return Err(Status::ERR_NOT_FOUND);
        }
        f.server(node)?
            .dmodex_request(proc, Box::new(move |r| done.complete(r)))
    }

    fn group(
        &self,
        op: GroupOp,
        id: &str,
        procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let f = &self.fabric;
        let failure = local_failure(directives);
        f.seen.lock().unwrap().groups.push((
            self.node,
            op,
            id.to_owned(),
            failure.unwrap_or(Status::SUCCESS),
        ));
        let endpoint = directives
            .iter()
            .find(|i| is(i, keys::GROUP_ENDPT_DATA))
            .cloned();
        if op == GroupOp::Construct && failure.is_none() {
            match &endpoint {
                Some(Info {
                    value: Value::ByteObject(_),
                    ..
                }) => {}
                other => f.error(format!("node {} construct {id}: {other:?}", self.node)),
            }
        }
        let assign = directives
            .iter()
            .any(|i| is(i, keys::GROUP_ASSIGN_CONTEXT_ID) && i.value != Value::Bool(false));
        let gid = id.to_owned();
        f.contribute(
            &f.groups,
            (op, id.to_owned()),
            self.node,
            f.nodes_of(procs),
            failure,
            |acc: &mut GroupAcc| {
                acc.endpoints.extend(endpoint);
                acc.assign_cid |= assign;
            },
            |acc| {
                let mut out = Vec::new();
                if acc.assign_cid {
                    let cid = f.next_cid.fetch_add(1, Ordering::Relaxed) + 1;
                    f.seen.lock().unwrap().cids.insert(gid, cid);
                    out.push(info(keys::GROUP_CONTEXT_ID, Value::Size(cid as usize)));
                }
                out.extend(acc.endpoints);
                out
            },
            done,
        );
        Ok(())
    }

    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: Range,
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let f = &self.fabric;
        f.seen.lock().unwrap().events.push((self.node, status));
        let event = Event {
            status,
            source: source.clone(),
            range,
            infos: infos.to_vec(),
        };
        for node in 0..2 {
            f.server(node)?.notify_event(event.clone(), None)?;
        }
        done.complete(Ok(()));
        Ok(())
    }
}

// ---------------------------------------------------------------------
// The test side: two servers, one job, four clients.
// ---------------------------------------------------------------------

/// A job of four ranks on two servers of this process.
pub struct TwoServers {
    pub fabric: Arc<Fabric>,
    pub servers: Vec<Arc<Server>>,
    pub nspace: Nspace,
}

pub fn two_servers(tag: &str) -> TwoServers {
    let nspace = Nspace::new(format!("grp2-{tag}-{}", std::process::id())).unwrap();
    let fabric = Arc::new(Fabric::new(nspace.clone()));
    let job = vec![
        info(keys::NODE_MAP, Value::string("a,b")),
        info(keys::PROC_MAP, Value::string("0,1;2,3")),
    ];
    let (uid, gid) = pmix::net::my_ids();
    let servers: Vec<Arc<Server>> = ["a", "b"]
        .iter()
        .enumerate()
        .map(|(node, host)| {
            let config = ServerConfig {
                hostname: host.to_string(),
                rank: Rank(node as u32),
                ..ServerConfig::default()
            };
            let module = Arc::new(NodeHost {
                node,
                fabric: fabric.clone(),
            });
            let s = Server::start(config, module).expect("server starts");
            s.register_nspace(&nspace, PER_NODE, &job)
                .expect("register the job");
            for r in 0..PER_NODE {
                let p = Proc::new(nspace.clone(), Rank(node as u32 * PER_NODE + r));
                s.register_client(&p, uid, gid).expect("register a client");
            }
            Arc::new(s)
        })
        .collect();
    assert_ne!(servers[0].uri(), servers[1].uri());
    assert_ne!(servers[0].rendezvous_dir(), servers[1].rendezvous_dir());
    let _ = fabric
        .servers
        .set(servers.iter().map(Arc::downgrade).collect());
    TwoServers {
        fabric,
        servers,
        nspace,
    }
}
