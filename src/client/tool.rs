//! A tool's connection (`PMIx_tool_init`): how a process outside any job
//! finds a server and connects to it as a tool. Once connected, a tool is
//! a [`Client`] of the server whose identity the server gave it (or the
//! one it asked for): queries, gets of any namespace the server hosts
//! (mapped on demand), spawn, job control, log and events work as for a
//! client.
//!
//! The server is found, in this order, by:
//! - `PMIX_SERVER_URI` (its URI, or `file:PATH` naming a file whose first
//!   line is the URI, as OpenPMIx accepts; `unix://HOST/PATH` and
//!   `file://HOST/PATH` may name this node as HOST);
//! - `PMIX_TOOL_ATTACHMENT_FILE` (a rendezvous file);
//! - `PMIX_SERVER_PIDINFO` (its pid: `pmix.<host>.tool.<pid>`);
//! - `PMIX_SERVER_NSPACE` (its namespace: `pmix.<host>.tool.<nspace>`);
//! - `PMIX_CONNECT_TO_SYSTEM` (the system server: `pmix.sys.<host>` in the
//!   system temporary directory);
//! - otherwise the session's server (`pmix.<host>.tool`), and then, or
//!   first with `PMIX_CONNECT_SYSTEM_FIRST`, the system server.
//!
//! Rendezvous files (see [`crate::net::tool_files`]) are looked for in
//! `PMIX_SERVER_TMPDIR` / `PMIX_SYSTEM_TMPDIR`, else `$TMPDIR` or `/tmp`;
//! a server named by pid or namespace also in the directories below them
//! (an OpenPMIx server's session directory, [`tool_files::SEARCH_DEPTH`]).
//! A `unix://` URI is one of our servers; a `tcp4://`/`tcp6://` one an
//! OpenPMIx server (PRRTE's `prte`, `prterun`, Open MPI 5's `mpirun`),
//! attached to through [`super::stock_link`] ([`ServerAddr`]).
//! `PMIX_CONNECT_MAX_RETRIES` and `PMIX_CONNECT_RETRY_DELAY` (seconds)
//! retry a server that is not there yet. `PMIX_TOOL_NSPACE` and
//! `PMIX_TOOL_RANK` ask for an identity.
//!
//! A tool need not be connected: with `PMIX_TOOL_DO_NOT_CONNECT`, or with
//! `PMIX_TOOL_CONNECT_OPTIONAL` when no server is reachable, it is
//! initialized under its identity (asked for, else `tool.<host>.<pid>`
//! rank 0) and served by a private server in this process, as a
//! singleton is: its own identity keys and events work, operations that
//! need a server fail with `PMIX_ERR_UNREACH` until it attaches to one.
//!
//! A launcher (`PMIX_LAUNCHER`) is a tool that other tools attach to (a
//! debugger attaching to the launcher of its job, as OpenPMIx's launcher
//! tools listen): it also runs a server with tool support under its
//! identity, which writes the rendezvous files `pmix.<host>.tool.<pid>`
//! and `pmix.<host>.tool.<nspace>`; their queries, log requests, job
//! control and spawns that it cannot answer itself go on to the
//! launcher's server (see [`super::launcher`]); a launcher connected to no
//! server starts the jobs it spawns itself (see [`super::local_launch`]).
//! When the environment holds
//! `PMIX_LAUNCHER_RNDZ_URI` (set by a tool that started the launcher
//! and waits for it), the launcher connects to that server first.
//!
//! A tool a server started (a debugger daemon `pmixrun` launched: its
//! environment holds `PMIX_NAMESPACE`, `PMIX_RANK` and the server's URI
//! from `setup_fork`; or a process an OpenPMIx server launched, whose
//! environment names that server) connects as that process, a client of
//! its server, as OpenPMIx does (its "client tool"), unless a directive
//! names a server or an identity.
//!
//! Failures: no server found or reachable → `PMIX_ERR_UNREACH`; the
//! server refuses (no tool support: `PMIX_ERR_NOT_SUPPORTED`; another
//! user: `PMIX_ERR_NO_PERMISSIONS`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::connect::parse_uri;
use super::Client;
use crate::net::tool_files;
use crate::openpmix::ServerUri;
use crate::wire::{flag, int};
use crate::{keys, Info, Nspace, Proc, Rank, Status, Value};

/// What `PMIx_tool_init`'s directives say about finding a server.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ToolOptions {
    /// `PMIX_SERVER_URI`.
    pub uri: Option<String>,
    /// `PMIX_TOOL_ATTACHMENT_FILE` (a rendezvous file to read the URI from).
    pub attachment_file: Option<PathBuf>,
    /// `PMIX_SERVER_PIDINFO`.
    pub pid: Option<u32>,
    /// `PMIX_SERVER_NSPACE` (the server's namespace).
    pub nspace: Option<String>,
    /// `PMIX_CONNECT_TO_SYSTEM`.
    pub to_system: bool,
    /// `PMIX_CONNECT_SYSTEM_FIRST`.
    pub system_first: bool,
    /// `PMIX_TOOL_DO_NOT_CONNECT`.
    pub do_not_connect: bool,
    /// `PMIX_TOOL_CONNECT_OPTIONAL`.
    pub connect_optional: bool,
    /// `PMIX_LAUNCHER`.
    pub launcher: bool,
    /// `PMIX_SERVER_TMPDIR`.
    pub tmpdir: Option<PathBuf>,
    /// `PMIX_SYSTEM_TMPDIR`.
    pub system_tmpdir: Option<PathBuf>,
    /// `PMIX_CONNECT_MAX_RETRIES`.
    pub retries: u32,
    /// `PMIX_CONNECT_RETRY_DELAY`.
    pub retry_delay: Duration,
    /// `PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK`.
    pub identity: Option<Proc>,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned).filter(|s| !s.is_empty())
}

impl ToolOptions {
    /// Reads the directives; a malformed one is `PMIX_ERR_BAD_PARAM`.
    pub fn parse(infos: &[Info]) -> Result<ToolOptions, Status> {
        let mut o = ToolOptions {
            retry_delay: Duration::from_secs(1),
            ..Default::default()
        };
        let (mut tool_ns, mut tool_rank) = (None, None);
        // attrs begin: PMIx_tool_init PMIx_tool_attach_to_server
        for i in infos {
            let k = i.key.as_bytes();
            let is = |s: &str| k == s.as_bytes();
            let v = &i.value;
            if is(keys::SERVER_URI) {
                o.uri = Some(text(v).ok_or(Status::ERR_BAD_PARAM)?);
            } else if is(keys::TOOL_ATTACHMENT_FILE) {
                o.attachment_file = Some(PathBuf::from(text(v).ok_or(Status::ERR_BAD_PARAM)?));
            } else if is(keys::SERVER_PIDINFO) {
                let pid = match v {
                    Value::Pid(p) => Some(i64::from(*p)),
                    other => int(other),
                };
                let pid = pid.filter(|&p| p > 0).ok_or(Status::ERR_BAD_PARAM)?;
                o.pid = Some(u32::try_from(pid).map_err(|_| Status::ERR_BAD_PARAM)?);
            } else if is(keys::SERVER_NSPACE) {
                o.nspace = Some(text(v).ok_or(Status::ERR_BAD_PARAM)?);
            } else if is(keys::CONNECT_TO_SYSTEM) {
                o.to_system = flag(v);
            } else if is(keys::CONNECT_SYSTEM_FIRST) {
                o.system_first = flag(v);
            } else if is(keys::TOOL_DO_NOT_CONNECT) {
                o.do_not_connect = flag(v);
            } else if is(keys::TOOL_CONNECT_OPTIONAL) {
                o.connect_optional = flag(v);
            } else if is(keys::LAUNCHER) {
                o.launcher = flag(v);
            } else if is(keys::SERVER_TMPDIR) {
                o.tmpdir = text(v).map(PathBuf::from);
            } else if is(keys::SYSTEM_TMPDIR) {
                o.system_tmpdir = text(v).map(PathBuf::from);
            } else if is(keys::CONNECT_MAX_RETRIES) {
                o.retries = int(v).and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
            } else if is(keys::CONNECT_RETRY_DELAY) {
                let s = int(v).and_then(|n| u64::try_from(n).ok()).unwrap_or(1);
                o.retry_delay = Duration::from_secs(s);
            } else if is(keys::TOOL_NSPACE) {
                tool_ns = Some(text(v).ok_or(Status::ERR_BAD_PARAM)?);
            } else if is(keys::TOOL_RANK) {
                tool_rank = v.as_u32();
            }
        }
        // attrs end
        if let Some(ns) = tool_ns {
            let rank = tool_rank.unwrap_or(0);
            o.identity = Some(Proc::new(Nspace::new(ns)?, Rank(rank)));
        }
        Ok(o)
    }

    /// The servers to try, in order (see the module documentation).
    pub fn candidates(&self, host: &str) -> Vec<ServerAddr> {
        let tmp = self.tmpdir.clone().unwrap_or_else(default_tmpdir);
        let sys = self.system_tmpdir.clone().unwrap_or_else(default_tmpdir);
        let from_file = |p: &Path| ServerAddr::from_file(p);
        if let Some(u) = &self.uri {
            // `file:PATH`: the URI is the first line of that file (a
            // rendezvous file, or one a launcher reported its URI in).
            return match u.strip_prefix("file:") {
                Some(path) => file_path(path).and_then(|p| from_file(&p)),
                None => ServerAddr::from_uri(u, None),
            }
            .into_iter()
            .collect();
        }
        if let Some(f) = &self.attachment_file {
            return from_file(f).into_iter().collect();
        }
        if self.launcher {
            // The tool that started this launcher waits for it there.
            if let Some(u) = std::env::var(LAUNCHER_RNDZ_ENV)
                .ok()
                .and_then(|u| ServerAddr::from_uri(&u, None))
            {
                return vec![u];
            }
        }
        // A server named by its pid or namespace: its file in the
        // server's directory, else below it or below the system's (an
        // OpenPMIx server's session directory).
        let named = |name: String| {
            [&tmp, &sys]
                .into_iter()
                .find_map(|d| tool_files::find(d, &name))
                .and_then(|p| from_file(&p))
                .into_iter()
                .collect()
        };
        if let Some(pid) = self.pid {
            return named(file_name(&tool_files::by_pid(&tmp, host, pid)));
        }
        if let Some(ns) = &self.nspace {
            return named(file_name(&tool_files::by_nspace(&tmp, host, ns)));
        }
        let system = || from_file(&tool_files::system(&sys, host));
        if self.to_system {
            return system().into_iter().collect();
        }
        let session = || from_file(&tool_files::session(&tmp, host));
        let order = if self.system_first {
            [system(), session()]
        } else {
            [session(), system()]
        };
        order.into_iter().flatten().collect()
    }
}

/// The last component of a path the tool files name.
fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A server a tool may attach to: one of ours, by its socket, or an
/// OpenPMIx server, by its TCP URI (and the release its rendezvous file
/// gave), served through the stock link (`client::stock_link`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerAddr {
    /// Our server's socket.
    Ours(PathBuf),
    /// An OpenPMIx server.
    Stock {
        /// Its URI.
        uri: ServerUri,
        /// Its release, if known.
        version: Option<String>,
    },
}

impl ServerAddr {
    /// The server a URI names (`unix://` ours, `tcp4://`/`tcp6://` an
    /// OpenPMIx server's); `None` if it names none reachable from here.
    pub fn from_uri(uri: &str, version: Option<String>) -> Option<ServerAddr> {
        if let Some(p) = parse_uri(uri) {
            return Some(ServerAddr::Ours(p));
        }
        ServerUri::parse(uri)
            .ok()
            .map(|uri| ServerAddr::Stock { uri, version })
    }

    /// The server a rendezvous file names (see [`tool_files::ServerFile`]).
    pub fn from_file(path: &Path) -> Option<ServerAddr> {
        let f = tool_files::ServerFile::read(path)?;
        ServerAddr::from_uri(&f.uri, f.version)
    }
}

/// The file a `file:` URI names: `file:PATH`, or `file://HOST/PATH` with
/// HOST empty or naming this node (see [`parse_uri`]).
fn file_path(rest: &str) -> Option<PathBuf> {
    let Some(authority) = rest.strip_prefix("//") else {
        return Some(PathBuf::from(rest));
    };
    let at = authority.find('/')?;
    let (host, path) = authority.split_at(at);
    (host.is_empty() || crate::server::names_this_host(host)).then(|| PathBuf::from(path))
}

/// `$TMPDIR` (absolute and short enough for a socket path), else `/tmp`:
/// where servers put their rendezvous files by default.
fn default_tmpdir() -> PathBuf {
    crate::server::ServerConfig::default().tmpdir
}

/// The environment variable naming the server a launcher connects to
/// first (OpenPMIx's name).
pub const LAUNCHER_RNDZ_ENV: &str = "PMIX_LAUNCHER_RNDZ_URI";

impl Client {
    /// `PMIx_tool_init`: finds a server as `infos` say and connects to it
    /// as a tool, or initializes an unconnected tool, and starts a
    /// launcher's listener (see the module documentation).
    pub fn tool_init(infos: &[Info]) -> Result<Client, Status> {
        let o = ToolOptions::parse(infos)?;
        let host = crate::server::local_hostname();
        let names_server = o.uri.is_some()
            || o.attachment_file.is_some()
            || o.pid.is_some()
            || o.nspace.is_some()
            || o.to_system
            || o.system_first
            || o.identity.is_some();
        // Started by a server (its setup_fork environment): its client.
        let launched = (!names_server && !o.do_not_connect)
            .then(|| super::ConnectInfo::from_env().ok())
            .flatten();
        // Started by an OpenPMIx server (its environment names it): its
        // client, through the stock link.
        let stock_launched = !names_server
            && !o.do_not_connect
            && super::stock_link::names_stock_server(|k| std::env::var(k).ok());
        let mut c = if o.do_not_connect {
            Client::unconnected_tool(&o, &host, infos)?
        } else if stock_launched {
            Client::connect_stock(infos)?
        } else if let Some(launched) = launched {
            Client::connect(&launched, infos)?
        } else {
            match Client::find_server(&o, &host, infos) {
                Err(Status::ERR_UNREACH) if o.connect_optional => {
                    Client::unconnected_tool(&o, &host, infos)?
                }
                r => r?,
            }
        };
        if o.launcher {
            c.launcher = true;
            *c.own_server.lock() = Some(launcher_server(&c, &o)?);
        }
        Ok(c)
    }

    /// Tries the servers `o` names, with its retries.
    fn find_server(o: &ToolOptions, host: &str, infos: &[Info]) -> Result<Client, Status> {
        let mut last = Status::ERR_UNREACH;
        for attempt in 0..=o.retries {
            if attempt > 0 {
                std::thread::sleep(o.retry_delay);
            }
            for server in o.candidates(host) {
                let r = match &server {
                    ServerAddr::Ours(socket) => {
                        Client::connect_tool(socket, o.identity.clone(), infos)
                    }
                    ServerAddr::Stock { uri, version } => Client::connect_stock_tool(
                        uri,
                        version.as_deref(),
                        o.identity.clone(),
                        &for_host(infos),
                    ),
                };
                match r {
                    Ok(c) => {
                        crate::attributes::note_tool();
                        return Ok(c);
                    }
                    // A server that refused is an answer: no retry.
                    Err(s) if s != Status::ERR_UNREACH => return Err(s),
                    Err(s) => last = s,
                }
            }
        }
        Err(last)
    }

    /// A tool connected to no server, under the identity it asked for or
    /// `tool.<host>.<pid>` rank 0.
    fn unconnected_tool(o: &ToolOptions, host: &str, infos: &[Info]) -> Result<Client, Status> {
        let me = match &o.identity {
            Some(p) => p.clone(),
            None => Proc::new(
                Nspace::new(format!("tool.{host}.{}", std::process::id()))?,
                Rank(0),
            ),
        };
        Client::private(Some(me), infos)
    }
}

/// What a tool tells an OpenPMIx server's host of itself: its caller's
/// directives but those that found the server (OpenPMIx's tools keep
/// those too).
fn for_host(infos: &[Info]) -> Vec<Info> {
    let finding = [
        keys::SERVER_URI,
        keys::TOOL_ATTACHMENT_FILE,
        keys::SERVER_PIDINFO,
        keys::SERVER_NSPACE,
        keys::CONNECT_TO_SYSTEM,
        keys::CONNECT_SYSTEM_FIRST,
        keys::TOOL_CONNECT_OPTIONAL,
    ];
    infos
        .iter()
        .filter(|i| !finding.iter().any(|k| i.key.as_bytes() == k.as_bytes()))
        .cloned()
        .collect()
}

/// A launcher's listener: a server with tool support under the tool's
/// identity (its rendezvous files name this process's pid and the tool's
/// namespace), in the temporary directory the tool was given; what it
/// cannot answer goes to the launcher's server (see [`super::launcher`]).
fn launcher_server(c: &Client, o: &ToolOptions) -> Result<crate::server::Server, Status> {
    let mut config = crate::server::ServerConfig {
        nspace: c.proc().nspace.clone(),
        rank: c.proc().rank,
        tool_support: true,
        ..Default::default()
    };
    if let Some(t) = &o.tmpdir {
        config.tmpdir = t.clone();
    }
    let host = super::launcher::Upstream {
        inner: std::sync::Arc::downgrade(&c.inner),
        unconnected: c.is_singleton(),
    };
    crate::server::Server::start(config, std::sync::Arc::new(host)).map_err(|_| Status::ERR_INIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    fn info(k: &str, v: Value) -> Info {
        Info::new(Key::new(k).unwrap(), v)
    }

    #[test]
    fn directives_are_read_and_malformed_ones_refused() {
        let o = ToolOptions::parse(&[
            info(keys::SERVER_PIDINFO, Value::Pid(42)),
            info(keys::TOOL_NSPACE, Value::string("mytool")),
            info(keys::TOOL_RANK, Value::Uint32(3)),
            info(keys::CONNECT_MAX_RETRIES, Value::Uint32(2)),
        ])
        .unwrap();
        assert_eq!(o.pid, Some(42));
        assert_eq!(o.retries, 2);
        assert_eq!(
            o.identity,
            Some(Proc::new(Nspace::new("mytool").unwrap(), Rank(3)))
        );
        assert_eq!(
            ToolOptions::parse(&[info(keys::SERVER_PIDINFO, Value::Pid(-1))]),
            Err(Status::ERR_BAD_PARAM)
        );
    }

    #[test]
    fn the_server_is_found_by_its_files_in_order() {
        let dir = std::env::temp_dir().join(format!("tool-find-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = tool_files::ToolFiles::write(
            "srv.0;unix:///s/sock",
            vec![
                tool_files::by_pid(&dir, "h", 9),
                tool_files::session(&dir, "h"),
            ],
        )
        .unwrap();
        let sys = tool_files::ToolFiles::write(
            "sys.0;unix:///y/sock",
            vec![tool_files::system(&dir, "h")],
        )
        .unwrap();
        let base = ToolOptions {
            tmpdir: Some(dir.clone()),
            system_tmpdir: Some(dir.clone()),
            ..Default::default()
        };
        let by_pid = ToolOptions {
            pid: Some(9),
            ..base.clone()
        };
        assert_eq!(
            by_pid.candidates("h"),
            vec![ServerAddr::Ours(PathBuf::from("/s/sock"))]
        );
        let by_file = ToolOptions {
            uri: Some(format!("file:{}", tool_files::system(&dir, "h").display())),
            ..base.clone()
        };
        assert_eq!(
            by_file.candidates("h"),
            vec![ServerAddr::Ours(PathBuf::from("/y/sock"))]
        );
        let no_file = ToolOptions {
            uri: Some(format!("file:{}/none", dir.display())),
            ..base.clone()
        };
        assert!(no_file.candidates("h").is_empty());
        let by_host = ToolOptions {
            uri: Some(format!(
                "file://localhost{}",
                tool_files::system(&dir, "h").display()
            )),
            ..base.clone()
        };
        assert_eq!(
            by_host.candidates("h"),
            vec![ServerAddr::Ours(PathBuf::from("/y/sock"))]
        );
        let elsewhere = ToolOptions {
            uri: Some(format!(
                "file://surely-not-this-host.example{}",
                tool_files::system(&dir, "h").display()
            )),
            ..base.clone()
        };
        assert!(elsewhere.candidates("h").is_empty());
        assert_eq!(
            base.candidates("h"),
            vec![
                ServerAddr::Ours(PathBuf::from("/s/sock")),
                ServerAddr::Ours(PathBuf::from("/y/sock"))
            ]
        );
        let first = ToolOptions {
            system_first: true,
            ..base.clone()
        };
        assert_eq!(
            first.candidates("h")[0],
            ServerAddr::Ours(PathBuf::from("/y/sock"))
        );
        let none = ToolOptions {
            pid: Some(10),
            ..base
        };
        assert!(none.candidates("h").is_empty());
        drop((f, sys));
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn an_openpmix_server_is_found_below_the_tmpdir_by_pid_or_uri() {
        let dir = std::env::temp_dir().join(format!("tool-stock-{}", std::process::id()));
        let session = dir.join("prte.77");
        std::fs::create_dir_all(&session).unwrap();
        let uri = "prte-h-77@0.0;tcp4://127.0.0.1:5000";
        // What PRRTE writes: URI, release, pid, uid:gid, start time.
        let text = format!("{uri}\n5.0.11rc1\n77\n0:0\nnow\n");
        for name in ["pmix.h.tool.77", "pmix.h.tool.prte-h-77@0"] {
            std::fs::write(session.join(name), &text).unwrap();
        }
        let stock = ServerAddr::Stock {
            uri: ServerUri::parse(uri).unwrap(),
            version: Some("5.0.11rc1".into()),
        };
        let base = ToolOptions {
            tmpdir: Some(dir.clone()),
            system_tmpdir: Some(dir.clone()),
            ..Default::default()
        };
        let by_pid = ToolOptions {
            pid: Some(77),
            ..base.clone()
        };
        assert_eq!(by_pid.candidates("h"), vec![stock.clone()]);
        let by_nspace = ToolOptions {
            nspace: Some("prte-h-77@0".into()),
            ..base.clone()
        };
        assert_eq!(by_nspace.candidates("h"), vec![stock.clone()]);
        let attachment = ToolOptions {
            attachment_file: Some(session.join("pmix.h.tool.77")),
            ..base.clone()
        };
        assert_eq!(attachment.candidates("h"), vec![stock]);
        let by_uri = ToolOptions {
            uri: Some(uri.into()),
            ..base.clone()
        };
        assert!(matches!(
            &by_uri.candidates("h")[..],
            [ServerAddr::Stock { version: None, .. }]
        ));
        // Another pid's file is not this one's (no prefix match).
        let other = ToolOptions {
            pid: Some(7),
            ..base
        };
        assert!(other.candidates("h").is_empty());
        assert_eq!(
            tool_files::pid_files(&dir, "h").unwrap(),
            vec![(77, session.join("pmix.h.tool.77"))]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
