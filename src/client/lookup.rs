//! Lookups in the mapped segments: the realms and qualifiers of
//! `PMIx_Get`, and the job-layout queries (`PMIx_Resolve_peers`,
//! `PMIx_Resolve_nodes`).
//!
//! Where a get looks, by qualifier:
//! - `PMIX_SESSION_INFO`: the session realm.
//! - `PMIX_NODE_INFO`: the node realm of the node named by `PMIX_NODEID` or
//!   `PMIX_HOSTNAME`, else of the process's node (`PMIX_NODEID` of the
//!   process, this process's node for a wildcard rank).
//! - `PMIX_APP_INFO`: the application realm of `PMIX_APPNUM`, else of the
//!   process's application.
//! - none, wildcard rank: the job realm, then the session realm.
//! - none, a rank: its process realm, what it posted (newest modex first),
//!   the job realm; then its node's and its application's realms.

use pmix_shmem::{NodeSel, NsView, Reader, ValueRef};

use crate::info::InfoItem;
use crate::wire::Directives;
use crate::{keys, Nspace, Proc, Rank, Status};

/// The realm a qualifier asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RealmQualifier {
    /// No realm qualifier.
    #[default]
    None,
    /// `PMIX_SESSION_INFO`.
    Session,
    /// `PMIX_NODE_INFO`, with the node named by id or hostname if given.
    Node {
        /// `PMIX_NODEID`.
        id: Option<u32>,
        /// `PMIX_HOSTNAME`.
        hostname: Option<String>,
    },
    /// `PMIX_APP_INFO`, with `PMIX_APPNUM` if given.
    App(Option<u32>),
}

/// How the C API hands a get's value to its caller
/// (`PMIX_GET_STATIC_VALUES`, `PMIX_GET_POINTER_VALUES`); the core itself
/// ignores it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueStorage {
    /// A fresh copy the caller releases (the default).
    #[default]
    Copy,
    /// `PMIX_GET_STATIC_VALUES`: written into the caller's value.
    Static,
    /// `PMIX_GET_POINTER_VALUES`: a value the library owns (it wins over
    /// static values).
    Pointer,
}

/// The qualifiers and directives of one get, parsed once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GetOptions {
    /// Which realm.
    pub realm: RealmQualifier,
    /// `PMIX_OPTIONAL`, `PMIX_IMMEDIATE`, `PMIX_TIMEOUT`.
    pub directives: Directives,
    /// How the C API hands the value out.
    pub storage: ValueStorage,
    /// `PMIX_GET_REFRESH_CACHE`: a peer's posted data is asked of the
    /// server again, whatever this process holds of it.
    pub refresh: bool,
}

impl GetOptions {
    /// Reads the qualifiers among `infos`: the core's infos, or the C
    /// layer's read in place (see [`InfoItem`]). The one parser of a get's
    /// qualifiers.
    pub fn parse<I: InfoItem>(infos: &[I]) -> GetOptions {
        if infos.is_empty() {
            // The common get: no qualifier (kept cheap for the hot path).
            return GetOptions::default();
        }
        let mut realm = RealmQualifier::None;
        let mut storage = ValueStorage::Copy;
        let mut refresh = false;
        // An info none of the get's own qualifiers: maybe a directive.
        let mut other = false;
        let (mut id, mut host, mut app) = (None, None, None);
        let u32_of = |i: &I| i.view().int().and_then(|v| u32::try_from(v).ok());
        // attrs begin: PMIx_Get PMIx_Get_nb
        for i in infos {
            if i.key_is(keys::GET_POINTER_VALUES) {
                if i.view().flag() {
                    storage = ValueStorage::Pointer;
                }
            } else if i.key_is(keys::GET_STATIC_VALUES) {
                if i.view().flag() && storage == ValueStorage::Copy {
                    storage = ValueStorage::Static;
                }
            } else if i.key_is(keys::SESSION_INFO) {
                if i.view().flag() {
                    realm = RealmQualifier::Session;
                }
            } else if i.key_is(keys::NODE_INFO) {
                if i.view().flag() {
                    realm = RealmQualifier::Node {
                        id: None,
                        hostname: None,
                    };
                }
            } else if i.key_is(keys::APP_INFO) {
                if i.view().flag() {
                    realm = RealmQualifier::App(None);
                }
            } else if i.key_is(keys::NODEID) {
                id = u32_of(i);
            } else if i.key_is(keys::HOSTNAME) {
                host = i.view().str().map(str::to_owned);
            } else if i.key_is(keys::APPNUM) {
                app = u32_of(i);
            } else if i.key_is(keys::GET_REFRESH_CACHE) {
                refresh = i.view().flag();
            } else {
                other = true;
            }
        }
        // attrs end
        match &mut realm {
            RealmQualifier::Node { id: i, hostname: h } => {
                *i = id;
                *h = host;
            }
            RealmQualifier::App(a) => *a = app,
            _ => {}
        }
        GetOptions {
            realm,
            // Only the get's qualifiers (e.g. `PMIX_GET_POINTER_VALUES`
            // alone, the usual hot get): no directive to look for.
            directives: if other {
                Directives::parse_for(infos, crate::wire::directives::GET)
            } else {
                Directives::default()
            },
            storage,
            refresh,
        }
    }
}

fn u32_of(v: Option<ValueRef<'_>>) -> Option<u32> {
    v?.as_u32()
}

/// True if `rank` names one process (not a wildcard or other reserved
/// rank).
fn is_single(rank: Rank) -> bool {
    rank.0 <= Rank::VALID.0
}

/// The node of process `rank` of `ns`: by its `PMIX_NODEID` when it names
/// one process, else this process's node, by `PMIX_HOSTNAME` (which every
/// namespace's node table knows it by).
fn node_of<'r>(
    reader: &'r Reader<'_>,
    ns: &NsView<'r>,
    me: &Proc,
    rank: Rank,
) -> Option<NodeSel<'r>> {
    if is_single(rank) {
        return u32_of(ns.get(rank.0, keys::NODEID)).map(NodeSel::Id);
    }
    let mine = reader.namespace(&me.nspace.to_string_lossy())?;
    let host = mine
        .get(me.rank.0, keys::HOSTNAME)?
        .as_c_str()?
        .to_str()
        .ok()?;
    Some(NodeSel::Hostname(host))
}

/// The application of process `rank` of `ns` (this process's for a
/// wildcard of its own namespace, `own_nspace`).
fn app_of(ns: &NsView<'_>, me: &Proc, own_nspace: bool, rank: Rank) -> Option<u32> {
    let rank = if is_single(rank) {
        rank.0
    } else if own_nspace {
        me.rank.0
    } else {
        return None;
    };
    u32_of(ns.get(rank, keys::APPNUM))
}

/// `key` of `proc` in the segments, as the module documentation says.
pub(crate) fn in_segments<'r>(
    reader: &'r Reader<'_>,
    me: &Proc,
    proc: &Proc,
    key: &str,
    opts: &GetOptions,
) -> Option<ValueRef<'r>> {
    let ns = reader.namespace(&proc.nspace.to_string_lossy())?;
    in_view(
        reader,
        ns,
        me,
        proc.nspace == me.nspace,
        proc.rank,
        key,
        opts,
    )
}

/// [`in_segments`] with the namespace already resolved to `ns`
/// (`own_nspace`: it is this process's namespace): no allocation.
pub(crate) fn in_view<'r>(
    reader: &'r Reader<'_>,
    ns: NsView<'r>,
    me: &Proc,
    own_nspace: bool,
    rank: Rank,
    key: &str,
    opts: &GetOptions,
) -> Option<ValueRef<'r>> {
    match &opts.realm {
        RealmQualifier::Session => ns.session(key),
        RealmQualifier::Node { id, hostname } => match (id, hostname) {
            (Some(id), _) => ns.node(NodeSel::Id(*id), key),
            (None, Some(h)) => ns.node(NodeSel::Hostname(h), key),
            (None, None) => ns.node(node_of(reader, &ns, me, rank)?, key),
        },
        RealmQualifier::App(n) => {
            let n = match n {
                Some(n) => *n,
                None => app_of(&ns, me, own_nspace, rank)?,
            };
            ns.app(n, key)
        }
        // Some application-level keys asked of the whole job: the
        // caller's own application's (as OpenPMIx's clients answer them).
        RealmQualifier::None if rank == Rank::WILDCARD => {
            ns.job(key).or_else(|| ns.session(key)).or_else(|| {
                if !own_nspace || !keys::APP_LEVEL_OF_JOB.contains(&key) {
                    return None;
                }
                ns.app(app_of(&ns, me, true, me.rank)?, key)
            })
        }
        RealmQualifier::None => {
            if !is_single(rank) {
                return None;
            }
            ns.get(rank.0, key)
                .or_else(|| ns.node(node_of(reader, &ns, me, rank)?, key))
                .or_else(|| ns.app(app_of(&ns, me, own_nspace, rank)?, key))
        }
    }
}

/// True if a get of `rank` with `opts` reads the process realm first,
/// then the process's node's and application's realms (no realm
/// qualifier, one process).
pub(crate) fn reads_rank_then_realms(opts: &GetOptions, rank: Rank) -> bool {
    opts.realm == RealmQualifier::None && is_single(rank)
}

/// Comma-separated ranks (`PMIX_LOCAL_PEERS`) to processes of `ns`.
fn parse_ranks(ns: &Nspace, list: &str) -> Result<Vec<Proc>, Status> {
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .parse::<u32>()
                .map(|r| Proc::new(ns.clone(), Rank(r)))
                .map_err(|_| Status::ERR_BAD_PARAM)
        })
        .collect()
}

/// The processes of `nspace` on `node` (`None`: this process's node).
pub(crate) fn peers_on(
    reader: &Reader<'_>,
    me: &Proc,
    nspace: &Nspace,
    node: Option<&str>,
) -> Result<Vec<Proc>, Status> {
    let Some(ns) = reader.namespace(&nspace.to_string_lossy()) else {
        return Ok(Vec::new());
    };
    let sel = match node {
        Some(h) => NodeSel::Hostname(h),
        None => {
            let mine = reader.namespace(&me.nspace.to_string_lossy());
            let host = mine
                .as_ref()
                .and_then(|m| m.get(me.rank.0, keys::HOSTNAME))
                .and_then(|v| v.as_c_str())
                .and_then(|c| c.to_str().ok());
            match host {
                Some(h) => NodeSel::Hostname(h),
                None => return Ok(Vec::new()),
            }
        }
    };
    if let Some(list) = ns.node(sel, keys::LOCAL_PEERS) {
        let list = list.as_c_str().and_then(|c| c.to_str().ok()).unwrap_or("");
        return parse_ranks(nspace, list);
    }
    // No node table: scan the ranks' hostnames.
    let Some(size) = u32_of(ns.job(keys::JOB_SIZE)) else {
        return Ok(Vec::new());
    };
    let want = match sel {
        NodeSel::Hostname(h) => h,
        NodeSel::Id(_) => return Ok(Vec::new()),
    };
    Ok((0..size)
        .filter(|&r| {
            ns.get(r, keys::HOSTNAME)
                .and_then(|v| v.as_c_str())
                .is_some_and(|c| c.to_bytes() == want.as_bytes())
        })
        .map(|r| Proc::new(nspace.clone(), Rank(r)))
        .collect())
}

/// The hostnames where `nspace` has processes (`PMIX_NODE_LIST`, else
/// the ranks' `PMIX_HOSTNAME`s).
pub(crate) fn nodes_of(reader: &Reader<'_>, nspace: &Nspace) -> Result<Vec<String>, Status> {
    let ns = reader
        .namespace(&nspace.to_string_lossy())
        .ok_or(Status::ERR_NOT_FOUND)?;
    if let Some(list) = ns.job(keys::NODE_LIST).and_then(|v| v.as_c_str()) {
        return Ok(list
            .to_string_lossy()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect());
    }
    let size = u32_of(ns.job(keys::JOB_SIZE)).ok_or(Status::ERR_NOT_FOUND)?;
    let mut out: Vec<String> = Vec::new();
    for r in 0..size {
        if let Some(h) = ns.get(r, keys::HOSTNAME).and_then(|v| v.as_c_str()) {
            let h = h.to_string_lossy().into_owned();
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Info, Key, Value};

    #[test]
    fn qualifiers_select_realms() {
        let k = |s: &str| Key::new(s).unwrap();
        let o = GetOptions::parse(&[
            Info::new(k(keys::NODE_INFO), Value::Bool(true)),
            Info::new(k(keys::HOSTNAME), Value::string("n1")),
        ]);
        assert_eq!(
            o.realm,
            RealmQualifier::Node {
                id: None,
                hostname: Some("n1".into())
            }
        );
        let o = GetOptions::parse(&[
            Info::new(k(keys::APPNUM), Value::Uint32(2)),
            Info::new(k(keys::APP_INFO), Value::Bool(true)),
            Info::new(k(keys::OPTIONAL), Value::Bool(true)),
        ]);
        assert_eq!(o.realm, RealmQualifier::App(Some(2)));
        assert!(o.directives.optional);
    }

    #[test]
    fn rank_lists_parse() {
        let ns = Nspace::new("j").unwrap();
        let v = parse_ranks(&ns, "0,2, 5").unwrap();
        assert_eq!(v.iter().map(|p| p.rank.0).collect::<Vec<_>>(), [0, 2, 5]);
        assert!(parse_ranks(&ns, "0,x").is_err());
    }
}
