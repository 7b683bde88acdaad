//! A tool's connections to several servers (`PMIx_tool_attach_to_server`,
//! `_set_server`, `_get_servers`, `_disconnect`): a [`ToolSession`] holds
//! every connection a tool opened, in order, and which of them is its
//! primary server, the one its calls go to.
//!
//! Rules (those the C API states):
//! - Every connection is made under the tool's one identity, the first
//!   connection's (the one `PMIx_tool_init` opened): `PMIX_TOOL_NSPACE`
//!   and `PMIX_TOOL_RANK` given to an attach are replaced by it.
//! - An attached server becomes primary with `PMIX_PRIMARY_SERVER`, or
//!   when the primary is not an open connection to a server (a tool
//!   initialized unconnected, whose first connection is its private
//!   server, or one whose primary was disconnected last).
//! - Disconnecting finalizes the connection; it leaves the list unless it
//!   was the last one still initialized, which stays (closed: calls then
//!   fail) so that the tool keeps an identity and a primary until it
//!   finalizes. A primary disconnected hands over to the first connection
//!   still initialized.
//! - Only open connections to real servers are listed or found by server
//!   (not the private one of an unconnected tool).
//! - `set_server` with `PMIX_WAIT_FOR_CONNECTION` attaches to a server it
//!   is not connected to by its namespace (in `PMIX_SERVER_TMPDIR` if
//!   given), retried every 50 ms until that server answers or
//!   `PMIX_TIMEOUT` (seconds) passes.
//! - Errors: no connection at all (an empty session) → `PMIX_ERR_INIT` to
//!   attach; a server not connected to → `PMIX_ERR_NOT_FOUND`; the wait
//!   ran out → `PMIX_ERR_TIMEOUT`.
//!
//! The session is generic over how a connection is held, `H`: a Rust
//! program holds `Arc<Client>`s (the default); the C layer holds the
//! `&'static Client`s it publishes. Invariant: the primary, when there is
//! one, is one of the listed connections (compared by address).

use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::Client;
use crate::{keys, Info, Key, Proc, Status, Value};

/// How long `set_server` waits between attempts to attach to a server
/// that is not there yet.
const RETRY: Duration = Duration::from_millis(50);

/// A tool's connections and its primary server (see the module doc).
pub struct ToolSession<H = Arc<Client>> {
    state: Mutex<Conns<H>>,
}

struct Conns<H> {
    /// Every connection, in the order opened.
    list: Vec<H>,
    /// The primary server's connection: one of `list`.
    primary: Option<H>,
}

impl<H> Default for ToolSession<H> {
    /// A session with no connection (attaching fails with
    /// `PMIX_ERR_INIT`: there is no identity to attach under).
    fn default() -> Self {
        ToolSession {
            state: Mutex::new(Conns {
                list: Vec::new(),
                primary: None,
            }),
        }
    }
}

impl<H: Deref<Target = Client>> Conns<H> {
    /// The open connection to `server`, if there is one.
    fn open_to(&self, server: &Proc) -> Option<&H> {
        self.list
            .iter()
            .find(|c| is_server_conn(c) && c.server() == server)
    }
}

/// An open connection to a real server (not the private one of a tool
/// initialized unconnected).
fn is_server_conn(c: &Client) -> bool {
    c.is_initialized() && !c.is_singleton()
}

fn same(a: &Client, b: &Client) -> bool {
    std::ptr::eq(a, b)
}

impl ToolSession<Arc<Client>> {
    /// `PMIx_tool_init` for a session: connects as a tool as
    /// [`Client::tool_init`] does, that connection the primary.
    pub fn init(infos: &[Info]) -> Result<Self, Status> {
        Ok(ToolSession::new(Arc::new(Client::tool_init(infos)?)))
    }

    /// `PMIx_tool_attach_to_server` (see [`attach_with`](Self::attach_with)).
    pub fn attach(&self, infos: &[Info]) -> Result<Arc<Client>, Status> {
        self.attach_with(infos.to_vec(), Arc::new)
    }

    /// `PMIx_tool_set_server` (see [`set_server_with`](Self::set_server_with)).
    pub fn set_server(&self, server: &Proc, infos: &[Info]) -> Result<Arc<Client>, Status> {
        self.set_server_with(server, infos, Arc::new)
    }
}

impl<H: Deref<Target = Client> + Clone> ToolSession<H> {
    /// A session whose first connection (and primary) is `first`, the
    /// connection `PMIx_tool_init` opened; its identity is the tool's.
    pub fn new(first: H) -> Self {
        ToolSession {
            state: Mutex::new(Conns {
                list: vec![first.clone()],
                primary: Some(first),
            }),
        }
    }

    /// The primary server's connection (`None` for an empty session).
    pub fn primary(&self) -> Option<H> {
        self.state.lock().primary.clone()
    }

    /// Every connection, in the order opened (closed ones included).
    pub fn connections(&self) -> Vec<H> {
        self.state.lock().list.clone()
    }

    /// `PMIx_tool_get_servers`: the servers this tool has open
    /// connections to, in the order opened.
    pub fn servers(&self) -> Vec<Proc> {
        let st = self.state.lock();
        st.list
            .iter()
            .filter(|c| is_server_conn(c))
            .map(|c| c.server().clone())
            .collect()
    }

    /// The open connection to `server`, if the tool has one.
    pub fn connection_to(&self, server: &Proc) -> Option<H> {
        self.state.lock().open_to(server).cloned()
    }

    /// `PMIx_tool_attach_to_server`: connects to one more server (found
    /// by `infos` as for [`Client::tool_init`]) under the tool's identity;
    /// `keep` turns the new connection into the handle the session holds.
    /// It becomes primary with `PMIX_PRIMARY_SERVER`, or when the primary
    /// is not an open connection to a server. `PMIX_ERR_INIT` for an empty
    /// session; else `Client::tool_init`'s errors.
    pub fn attach_with(
        &self,
        mut infos: Vec<Info>,
        keep: impl FnOnce(Client) -> H,
    ) -> Result<H, Status> {
        let me = self.identity()?;
        infos.retain(|i| {
            i.key.as_bytes() != keys::TOOL_NSPACE.as_bytes()
                && i.key.as_bytes() != keys::TOOL_RANK.as_bytes()
        });
        infos.push(Info::new(
            Key::new(keys::TOOL_NSPACE)?,
            Value::String(Some(me.nspace.as_c_str().to_owned())),
        ));
        infos.push(Info::new(
            Key::new(keys::TOOL_RANK)?,
            Value::Uint32(me.rank.0),
        ));
        // Connecting may wait (retries): not under the lock.
        let c = keep(Client::tool_init(&infos)?);
        // attrs begin: PMIx_tool_attach_to_server
        let asked = crate::info::flag_in(&infos, keys::PRIMARY_SERVER);
        // attrs end
        let mut st = self.state.lock();
        let primary = asked || st.primary.as_ref().map_or(true, |p| !is_server_conn(p));
        st.list.push(c.clone());
        if primary {
            st.primary = Some(c.clone());
        }
        Ok(c)
    }

    /// The identity every connection is made under: the first one's.
    fn identity(&self) -> Result<Proc, Status> {
        let st = self.state.lock();
        st.list
            .first()
            .map(|c| c.proc().clone())
            .ok_or(Status::ERR_INIT)
    }

    /// Makes the open connection to `server` primary, if there is one.
    fn switch_to(&self, server: &Proc) -> Option<H> {
        let mut st = self.state.lock();
        let c = st.open_to(server).cloned()?;
        st.primary = Some(c.clone());
        Some(c)
    }

    /// `PMIx_tool_set_server`: makes the tool's open connection to
    /// `server` its primary. With `PMIX_WAIT_FOR_CONNECTION` in `infos`, a
    /// server it is not connected to is attached to by its namespace (in
    /// `PMIX_SERVER_TMPDIR` if given), retried until it answers, or until
    /// `PMIX_TIMEOUT` seconds passed (`PMIX_ERR_TIMEOUT`); without it,
    /// `PMIX_ERR_NOT_FOUND`. `keep` as for
    /// [`attach_with`](Self::attach_with).
    pub fn set_server_with(
        &self,
        server: &Proc,
        infos: &[Info],
        keep: impl Fn(Client) -> H,
    ) -> Result<H, Status> {
        // attrs begin: PMIx_tool_set_server
        let wait = crate::info::flag_in(infos, keys::WAIT_FOR_CONNECTION);
        let deadline = crate::info::value_of(infos, keys::TIMEOUT)
            .and_then(crate::wire::int)
            .filter(|&t| t > 0)
            .map(|t| Instant::now() + Duration::from_secs(t as u64));
        // attrs end
        loop {
            if let Some(c) = self.switch_to(server) {
                return Ok(c);
            }
            if !wait {
                return Err(Status::ERR_NOT_FOUND);
            }
            let mut by_name: Vec<Info> = infos
                .iter()
                .filter(|i| i.key.as_bytes() == keys::SERVER_TMPDIR.as_bytes())
                .cloned()
                .collect();
            by_name.push(Info::new(
                Key::new(keys::SERVER_NSPACE)?,
                Value::String(Some(server.nspace.as_c_str().to_owned())),
            ));
            match self.attach_with(by_name, &keep) {
                // Attached to that server: the switch above finds it.
                Ok(c) if c.server() == server => {}
                Ok(_) | Err(Status::ERR_UNREACH) => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(Status::ERR_TIMEOUT);
                    }
                    std::thread::sleep(RETRY);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// `PMIx_tool_disconnect`: finalizes the tool's open connection to
    /// `server` (`PMIX_ERR_NOT_FOUND` if it has none) and returns what
    /// that finalize answered. The connection leaves the list unless no
    /// other is still initialized; if it was primary, the first one still
    /// initialized becomes primary.
    pub fn disconnect(&self, server: &Proc) -> Result<(), Status> {
        let c = self.connection_to(server).ok_or(Status::ERR_NOT_FOUND)?;
        let r = c.finalize();
        let mut st = self.state.lock();
        let next = st.list.iter().find(|o| o.is_initialized()).cloned();
        if let Some(next) = next {
            st.list.retain(|o| !same(o, &c));
            if st.primary.as_ref().is_some_and(|p| same(p, &c)) {
                st.primary = Some(next);
            }
        }
        r
    }

    /// Finalizes every connection still initialized and empties the
    /// session (the end of `PMIx_tool_finalize`; a connection already
    /// finalized, as the primary is by then in the C layer, is skipped).
    pub fn finalize(&self) {
        let all = {
            let mut st = self.state.lock();
            st.primary = None;
            std::mem::take(&mut st.list)
        };
        for c in all {
            if c.is_initialized() {
                let _ = c.finalize();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    fn unconnected(ns: &str) -> Client {
        let infos = [
            Info::new(
                Key::new(keys::TOOL_DO_NOT_CONNECT).unwrap(),
                Value::Bool(true),
            ),
            Info::new(
                Key::new(keys::TOOL_NSPACE).unwrap(),
                Value::String(Some(std::ffi::CString::new(ns).unwrap())),
            ),
        ];
        Client::tool_init(&infos).expect("an unconnected tool")
    }

    #[test]
    fn an_empty_session_has_no_identity_to_attach_under() {
        let s: ToolSession = ToolSession::default();
        assert!(s.primary().is_none());
        assert!(s.servers().is_empty());
        assert_eq!(s.attach(&[]).err(), Some(Status::ERR_INIT));
        let p = Proc::new(Nspace::new("nowhere").unwrap(), Rank(0));
        assert_eq!(s.disconnect(&p), Err(Status::ERR_NOT_FOUND));
        assert_eq!(s.set_server(&p, &[]).err(), Some(Status::ERR_NOT_FOUND));
    }

    #[test]
    fn an_unconnected_tool_lists_no_server_and_finds_none() {
        let s = ToolSession::new(Arc::new(unconnected("sess-unit")));
        let first = s.primary().expect("a primary");
        assert!(Arc::ptr_eq(&first, &s.connections()[0]));
        assert!(s.servers().is_empty(), "the private server is not listed");
        // Its private server is not one the tool can select or drop.
        let own = first.server().clone();
        assert_eq!(s.set_server(&own, &[]).err(), Some(Status::ERR_NOT_FOUND));
        assert_eq!(s.disconnect(&own), Err(Status::ERR_NOT_FOUND));
        // A server that never appears: the wait ends with a timeout.
        let tmp = std::env::temp_dir().join(format!("pmix-sess-unit-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let absent = Proc::new(Nspace::new("no-such-server").unwrap(), Rank(0));
        let wait = [
            Info::new(
                Key::new(keys::WAIT_FOR_CONNECTION).unwrap(),
                Value::Bool(true),
            ),
            Info::new(Key::new(keys::TIMEOUT).unwrap(), Value::Int(1)),
            Info::new(
                Key::new(keys::SERVER_TMPDIR).unwrap(),
                Value::String(Some(std::ffi::CString::new(tmp.to_str().unwrap()).unwrap())),
            ),
        ];
        let t0 = Instant::now();
        assert_eq!(
            s.set_server(&absent, &wait).err(),
            Some(Status::ERR_TIMEOUT)
        );
        assert!(t0.elapsed() < Duration::from_secs(30));
        assert!(Arc::ptr_eq(&s.primary().unwrap(), &first));
        s.finalize();
        assert!(!first.is_initialized());
        assert!(s.primary().is_none() && s.connections().is_empty());
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
