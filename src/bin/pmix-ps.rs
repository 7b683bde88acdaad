//! `pmix-ps`: the jobs of this user's PMIx servers on this node.
//!
//! Every server that serves tools (`pmixrun` does, and OpenPMIx's:
//! PRRTE's `prte`, `mpirun`) leaves a rendezvous file
//! `pmix.<host>.tool.<pid>` in its temporary directory or its session
//! directory below it; `pmix-ps` finds them there (`$TMPDIR` or `/tmp`, or
//! `--tmpdir DIR`, and two levels below), attaches to
//! each server as a tool, and prints its jobs: namespace, ranks, and for
//! each rank its pid, state, host and executable (the server's process
//! table; a rank that has not connected shows pid 0 and state UNDEFINED).
//!
//! Exit status: 0 when the listing is done (also when no server runs), 1
//! when the directory cannot be read, 2 on a usage error. A server that
//! cannot be reached (gone, or refusing) is said on stderr and skipped.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pmix::client::Client;
use pmix::net::tool_files;
use pmix::value::{Query, Value};
use pmix::{keys, Info, Key, Status};

const USAGE: &str = "usage: pmix-ps [--tmpdir DIR]

Lists the jobs of this user's PMIx servers on this node (the servers that
serve tools, as pmixrun does): for each server its pid and each job it
hosts, with every rank's pid, state, host and executable.

  --tmpdir DIR   where the servers' rendezvous files are (default:
                 $TMPDIR, or /tmp)
  -h, --help     this text

Exit status: 0 listed (also when no server runs), 1 the directory cannot
be read, 2 usage error.";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--tmpdir" => match args.next() {
                Some(d) => dir = Some(PathBuf::from(d)),
                None => {
                    eprintln!("pmix-ps: --tmpdir needs a directory\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("pmix-ps: unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let dir = dir.unwrap_or_else(|| pmix::server::ServerConfig::default().tmpdir);
    let host = pmix::server::local_hostname();
    let servers = match tool_files::pid_files(&dir, &host) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pmix-ps: cannot read {}: {e}", dir.display());
            return ExitCode::from(1);
        }
    };
    if servers.is_empty() {
        println!("no PMIx server with tool support in {}", dir.display());
    }
    for (pid, file) in servers {
        if let Err(s) = list(pid, &file) {
            eprintln!("pmix-ps: server {pid}: unreachable ({s})");
        }
    }
    ExitCode::SUCCESS
}

fn query(keys_: &[&str], qualifiers: Vec<Info>) -> Result<Query, Status> {
    let keys_ = keys_
        .iter()
        .map(|k| CString::new(*k).map_err(|_| Status::ERR_BAD_PARAM))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Query {
        keys: keys_,
        qualifiers,
    })
}

/// Prints server `pid`'s jobs.
fn list(pid: u32, file: &Path) -> Result<(), Status> {
    let uri = tool_files::read_uri(file).ok_or(Status::ERR_UNREACH)?;
    let tool = Client::tool_init(&[Info::new(Key::new(keys::SERVER_URI)?, Value::string(&uri))])?;
    println!("server {pid} ({})", tool.server().nspace.to_string_lossy());
    let (_, answers) = tool.query(&[query(&[keys::QUERY_NAMESPACES], vec![])?])?;
    let names = answers
        .first()
        .and_then(|i| i.value.as_str())
        .unwrap_or_default()
        .to_owned();
    // An OpenPMIx server (PRRTE's) lists its tools' namespaces too.
    let me = tool.proc().nspace.to_string_lossy();
    for ns in names.split(',').filter(|n| !n.is_empty() && *n != me) {
        let q = query(
            &[keys::QUERY_PROC_TABLE],
            vec![Info::new(Key::new(keys::NSPACE)?, Value::string(ns))],
        )?;
        let table = tool.query(&[q]).map(|(_, a)| a).unwrap_or_default();
        let procs: Vec<pmix::value::ProcInfo> = table
            .iter()
            .filter_map(|i| match &i.value {
                Value::DataArray(a) => Some(a.items.iter()),
                _ => None,
            })
            .flatten()
            .filter_map(|v| match v {
                Value::ProcInfo(p) => Some((**p).clone()),
                _ => None,
            })
            .collect();
        println!("  job {ns}: {} ranks", procs.len());
        for p in procs {
            let text = |s: &Option<CString>| {
                s.as_ref()
                    .map(|c| c.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "-".into())
            };
            println!(
                "    rank {}  pid {}  state {}  host {}  exe {}",
                p.proc.rank.0,
                p.pid,
                pmix::strings::text(pmix::strings::proc_state_string(p.state)),
                text(&p.hostname),
                text(&p.executable_name),
            );
        }
    }
    tool.finalize()
}
