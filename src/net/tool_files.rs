//! The rendezvous files through which tools find a server (OpenPMIx's
//! names): in the server's temporary directory `pmix.<host>.tool.<pid>`
//! (by the server's pid), `pmix.<host>.tool.<nspace>` (by its namespace)
//! and `pmix.<host>.tool` (the session's server); in the system temporary
//! directory `pmix.sys.<host>` (the system server). Each holds the
//! server's URI on its first line.
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

/// The URI a rendezvous file holds (its first line), if it is readable.
pub fn read_uri(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let uri = text.lines().next()?.trim();
    (!uri.is_empty()).then(|| uri.to_owned())
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
                .and_then(|mut f| writeln!(f, "{uri}"))
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
}
