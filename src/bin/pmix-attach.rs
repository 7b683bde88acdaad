//! `pmix-attach`: attaches to a running job's PMIx server as a tool and
//! streams the job's output to this terminal while it runs.
//!
//! The server is found as `PMIx_tool_init` finds it: by its pid
//! (`--pid`), its namespace (`--server`), as the system server
//! (`--system`), else the session's server (what `pmixrun` is) then the
//! system's; rendezvous files in `--tmpdir` (default `$TMPDIR` or
//! `/tmp`). The jobs are those `--job` names, else every job the server
//! hosts. Their ranks' stdout and stderr (`--ranks` to choose) are pulled
//! through `PMIx_IOF_pull` and written here, each line whole, formatted
//! as asked (`--tag-output`, `--timestamp-output`, `--xml-output`);
//! `--stdin RANKS` forwards this process's stdin to those ranks.
//!
//! It returns when every job it follows has ended (`PMIX_EVENT_JOB_END`)
//! or the server goes away (the job's launcher ended); Ctrl-C detaches
//! (the server drops the tool's registration).
//!
//! Exit status: 0 the jobs ended (or the server went away), 1 no server
//! to attach to, or the server refused, 2 usage error.

use std::collections::BTreeSet;
use std::ffi::CString;
use std::process::ExitCode;
use std::sync::mpsc;

use pmix::client::Client;
use pmix::value::Query;
use pmix::wire::iof::channel;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const USAGE: &str = "usage: pmix-attach [--pid PID | --server NSPACE | --system] [--tmpdir DIR]
                   [--job NSPACE]... [--ranks LIST] [--stdout-only | --stderr-only]
                   [--tag-output] [--timestamp-output] [--xml-output]
                   [--stdin RANKS]

Attaches to a running job's PMIx server as a tool (pmixrun's, or any
server with tool support) and writes the job's output here as it is
produced, until the job ends or its server goes away (Ctrl-C detaches).

  --pid PID            the server of process PID (e.g. a pmixrun)
  --server NSPACE      the server whose namespace is NSPACE
  --system             the system server
                       (default: the session's server, then the system's)
  --tmpdir DIR         where the servers' rendezvous files are
                       (default: $TMPDIR, or /tmp)
  --job NSPACE         follow this job (repeatable; default: every job
                       the server hosts)
  --ranks LIST         only these ranks' output: all (default) or a comma
                       list such as 0,2
  --stdout-only, --stderr-only
                       one channel only (default: both)
  --tag-output         prefix each line with [job,rank]<stdout>:
  --timestamp-output   prefix each line with the time it arrived
  --xml-output         write each line as XML
  --stdin RANKS        forward this process's stdin to RANKS (all or a
                       comma list) of each followed job
  -h, --help           this text

Exit status: 0 the jobs ended (or their server went away), 1 no server to
attach to or it refused (the reason is printed), 2 usage error.";

/// What the command line asks for.
#[derive(Default)]
struct Options {
    find: Vec<Info>,
    jobs: Vec<String>,
    ranks: Option<Vec<u32>>,
    channels: u16,
    format: Vec<Info>,
    stdin: Option<Option<Vec<u32>>>,
}

fn info(key: &str, v: Value) -> Info {
    Info::keyed(key, v).expect("a known key")
}

/// `all` or a comma list of ranks.
fn rank_list(s: &str) -> Result<Option<Vec<u32>>, String> {
    if s == "all" {
        return Ok(None);
    }
    s.split(',')
        .map(|r| {
            r.trim()
                .parse::<u32>()
                .map_err(|_| format!("not a rank: {r:?}"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        channels: channel::STDOUT | channel::STDERR,
        ..Default::default()
    };
    let mut it = args.iter();
    let mut located = false;
    while let Some(a) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs {what}"))
        };
        let mut locate = |i: Info| -> Result<(), String> {
            if located {
                return Err("give at most one of --pid, --server, --system".into());
            }
            located = true;
            o.find.push(i);
            Ok(())
        };
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--pid" => {
                let v = value("a pid")?;
                let pid: i32 = v
                    .parse()
                    .ok()
                    .filter(|&p| p > 0)
                    .ok_or_else(|| format!("not a pid: {v:?}"))?;
                locate(info(keys::SERVER_PIDINFO, Value::Pid(pid)))?;
            }
            "--server" => {
                let v = value("a namespace")?;
                locate(info(keys::SERVER_NSPACE, Value::string(&v)))?;
            }
            "--system" => locate(info(keys::CONNECT_TO_SYSTEM, Value::Bool(true)))?,
            "--tmpdir" => {
                let v = value("a directory")?;
                o.find.push(info(keys::SERVER_TMPDIR, Value::string(&v)));
                o.find.push(info(keys::SYSTEM_TMPDIR, Value::string(&v)));
            }
            "--job" => o.jobs.push(value("a namespace")?),
            "--ranks" => o.ranks = rank_list(&value("a rank list")?)?,
            "--stdout-only" => o.channels = channel::STDOUT,
            "--stderr-only" => o.channels = channel::STDERR,
            "--tag-output" => o.format.push(info(keys::IOF_TAG_OUTPUT, Value::Bool(true))),
            "--timestamp-output" => o
                .format
                .push(info(keys::IOF_TIMESTAMP_OUTPUT, Value::Bool(true))),
            "--xml-output" => o.format.push(info(keys::IOF_XML_OUTPUT, Value::Bool(true))),
            "--stdin" => o.stdin = Some(rank_list(&value("a rank list")?)?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(o))
}

/// The jobs the server hosts (its namespaces query).
fn hosted_jobs(t: &Client) -> Result<Vec<String>, Status> {
    let q = Query {
        keys: vec![CString::new(keys::QUERY_NAMESPACES).expect("no NUL")],
        qualifiers: vec![],
    };
    let (_, answers) = t.query(&[q])?;
    // An OpenPMIx server (PRRTE's) names its tools' namespaces too.
    let me = t.proc().nspace.to_string_lossy();
    Ok(answers
        .iter()
        .filter_map(|i| i.value.as_str())
        .flat_map(|s| s.split(','))
        .filter(|s| !s.is_empty() && *s != me)
        .map(str::to_owned)
        .collect())
}

/// The procs of `jobs` that `ranks` names (all: the wildcard).
fn procs_of(jobs: &[Nspace], ranks: &Option<Vec<u32>>) -> Vec<Proc> {
    let mut out = Vec::new();
    for ns in jobs {
        match ranks {
            None => out.push(Proc::new(ns.clone(), Rank::WILDCARD)),
            Some(rs) => out.extend(rs.iter().map(|&r| Proc::new(ns.clone(), Rank(r)))),
        }
    }
    out
}

/// Why the stream ended.
enum End {
    /// A followed job ended.
    Job(Nspace),
    /// The server went away.
    Lost,
}

fn run(o: Options) -> Result<(), String> {
    let t = Client::tool_init(&o.find).map_err(|s| match s {
        Status::ERR_UNREACH => "no PMIx server with tool support found (is the job running? \
                                try --pid PID of its launcher, or --tmpdir DIR)"
            .to_owned(),
        Status::ERR_NOT_SUPPORTED => "the server does not serve tools".to_owned(),
        Status::ERR_NO_PERMISSIONS => "the server belongs to another user".to_owned(),
        s => format!("cannot attach: {}", name(s)),
    })?;
    let names = if o.jobs.is_empty() {
        hosted_jobs(&t).map_err(|s| format!("cannot list the server's jobs: {}", name(s)))?
    } else {
        o.jobs.clone()
    };
    if names.is_empty() {
        return Err("the server hosts no job".into());
    }
    let jobs = names
        .iter()
        .map(|n| Nspace::new(n.as_str()).map_err(|_| format!("not a namespace: {n:?}")))
        .collect::<Result<Vec<_>, _>>()?;
    eprintln!(
        "pmix-attach: following {} at server {}",
        names.join(", "),
        t.server().nspace.to_string_lossy()
    );
    // The end of a job, or of the connection, wakes the main thread.
    let (tx, rx) = mpsc::channel::<End>();
    let tx = std::sync::Mutex::new(tx);
    let handler: pmix::events::EventHandler = std::sync::Arc::new(move |call| {
        let end = if call.status == Status::ERR_LOST_CONNECTION {
            Some(End::Lost)
        } else {
            pmix::info::value_of(&call.infos, keys::EVENT_AFFECTED_PROC)
                .and_then(|v| v.procs())
                .and_then(|p| p.first().map(|p| End::Job(p.nspace.clone())))
        };
        if let Some(e) = end {
            let _ = tx.lock().map(|t| t.send(e));
        }
        call.done.complete(Status::SUCCESS, Vec::new());
    });
    t.register_event_handler(
        &[Status::ERR_LOST_CONNECTION, Status::EVENT_JOB_END],
        &[],
        handler,
    )
    .map_err(|s| format!("cannot register for the job's end: {}", name(s)))?;
    let sources = procs_of(&jobs, &o.ranks);
    t.iof_pull(&sources, o.channels, &o.format, None)
        .map_err(|s| format!("the server refused to forward the output: {}", name(s)))?;
    if let Some(ranks) = &o.stdin {
        let targets = procs_of(&jobs, ranks);
        t.iof_push_stdin(&targets, &[])
            .map_err(|s| format!("cannot forward stdin: {}", name(s)))?;
    }
    let mut running: BTreeSet<Nspace> = jobs.into_iter().collect();
    while !running.is_empty() {
        match rx.recv() {
            Ok(End::Job(ns)) => {
                running.remove(&ns);
            }
            Ok(End::Lost) | Err(_) => break,
        }
    }
    let _ = t.finalize();
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("pmix-attach: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pmix-attach: {e}");
            ExitCode::from(1)
        }
    }
}

/// A status's name (`PMIx_Error_string`'s).
fn name(s: Status) -> String {
    pmix::strings::error_string(s.0)
        .to_string_lossy()
        .into_owned()
}
