//! The rendezvous files through which tools find a server (OpenPMIx's
//! names): in the server's temporary directory `pmix.<host>.tool.<pid>`
//! (by the server's pid), `pmix.<host>.tool.<nspace>` (by its namespace)
//! and `pmix.<host>.tool` (the session's server); in the system temporary
//! directory `pmix.sys.<host>` (the system server). Each holds, one per
//! line as OpenPMIx writes them, the server's URI, the library version,
//! the server's pid, its `uid:gid` and its start time; [`available`]
//! reads them all.
//!
//! A server with a stock door ([`ToolFiles::write_with_door`]) puts the
//! door's `tcp4://` URI first, where OpenPMIx's tools read it, and its
//! own `unix://` URI as a sixth line, where ours find it: [`read_uri`]
//! and [`ServerFile::read`] take the `unix://` line when a file has one,
//! else the first.
//!
//! Invariants: a file is created with mode `0600` (only its owner reads
//! the URI), written aside and renamed over its name (a leftover, or
//! another server's session file, is replaced atomically); it is removed when its
//! [`ToolFiles`] is dropped, unless another server has replaced it since
//! (its content is no longer this server's URI).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `pmix.<host>.tool.<pid>` in `dir`.
pub fn by_pid(dir: &Path, host: &str, pid: u32) -> PathBuf {
    dir.join(format!("pmix.{host}.tool.{pid}"))
}

/// How deep below a temporary directory rendezvous files are looked for:
/// PRRTE (`prte`, `prterun`, `mpirun` of Open MPI 5) writes them in its
/// session directory, `<tmpdir>/prte.<pid>/` or `<tmpdir>/ompi.<pid>/`.
pub const SEARCH_DEPTH: usize = 2;

/// The servers that left a `pmix.<host>.tool.<pid>` file in `dir` or a
/// directory below it (at most [`SEARCH_DEPTH`] levels, as OpenPMIx's
/// tools search their temporary directory's tree): each `(pid, file)`,
/// by pid, a pid once (its file nearest to `dir`). Only `dir` itself
/// must be readable.
pub fn pid_files(dir: &Path, host: &str) -> std::io::Result<Vec<(u32, PathBuf)>> {
    let prefix = format!("pmix.{host}.tool.");
    let mut out: Vec<(u32, PathBuf)> = Vec::new();
    std::fs::read_dir(dir)?;
    walk(dir, SEARCH_DEPTH, &mut |path, name| {
        let pid = name
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if !out.iter().any(|(p, _)| *p == pid) {
                out.push((pid, path.to_path_buf()));
            }
        }
        false
    });
    out.sort();
    Ok(out)
}

/// The file named `name` in `dir`, else in the directories below it (at
/// most [`SEARCH_DEPTH`] levels, breadth first, each level in name
/// order): where a tool finds a server by its pid or namespace.
pub fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut hit = None;
    walk(dir, SEARCH_DEPTH, &mut |path, n| {
        if n == name {
            hit = Some(path.to_path_buf());
        }
        hit.is_some()
    });
    hit
}

/// Calls `visit` with each regular file in `dir` and the directories
/// below it, `depth` levels at most, breadth first, each level in name
/// order, without following symbolic links, until `visit` says stop.
/// Unreadable directories are skipped.
fn walk(dir: &Path, depth: usize, visit: &mut dyn FnMut(&Path, &str) -> bool) {
    let mut level = vec![dir.to_path_buf()];
    for d in 0..=depth {
        let mut below = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let Ok(t) = e.file_type() else {
                    continue;
                };
                if t.is_dir() && d < depth {
                    below.push(e.path());
                } else if t.is_file() {
                    if let Some(name) = e.file_name().to_str() {
                        if visit(&e.path(), name) {
                            return;
                        }
                    }
                }
            }
        }
        level = below;
    }
}

/// `pmix.<host>.tool.<nspace>` in `dir`.
pub fn by_nspace(dir: &Path, host: &str, nspace: &str) -> PathBuf {
    dir.join(format!("pmix.{host}.tool.{nspace}"))
}

/// `pmix.<host>.tool` in `dir`: the session's server.
pub fn session(dir: &Path, host: &str) -> PathBuf {
    dir.join(format!("pmix.{host}.tool"))
}

/// `pmix.sys.<host>` in `dir`: the system server.
pub fn system(dir: &Path, host: &str) -> PathBuf {
    dir.join(format!("pmix.sys.{host}"))
}

/// The URI our tools use in a file's `text`: its `unix://` line if it
/// has one, else its first line.
fn our_uri(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim);
    let first = lines.next().filter(|u| !u.is_empty())?;
    if first.contains(";unix://") {
        return Some(first);
    }
    Some(lines.find(|l| l.contains(";unix://")).unwrap_or(first))
}

/// The URI a rendezvous file holds for our tools (see the module doc),
/// if it is readable.
pub fn read_uri(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    our_uri(&text).map(str::to_owned)
}

/// What a server's files hold (OpenPMIx's lines): URI (the door's, if
/// given), version, pid, `uid:gid`, start time (seconds since the
/// epoch); then our URI when the first line is the door's.
fn contents(uri: &str, door: Option<&str>) -> String {
    let (uid, gid) = super::my_ids();
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let head = format!(
        "{}\n{}\n{}\n{uid}:{gid}\n{start}\n",
        door.unwrap_or(uri),
        LIBRARY_VERSION,
        std::process::id()
    );
    match door {
        Some(_) => format!("{head}{uri}\n"),
        None => head,
    }
}

/// The version a server's files give (OpenPMIx's `PMIX_VERSION` form).
pub const LIBRARY_VERSION: &str = "4.2.2";

/// A server found by its rendezvous file (see [`available`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerFile {
    /// Its URI (`nspace.rank;unix://socket`).
    pub uri: String,
    /// Its namespace and rank, from the URI.
    pub nspace: String,
    /// Its rank.
    pub rank: u32,
    /// The library version it wrote, if given.
    pub version: Option<String>,
    /// Its pid, if given.
    pub pid: Option<u32>,
    /// Its user and group, if given.
    pub ids: Option<(u32, u32)>,
    /// When it started, if given.
    pub start: Option<String>,
}

impl ServerFile {
    /// Reads a rendezvous file; `None` if it is not one.
    pub fn read(path: &Path) -> Option<ServerFile> {
        let text = std::fs::read_to_string(path).ok()?;
        let uri = our_uri(&text)?.to_owned();
        let mut lines = text.lines().map(str::trim);
        lines.next();
        let (id, _) = uri.split_once(';')?;
        let (nspace, rank) = id.rsplit_once('.')?;
        let rank = rank.parse().ok()?;
        let mut next = || lines.next().filter(|l| !l.is_empty()).map(str::to_owned);
        let version = next();
        let pid = next().and_then(|p| p.parse().ok());
        let ids = next().and_then(|l| {
            let (u, g) = l.split_once(':')?;
            Some((u.parse().ok()?, g.parse().ok()?))
        });
        let start = next();
        Some(ServerFile {
            nspace: nspace.to_owned(),
            rank,
            uri,
            version,
            pid,
            ids,
            start,
        })
    }
}

/// The servers whose rendezvous files (`pmix.*`) are in `dirs`, each once
/// (by namespace and rank), in the order found.
pub fn available(dirs: &[PathBuf]) -> Vec<ServerFile> {
    let mut found: Vec<ServerFile> = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("pmix."))
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .collect();
        names.sort();
        for p in names {
            if let Some(f) = ServerFile::read(&p) {
                if !found
                    .iter()
                    .any(|s| s.nspace == f.nspace && s.rank == f.rank)
                {
                    found.push(f);
                }
            }
        }
    }
    found
}

/// Removes this user's tool rendezvous files in `dir` (`pmix.<host>.tool`
/// and `pmix.<host>.tool.*`) whose server is gone: the pid the file gives
/// no longer exists and nobody listens on the socket its URI names (a
/// launcher killed by `SIGKILL` leaves them). Returns how many went.
pub fn remove_stale(dir: &Path, host: &str) -> usize {
    use std::os::unix::fs::MetadataExt;
    let (uid, _) = super::my_ids();
    let session = format!("pmix.{host}.tool");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let tool_file = name == session
            || name
                .strip_prefix(&session)
                .is_some_and(|r| r.starts_with('.'));
        if !tool_file || name.ends_with(".tmp") {
            continue;
        }
        let path = e.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.uid() == uid);
        let Some(f) = ours.then(|| ServerFile::read(&path)).flatten() else {
            continue;
        };
        let Some(pid) = f.pid.and_then(|p| i32::try_from(p).ok()) else {
            continue;
        };
        let socket = f.uri.split_once("unix://").map(|(_, s)| PathBuf::from(s));
        if crate::sys::process_exists(pid) || socket.is_some_and(|s| super::someone_listens(&s)) {
            continue;
        }
        if std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The system server whose file `pmix.sys.<host>` is in `dir`, if it
/// still serves: someone listens on the socket its URI names (a file a
/// killed server left behind names none).
pub fn running_system_server(dir: &Path, host: &str) -> Option<ServerFile> {
    let f = ServerFile::read(&system(dir, host))?;
    let socket = f.uri.split_once("unix://").map(|(_, s)| PathBuf::from(s))?;
    super::someone_listens(&socket).then_some(f)
}

/// The rendezvous files a server wrote; removed on drop.
#[derive(Debug, Default)]
pub struct ToolFiles {
    uri: String,
    paths: Vec<PathBuf>,
}

impl ToolFiles {
    /// Writes `uri` into each of `paths` (mode `0600`).
    pub fn write(uri: &str, paths: Vec<PathBuf>) -> std::io::Result<ToolFiles> {
        Self::write_with_door(uri, None, paths)
    }

    /// Writes `uri`, and first the stock door's URI `door` if given, into
    /// each of `paths` (mode `0600`).
    pub fn write_with_door(
        uri: &str,
        door: Option<&str>,
        paths: Vec<PathBuf>,
    ) -> std::io::Result<ToolFiles> {
        let mut files = ToolFiles {
            uri: uri.to_owned(),
            paths: Vec::with_capacity(paths.len()),
        };
        for p in paths {
            // Written aside, then renamed over the name: a leftover (or
            // another server's session file) is replaced atomically,
            // never written through, and servers starting at once do not
            // trip over each other.
            let mut name = p.clone().into_os_string();
            name.push(format!(".{}.tmp", std::process::id()));
            let aside = PathBuf::from(name);
            let _ = std::fs::remove_file(&aside);
            let written = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&aside)
                .and_then(|mut f| f.write_all(contents(uri, door).as_bytes()))
                .and_then(|()| std::fs::rename(&aside, &p));
            if let Err(e) = written {
                let _ = std::fs::remove_file(&aside);
                return Err(e);
            }
            files.paths.push(p);
        }
        Ok(files)
    }

    /// The files written.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

impl Drop for ToolFiles {
    fn drop(&mut self) {
        for p in &self.paths {
            if read_uri(p).as_deref() == Some(self.uri.as_str()) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn files_are_private_hold_the_uri_and_go_with_their_server() {
        let dir = std::env::temp_dir().join(format!("toolfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = by_pid(&dir, "h", 7);
        let s = session(&dir, "h");
        let files = ToolFiles::write("ns.0;unix:///x/sock", vec![a.clone(), s.clone()]).unwrap();
        assert_eq!(read_uri(&a).as_deref(), Some("ns.0;unix:///x/sock"));
        let f = ServerFile::read(&a).unwrap();
        assert_eq!((f.nspace.as_str(), f.rank), ("ns", 0));
        assert_eq!(f.pid, Some(std::process::id()));
        assert_eq!(f.ids, Some(super::super::my_ids()));
        assert_eq!(
            available(std::slice::from_ref(&dir)).len(),
            1,
            "one server, two files"
        );
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Another server took the session file: it stays.
        let other = ToolFiles::write("other.0;unix:///y/sock", vec![s.clone()]).unwrap();
        drop(files);
        assert!(!a.exists());
        assert_eq!(read_uri(&s).as_deref(), Some("other.0;unix:///y/sock"));
        drop(other);
        assert!(!s.exists());
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn with_a_door_openpmix_reads_its_uri_first_and_ours_the_unix_line() {
        let dir = std::env::temp_dir().join(format!("toolfiles-door-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = by_pid(&dir, "h", 8);
        let ours = "ns.0;unix:///x/sock";
        let door = "ns.0;tcp4://127.0.0.1:4242";
        let files = ToolFiles::write_with_door(ours, Some(door), vec![a.clone()]).unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // OpenPMIx's reader: the URI, then the version.
        assert_eq!(lines[0], door);
        assert_eq!(lines[1], LIBRARY_VERSION);
        assert_eq!(read_uri(&a).as_deref(), Some(ours));
        let f = ServerFile::read(&a).unwrap();
        assert_eq!((f.uri.as_str(), f.pid), (ours, Some(std::process::id())));
        drop(files);
        assert!(!a.exists(), "removed with its server");
        let _ = std::fs::remove_dir(&dir);
    }
}
