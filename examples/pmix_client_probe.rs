//! A PMIx client that checks what a launcher gave it, for `pmixrun`'s
//! tests and as the README's first job:
//!
//! ```text
//! pmix_client_probe [MODE [VICTIM]] [--apps N0,N1,...]
//! ```
//!
//! Modes (default `wireup`):
//! - `keys`: every reserved key a client expects, with its type and value;
//! - `wireup`: `keys`, then a put in every scope, commit, a collecting
//!   fence and a get of every peer's data, then a last fence;
//! - `dmodex`: gets of peers' posted data without a fence;
//! - `subsets`: even and odd ranks fence separately;
//! - `die-before-fence V`: rank V kills itself (SIGKILL) after init, the
//!   others enter a fence;
//! - `fence-victim V`: rank V prints `victim pid=PID` and blocks; the others
//!   print `entering fence` and enter a fence (the test kills V);
//! - `abort V`: rank V calls `PMIx_Abort(5, "probe abort")`, the others
//!   block;
//! - `block`: prints `blocking` and blocks;
//! - `no-finalize V`: rank V exits 0 without `PMIx_Finalize`, the others
//!   block.
//!
//! `--apps` gives the sizes of the job's applications (default: one
//! application of the job's size). On success each rank prints
//! `probe rank R of N: MODE ok` and exits 0; on a failed check it prints
//! the reason to stderr and exits 1. "Blocks" means waiting until the
//! launcher terminates it.

#[path = "support/client_checks.rs"]
mod client_checks;

use client_checks::{check, collect, key, optional, R};
use pmix::client::{Client, Scope};
use pmix::{keys, Info, Proc, Rank, Status, Value};

fn get(c: &Client, p: &Proc, k: &str, q: &[Info]) -> Result<Value, String> {
    c.get(p, k, q).map_err(|s| format!("get {k}: {s}"))
}

/// Blocks until the launcher terminates this process.
fn block() -> ! {
    loop {
        std::thread::park();
    }
}

struct Probe {
    c: Client,
    me: Proc,
    size: u32,
    apps: Vec<u32>,
}

impl Probe {
    fn proc(&self, r: u32) -> Proc {
        Proc::new(self.me.nspace.clone(), Rank(r))
    }

    fn wild(&self) -> Proc {
        Proc::new(self.me.nspace.clone(), Rank::WILDCARD)
    }

    /// The application of `rank`: (appnum, first rank, size).
    fn app_of(&self, rank: u32) -> (u32, u32, u32) {
        let mut first = 0;
        for (n, &np) in self.apps.iter().enumerate() {
            if rank < first + np {
                return (n as u32, first, np);
            }
            first += np;
        }
        panic!("rank {rank} outside the applications {:?}", self.apps)
    }

    fn keys(&self) -> R {
        let (c, me, n) = (&self.c, &self.me, self.size);
        let w = self.wild();
        let r = me.rank.0;
        let ns = me.nspace.to_string();
        let (appnum, first, app_size) = self.app_of(r);
        let all: Vec<String> = (0..n).map(|x| x.to_string()).collect();
        let host = pmix::server::local_hostname();
        let expect = [
            (w.clone(), keys::JOB_SIZE, Value::Uint32(n)),
            (w.clone(), keys::MAX_PROCS, Value::Uint32(n)),
            (w.clone(), keys::UNIV_SIZE, Value::Uint32(n)),
            (w.clone(), keys::NUM_NODES, Value::Uint32(1)),
            (w.clone(), keys::LOCAL_SIZE, Value::Uint32(n)),
            (w.clone(), keys::NODE_SIZE, Value::Uint32(n)),
            (w.clone(), keys::LOCALLDR, Value::ProcRank(0)),
            (w.clone(), keys::LOCAL_PEERS, Value::string(&all.join(","))),
            (w.clone(), keys::NSPACE, Value::string(&ns)),
            (w.clone(), keys::JOBID, Value::string(&ns)),
            (
                w.clone(),
                keys::JOB_NUM_APPS,
                Value::Uint32(self.apps.len() as u32),
            ),
            (w.clone(), keys::NODE_LIST, Value::string(&host)),
            (me.clone(), keys::GLOBAL_RANK, Value::ProcRank(r)),
            (me.clone(), keys::APP_RANK, Value::ProcRank(r - first)),
            (me.clone(), keys::APPNUM, Value::Uint32(appnum)),
            (me.clone(), keys::LOCAL_RANK, Value::Uint16(r as u16)),
            (me.clone(), keys::NODE_RANK, Value::Uint16(r as u16)),
            (me.clone(), keys::NODEID, Value::Uint32(0)),
            (me.clone(), keys::HOSTNAME, Value::string(&host)),
        ];
        // PMIX_RANK identifies a rank in the registration (the first key
        // of its PMIX_PROC_DATA); a client learns its own from PMIx_Init
        // (OpenPMIx does not store it as a key either).
        let env_rank = std::env::var("PMIX_RANK").unwrap_or_default();
        check("rank from init", r.to_string(), env_rank)?;
        let mut errors = Vec::new();
        for (p, k, want) in expect {
            let r =
                get(c, &p, k, &[]).and_then(|v| check(&format!("{k} of {}", p.rank.0), v, want));
            if let Err(e) = r {
                errors.push(e);
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("; "));
        }
        // Every peer's process keys.
        for peer in 0..n {
            let p = self.proc(peer);
            let (a, f, _) = self.app_of(peer);
            check(
                &format!("appnum of {peer}"),
                get(c, &p, keys::APPNUM, &[])?,
                Value::Uint32(a),
            )?;
            check(
                &format!("app rank of {peer}"),
                get(c, &p, keys::APP_RANK, &[])?,
                Value::ProcRank(peer - f),
            )?;
            check(
                &format!("local rank of {peer}"),
                get(c, &p, keys::LOCAL_RANK, &[])?,
                Value::Uint16(peer as u16),
            )?;
        }
        // This rank's application, asked with the standard qualifiers.
        let app_q = vec![
            Info::new(key(keys::APP_INFO), Value::Bool(true)),
            Info::new(key(keys::APPNUM), Value::Uint32(appnum)),
        ];
        check(
            "app size",
            get(c, &w, keys::APP_SIZE, &app_q)?,
            Value::Uint32(app_size),
        )?;
        check(
            "app leader",
            get(c, &w, keys::APPLDR, &app_q)?,
            Value::ProcRank(first),
        )?;
        if self.apps.len() == 1 {
            check(
                "app size (job realm)",
                get(c, &w, keys::APP_SIZE, &[])?,
                Value::Uint32(n),
            )?;
        }
        // Directories: strings, nested as the standard describes.
        let tmp = get(c, &w, keys::TMPDIR, &[])?;
        let tmp = tmp.as_str().ok_or(format!("tmpdir {tmp:?}"))?.to_owned();
        let nsdir = get(c, &w, keys::NSDIR, &[])?;
        check(
            "nsdir",
            nsdir.as_str(),
            Some(format!("{tmp}/{ns}").as_str()),
        )?;
        let procdir = get(c, me, keys::PROCDIR, &[])?;
        check(
            "procdir",
            procdir.as_str(),
            Some(format!("{tmp}/{ns}/{r}").as_str()),
        )?;
        if !std::path::Path::new(&format!("{tmp}/{ns}/{r}")).is_dir() {
            return Err("PMIX_PROCDIR does not exist".into());
        }
        // Node-realm and resolution helpers.
        let peers = c
            .resolve_peers(None, Some(&me.nspace))
            .map_err(|s| format!("resolve_peers: {s}"))?;
        check(
            "resolve_peers",
            peers.iter().map(|p| p.rank.0).collect::<Vec<_>>(),
            (0..n).collect(),
        )?;
        check(
            "resolve_nodes",
            c.resolve_nodes(None).map_err(|s| s.to_string())?,
            vec![host],
        )?;
        Ok(())
    }

    /// A put in every scope, a collecting fence, and every peer's data.
    /// One node: local and global data of every peer is visible, remote
    /// data of the others is not (it is meant for other nodes).
    fn wireup(&self) -> R {
        self.keys()?;
        let (c, me) = (&self.c, &self.me);
        let r = me.rank.0;
        let put = |s, k: &str, v| c.put(s, k, v).map_err(|s| format!("put {k}: {s}"));
        put(Scope::Local, "t.local", Value::Uint32(r * 10 + 1))?;
        put(Scope::Remote, "t.remote", Value::Uint32(r * 10 + 2))?;
        put(Scope::Global, "t.global", Value::string(&format!("g-{r}")))?;
        put(Scope::Internal, "t.internal", Value::Int64(-5))?;
        put(
            Scope::Global,
            "t.blob",
            Value::ByteObject(vec![r as u8; 1000]),
        )?;
        c.commit().map_err(|s| format!("commit: {s}"))?;
        c.fence(&[], &collect())
            .map_err(|s| format!("fence: {s}"))?;
        for peer in 0..self.size {
            let p = self.proc(peer);
            check(
                &format!("global of {peer}"),
                c.get(&p, "t.global", &optional()),
                Ok(Value::string(&format!("g-{peer}"))),
            )?;
            check(
                &format!("blob of {peer}"),
                c.get(&p, "t.blob", &optional()),
                Ok(Value::ByteObject(vec![peer as u8; 1000])),
            )?;
            check(
                &format!("local of {peer}"),
                c.get(&p, "t.local", &optional()),
                Ok(Value::Uint32(peer * 10 + 1)),
            )?;
            if peer == r {
                client_checks::own_remote_and_internal(c, &p)?;
            } else {
                client_checks::not_found(c, &p, "t.remote", &[])?;
                client_checks::not_found(c, &p, "t.internal", &[])?;
            }
        }
        client_checks::last_fence(c)
    }

    /// Peers' data without a fence: the server answers, waiting for peers
    /// that have not committed yet.
    fn dmodex(&self) -> R {
        client_checks::dmodex_gets(&self.c, self.size)?;
        client_checks::last_fence(&self.c)
    }

    /// Even and odd ranks fence separately, each collecting its half.
    fn subsets(&self) -> R {
        client_checks::subset_fences(&self.c, self.size)
    }

    fn fence_reporting(&self) -> R {
        println!("entering fence");
        let r = self.c.fence(&[], &collect());
        println!("fence result {r:?}");
        match r {
            Err(_) => block(),
            Ok(()) => Err("the fence succeeded without the victim".into()),
        }
    }
}

/// Runs the probe with its command-line arguments (without the program
/// name).
pub fn run(args: &[String]) -> R {
    let mut mode = "wireup".to_owned();
    let mut victim = 0u32;
    let mut apps: Option<Vec<u32>> = None;
    let mut it = args.iter();
    let mut positional = 0;
    while let Some(a) = it.next() {
        if a == "--apps" {
            let v = it.next().ok_or("--apps needs a value")?;
            let sizes: Result<Vec<u32>, _> = v.split(',').map(str::parse).collect();
            apps = Some(sizes.map_err(|_| format!("--apps: bad sizes {v}"))?);
        } else if positional == 0 {
            mode = a.clone();
            positional += 1;
        } else {
            victim = a.parse().map_err(|_| format!("bad rank {a}"))?;
        }
    }
    let c = Client::init(&[]).map_err(|s| format!("init: {s}"))?;
    let me = c.proc().clone();
    let size = c.job_size().map_err(|s| format!("job size: {s}"))?;
    let apps = apps.unwrap_or_else(|| vec![size]);
    if apps.iter().sum::<u32>() != size {
        return Err(format!("applications {apps:?} do not add up to {size}"));
    }
    let p = Probe { c, me, size, apps };
    let r = p.me.rank.0;
    match mode.as_str() {
        "keys" => p.keys()?,
        "wireup" => p.wireup()?,
        "dmodex" => p.dmodex()?,
        "subsets" => p.subsets()?,
        "die-before-fence" => {
            if r == victim {
                // SAFETY: raise(3) has no memory preconditions.
                unsafe {
                    libc::raise(libc::SIGKILL);
                }
            }
            p.fence_reporting()?;
        }
        "fence-victim" => {
            if r == victim {
                println!("victim pid={}", std::process::id());
                block();
            }
            p.fence_reporting()?;
        }
        "abort" => {
            if r == victim {
                let res = p.c.abort(Status(5), Some("probe abort"), &[]);
                return Err(format!("PMIx_Abort returned {res:?}"));
            }
            block();
        }
        "block" => {
            println!("blocking");
            block();
        }
        "no-finalize" => {
            if r == victim {
                std::process::exit(0);
            }
            block();
        }
        other => return Err(format!("unknown mode {other}")),
    }
    p.c.finalize().map_err(|s| format!("finalize: {s}"))?;
    println!("probe rank {r} of {size}: {mode} ok");
    Ok(())
}

#[allow(dead_code)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!(
            "pmix_client_probe rank {}: {e}",
            std::env::var("PMIX_RANK").unwrap_or_default()
        );
        std::process::exit(1);
    }
}
