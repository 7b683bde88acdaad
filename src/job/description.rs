//! The job description: what `PMIx_server_register_nspace` was told, in
//! every form section 16.2.3.2 of the standard allows, reduced to one
//! model (session, job, applications, nodes, processes).
//!
//! [`JobDescription::from_registration`] collects the infos here
//! ([`Collected`]), then [`super::derive`] lays the job out and derives
//! what the host did not give.

use std::collections::BTreeMap;

use super::error::JobError;
use super::realm::{canonical_type, convert, key_realm, Realm};
use crate::keys as k;
use crate::regex::{parse_node_regex, parse_ppn};
use crate::value::DataArray;
use crate::{DataType, Info, Nspace, Value};

/// A small ordered list of keys and values; setting a key again replaces
/// its value in place (as OpenPMIx's trackers do).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyValues(Vec<(String, Value)>);

impl KeyValues {
    /// An empty list.
    pub fn new() -> Self {
        KeyValues(Vec::new())
    }

    /// Sets `key`, replacing an earlier value.
    pub fn set(&mut self, key: &str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }

    /// Sets `key` only if it has no value yet.
    pub fn set_default(&mut self, key: &str, value: impl FnOnce() -> Value) {
        if self.get(key).is_none() {
            self.0.push((key.to_owned(), value()));
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    /// The keys and values, in the order first set.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True if there is no key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets every key of `other` (later values win).
    pub fn merge(&mut self, other: KeyValues) {
        for (k, v) in other.0 {
            self.set(&k, v);
        }
    }

    /// As infos.
    pub fn to_infos(&self) -> Vec<Info> {
        self.iter().map(|(k, v)| info(k, v.clone())).collect()
    }
}

/// An info from a key known to be valid.
pub(crate) fn info(key: &str, value: Value) -> Info {
    Info::new(
        crate::Key::new(key).unwrap_or_else(|_| crate::Key::truncated(c"")),
        value,
    )
}

/// The accessors a node and an application share: `ranks` (documented
/// by `$ranks_doc`) and the keys of their realm (`$realm`).
macro_rules! ranks_and_infos {
    ($ranks_doc:literal, $realm:literal) => {
        #[doc = $ranks_doc]
        pub fn ranks(&self) -> &[u32] {
            &self.ranks
        }

        #[doc = concat!("A value of the ", $realm, " realm.")]
        pub fn info(&self, key: &str) -> Option<&Value> {
            self.infos.get(key)
        }

        #[doc = concat!("Every key and value of the ", $realm, " realm.")]
        pub fn infos(&self) -> &KeyValues {
            &self.infos
        }
    };
}

/// One node of the job (or of its session).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeDesc {
    pub(crate) id: u32,
    pub(crate) hostname: Option<String>,
    pub(crate) aliases: Vec<String>,
    /// Ranks of the job on this node, in local-rank order.
    pub(crate) ranks: Vec<u32>,
    /// Node-realm keys, given and derived (`PMIX_HOSTNAME` and
    /// `PMIX_NODEID` included once derived).
    pub(crate) infos: KeyValues,
}

impl NodeDesc {
    /// `PMIX_NODEID`.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// `PMIX_HOSTNAME`, if known.
    pub fn hostname(&self) -> Option<&str> {
        self.hostname.as_deref()
    }

    /// Other names of the node (`PMIX_HOSTNAME_ALIASES`).
    pub fn aliases(&self) -> &[String] {
        &self.aliases
    }

    ranks_and_infos!(
        "The job's ranks on this node, in local-rank order (what `PMIX_LOCAL_PEERS` lists).",
        "node"
    );

    /// True if `name` is this node's hostname or one of its aliases.
    pub fn is_named(&self, name: &str) -> bool {
        self.hostname.as_deref() == Some(name) || self.aliases.iter().any(|a| a == name)
    }
}

/// One application of the job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppDesc {
    pub(crate) appnum: u32,
    /// Ranks of the application, ascending (filled by the derivation).
    pub(crate) ranks: Vec<u32>,
    pub(crate) infos: KeyValues,
}

impl AppDesc {
    /// `PMIX_APPNUM`.
    pub fn appnum(&self) -> u32 {
        self.appnum
    }

    /// `PMIX_APP_SIZE`.
    pub fn size(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// `PMIX_APPLDR`: the lowest rank, `None` for an empty application.
    pub fn leader(&self) -> Option<u32> {
        self.ranks.first().copied()
    }

    ranks_and_infos!("The application's ranks, ascending.", "application");
}

/// What one `PMIX_PROC_DATA` array said about one rank.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GivenProc {
    pub appnum: Option<u32>,
    pub local_rank: Option<u16>,
    pub node_rank: Option<u16>,
    pub app_rank: Option<u32>,
    pub global_rank: Option<u32>,
    pub nodeid: Option<u32>,
    pub hostname: Option<String>,
    /// Every other key, as given (reserved keys in their canonical type).
    pub extra: KeyValues,
}

/// A node as the registration describes it, before the layout is known.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NodeRecord {
    pub id: Option<u32>,
    pub hostname: Option<String>,
    pub aliases: Vec<String>,
    pub infos: KeyValues,
}

impl NodeRecord {
    fn matches(&self, other: &NodeRecord) -> bool {
        (self.id.is_some() && self.id == other.id)
            || other.hostname.as_deref().is_some_and(|h| self.is_named(h))
            || self.hostname.as_deref().is_some_and(|h| other.is_named(h))
    }

    pub fn is_named(&self, name: &str) -> bool {
        self.hostname.as_deref() == Some(name) || self.aliases.iter().any(|a| a == name)
    }

    /// Merges `other` into `self`, refusing contradictory identities.
    pub(crate) fn absorb(&mut self, other: NodeRecord) -> Result<(), JobError> {
        match (self.id, other.id) {
            (Some(a), Some(b)) if a != b => {
                return Err(JobError::NodeConflict(format!(
                    "node {:?} has ids {a} and {b}",
                    self.hostname.as_deref().or(other.hostname.as_deref())
                )))
            }
            (None, b) => self.id = b,
            _ => {}
        }
        match (&self.hostname, other.hostname) {
            (Some(a), Some(b)) if *a != b && !self.aliases.contains(&b) => {
                return Err(JobError::NodeConflict(format!(
                    "node {:?} is named both {a:?} and {b:?}",
                    self.id
                )))
            }
            (None, b) => self.hostname = b,
            _ => {}
        }
        for a in other.aliases {
            if !self.aliases.contains(&a) {
                self.aliases.push(a);
            }
        }
        self.infos.merge(other.infos);
        Ok(())
    }
}

/// Adds a node record to `list`, merging it with every record that shares
/// its id or one of its names.
pub(crate) fn add_node_record(
    list: &mut Vec<NodeRecord>,
    mut rec: NodeRecord,
) -> Result<usize, JobError> {
    let mut first: Option<usize> = None;
    let mut i = 0;
    while i < list.len() {
        if list[i].matches(&rec) {
            match first {
                None => {
                    list[i].absorb(std::mem::take(&mut rec))?;
                    first = Some(i);
                    rec = list[i].clone();
                    i += 1;
                }
                Some(f) => {
                    let other = list.remove(i);
                    list[f].absorb(other)?;
                    rec = list[f].clone();
                }
            }
        } else {
            i += 1;
        }
    }
    match first {
        Some(f) => Ok(f),
        None => {
            list.push(rec);
            Ok(list.len() - 1)
        }
    }
}

/// An application as the registration describes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct AppRecord {
    pub appnum: u32,
    pub infos: KeyValues,
}

/// Everything the registration said, sorted by realm, before the layout
/// is derived.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    pub nodata: bool,
    pub session_id: Option<u32>,
    pub session: KeyValues,
    pub job: KeyValues,
    pub node_map: Option<Vec<String>>,
    pub proc_map: Option<Vec<Vec<u32>>>,
    pub nodes: Vec<NodeRecord>,
    /// Node keys given on their own: they describe this node.
    pub local_node: KeyValues,
    pub apps: Vec<AppRecord>,
    /// Application keys given on their own: they describe the only
    /// application.
    pub default_app: KeyValues,
    pub default_appnum: Option<u32>,
    pub procs: BTreeMap<u32, GivenProc>,
}

fn type_name(v: &Value) -> String {
    format!("{:?}", v.data_type())
}

fn bad_type(key: &str, expected: &'static str, v: &Value) -> JobError {
    JobError::BadType {
        key: key.to_owned(),
        expected,
        found: type_name(v),
    }
}

/// `v` in the canonical type of `key` (if it has one), else as given.
pub(crate) fn canonical(key: &str, v: &Value) -> Result<Value, JobError> {
    match canonical_type(key) {
        // A NULL string is a string: Open MPI's mpirun registers
        // `PMIX_LOCALITY_STRING` as NULL for unbound ranks, and OpenPMIx
        // keeps it so.
        Some(DataType::String) if matches!(v, Value::String(None)) => Ok(v.clone()),
        None => Ok(v.clone()),
        Some(t) => convert(v, t).ok_or_else(|| {
            bad_type(
                key,
                match t {
                    DataType::Uint16 => "a 16-bit unsigned integer",
                    DataType::ProcRank => "a rank",
                    DataType::String => "a string",
                    _ => "a 32-bit unsigned integer",
                },
                v,
            )
        }),
    }
}

pub(crate) fn want_u32(key: &str, v: &Value) -> Result<u32, JobError> {
    match convert(v, DataType::Uint32) {
        Some(Value::Uint32(x)) => Ok(x),
        _ => Err(bad_type(key, "a 32-bit unsigned integer", v)),
    }
}

fn want_u16(key: &str, v: &Value) -> Result<u16, JobError> {
    match convert(v, DataType::Uint16) {
        Some(Value::Uint16(x)) => Ok(x),
        _ => Err(bad_type(key, "a 16-bit unsigned integer", v)),
    }
}

fn want_rank(key: &str, v: &Value) -> Result<u32, JobError> {
    match convert(v, DataType::ProcRank) {
        Some(Value::ProcRank(x)) if x <= crate::Rank::VALID.0 => Ok(x),
        _ => Err(bad_type(key, "a valid rank", v)),
    }
}

pub(crate) fn want_string(key: &str, v: &Value) -> Result<String, JobError> {
    match v {
        Value::String(Some(s)) => s
            .to_str()
            .map(str::to_owned)
            .map_err(|_| bad_type(key, "a UTF-8 string", v)),
        _ => Err(bad_type(key, "a string", v)),
    }
}

/// The infos of a `pmix_data_array_t` of `PMIX_INFO`.
fn info_array<'a>(key: &str, v: &'a Value) -> Result<Vec<&'a Info>, JobError> {
    let Value::DataArray(a) = v else {
        return Err(bad_type(key, "an array of infos", v));
    };
    let DataArray { items, .. } = a.as_ref();
    items
        .iter()
        .map(|item| match item {
            Value::Info(i) => Ok(i.as_ref()),
            other => Err(bad_type(key, "an array of infos", other)),
        })
        .collect()
}

/// The infos of a `pmix_data_array_t` of `PMIX_INFO`, without collecting
/// them.
fn info_items<'a>(
    key: &str,
    v: &'a Value,
) -> Result<impl Iterator<Item = &'a Info> + Clone, JobError> {
    let Value::DataArray(a) = v else {
        return Err(bad_type(key, "an array of infos", v));
    };
    if let Some(other) = a.items.iter().find(|x| !matches!(x, Value::Info(_))) {
        return Err(bad_type(key, "an array of infos", other));
    }
    Ok(a.items.iter().filter_map(|x| match x {
        Value::Info(i) => Some(i.as_ref()),
        _ => None,
    }))
}

/// The key of an info as text.
fn key_of(i: &Info) -> Result<&str, JobError> {
    std::str::from_utf8(i.key.as_bytes()).map_err(|_| JobError::BadType {
        key: i.key.to_string_lossy().into_owned(),
        expected: "a UTF-8 key",
        found: "other bytes".into(),
    })
}

/// The bytes of a map value (`PMIX_STRING` or `PMIX_REGEX`).
fn map_bytes<'a>(key: &str, v: &'a Value) -> Result<&'a [u8], JobError> {
    match v {
        Value::String(Some(s)) => Ok(s.as_bytes()),
        Value::Regex(b) => Ok(b),
        _ => Err(bad_type(key, "a string or a regex", v)),
    }
}

/// The primary key and value of a `PMIX_QUALIFIED_VALUE` (its first info);
/// the qualifiers are dropped.
fn qualified(v: &Value) -> Result<(String, Value), JobError> {
    let infos = info_array(k::QUALIFIED_VALUE, v)?;
    let first = infos.first().ok_or_else(|| JobError::BadType {
        key: k::QUALIFIED_VALUE.into(),
        expected: "a non-empty array of infos",
        found: "an empty array".into(),
    })?;
    let key = key_of(first)?;
    Ok((key.to_owned(), canonical(key, &first.value)?))
}

/// Where a key is being read: at the top level of the registration or
/// inside one of the realm arrays.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    JobArray,
}

// attrs begin: PMIx_server_register_nspace
impl Collected {
    /// Files every info of a registration.
    pub fn from_infos(infos: &[Info]) -> Result<Collected, JobError> {
        let mut c = Collected {
            nodata: infos.iter().any(|i| {
                i.key.as_bytes() == k::REGISTER_NODATA.as_bytes()
                    && !matches!(i.value, Value::Bool(false))
            }),
            ..Collected::default()
        };
        if c.nodata {
            return Ok(c);
        }
        for i in infos {
            c.top_info(i, Level::Top)?;
        }
        Ok(c)
    }

    fn top_info(&mut self, i: &Info, level: Level) -> Result<(), JobError> {
        // The common case of a large registration, before any key check.
        if level == Level::Top && i.key.as_bytes() == k::PROC_DATA.as_bytes() {
            return self.proc_data(&i.value);
        }
        let key = key_of(i)?;
        let v = &i.value;
        match key {
            k::SESSION_INFO_ARRAY if level == Level::Top => self.session_array(v),
            k::JOB_INFO_ARRAY if level == Level::Top => {
                for j in info_array(key, v)? {
                    self.top_info(j, Level::JobArray)?;
                }
                Ok(())
            }
            k::APP_INFO_ARRAY => self.app_array(v),
            k::NODE_INFO_ARRAY => {
                let rec = node_array(v)?;
                add_node_record(&mut self.nodes, rec).map(|_| ())
            }
            k::NODE_MAP => {
                if self.node_map.is_some() {
                    return Err(JobError::DuplicateMap("PMIX_NODE_MAP"));
                }
                self.node_map = Some(parse_node_regex(map_bytes(key, v)?)?);
                // Kept as given too: a client may read it back.
                self.job.set(key, v.clone());
                Ok(())
            }
            k::PROC_MAP => {
                if self.proc_map.is_some() {
                    return Err(JobError::DuplicateMap("PMIX_PROC_MAP"));
                }
                self.proc_map = Some(parse_ppn(map_bytes(key, v)?)?);
                self.job.set(key, v.clone());
                Ok(())
            }
            k::PROC_DATA if level == Level::Top => self.proc_data(v),
            k::SESSION_ID if level == Level::Top => {
                let id = want_u32(key, v)?;
                self.set_session_id(id)
            }
            k::QUALIFIED_VALUE => {
                let (key, v) = qualified(v)?;
                self.job.set(&key, v);
                Ok(())
            }
            k::APPNUM if level == Level::Top => {
                self.default_appnum = Some(want_u32(key, v)?);
                Ok(())
            }
            k::NSPACE
            | k::JOBID
            | k::JOB_SIZE
            | k::MAX_PROCS
            | k::NUM_NODES
            | k::NPROC_OFFSET
            | k::JOB_NUM_APPS
            | k::NSDIR => {
                self.job.set(key, canonical(key, v)?);
                Ok(())
            }
            _ if level == Level::Top => match key_realm(key) {
                Realm::Session => {
                    self.session.set(key, canonical(key, v)?);
                    Ok(())
                }
                Realm::Node => {
                    self.local_node.set(key, canonical(key, v)?);
                    Ok(())
                }
                Realm::App => {
                    self.default_app.set(key, canonical(key, v)?);
                    Ok(())
                }
                Realm::Job | Realm::Proc => {
                    self.job.set(key, canonical(key, v)?);
                    Ok(())
                }
            },
            _ => {
                self.job.set(key, canonical(key, v)?);
                Ok(())
            }
        }
    }

    fn set_session_id(&mut self, id: u32) -> Result<(), JobError> {
        match self.session_id {
            Some(s) if s != id => Err(JobError::Session("two different PMIX_SESSION_IDs")),
            _ => {
                self.session_id = Some(id);
                Ok(())
            }
        }
    }

    /// `PMIX_SESSION_INFO_ARRAY`: `PMIX_SESSION_ID` is required; node arrays
    /// inside describe nodes of the session.
    fn session_array(&mut self, v: &Value) -> Result<(), JobError> {
        let mut id = None;
        let mut kv = KeyValues::new();
        for i in info_array(k::SESSION_INFO_ARRAY, v)? {
            let key = key_of(i)?;
            match key {
                k::SESSION_ID => id = Some(want_u32(key, &i.value)?),
                k::NODE_INFO_ARRAY => {
                    add_node_record(&mut self.nodes, node_array(&i.value)?)?;
                }
                _ => kv.set(key, canonical(key, &i.value)?),
            }
        }
        let id = id.ok_or(JobError::Session(
            "PMIX_SESSION_INFO_ARRAY without PMIX_SESSION_ID",
        ))?;
        self.set_session_id(id)?;
        self.session.merge(kv);
        Ok(())
    }

    /// `PMIX_APP_INFO_ARRAY`: one application, named by `PMIX_APPNUM`
    /// (optional if the job has only one application).
    fn app_array(&mut self, v: &Value) -> Result<(), JobError> {
        let mut appnum: Option<u32> = None;
        let mut kv = KeyValues::new();
        let mut app_nodes: Vec<Value> = Vec::new();
        for i in info_array(k::APP_INFO_ARRAY, v)? {
            let key = key_of(i)?;
            match key {
                k::APPNUM => {
                    let n = want_u32(key, &i.value)?;
                    if let Some(a) = appnum {
                        return Err(JobError::TwoAppnums(a, n));
                    }
                    appnum = Some(n);
                }
                // Node information particular to the application: checked,
                // and kept as the array it is in the application realm.
                k::NODE_INFO_ARRAY => {
                    node_array(&i.value)?;
                    app_nodes.push(i.value.clone());
                }
                _ => kv.set(key, canonical(key, &i.value)?),
            }
        }
        if let Some(last) = app_nodes.pop() {
            kv.set(k::NODE_INFO_ARRAY, last);
        }
        let appnum = match appnum {
            Some(n) => n,
            None if self.apps.len() <= 1 => self.apps.first().map_or(0, |a| a.appnum),
            None => return Err(JobError::AppnumRequired),
        };
        match self.apps.iter_mut().find(|a| a.appnum == appnum) {
            Some(a) => a.infos.merge(kv),
            None => self.apps.push(AppRecord { appnum, infos: kv }),
        }
        Ok(())
    }

    /// `PMIX_PROC_DATA`: the data of one rank; `PMIX_RANK` names it.
    fn proc_data(&mut self, v: &Value) -> Result<(), JobError> {
        // One array per rank: a million of them for a large job, so keys are
        // matched on their bytes and nothing is collected.
        let infos = info_items(k::PROC_DATA, v)?;
        let rank_info = infos
            .clone()
            .find(|i| i.key.as_bytes() == k::RANK.as_bytes())
            .ok_or(JobError::ProcDataWithoutRank)?;
        let rank = want_rank(k::RANK, &rank_info.value)?;
        let p = self.procs.entry(rank).or_default();
        for i in infos {
            let kb = i.key.as_bytes();
            let v = &i.value;
            let is = |key: &str| kb == key.as_bytes();
            if is(k::RANK) {
            } else if is(k::APPNUM) {
                p.appnum = Some(want_u32(k::APPNUM, v)?);
            } else if is(k::LOCAL_RANK) {
                p.local_rank = Some(want_u16(k::LOCAL_RANK, v)?);
            } else if is(k::NODE_RANK) {
                p.node_rank = Some(want_u16(k::NODE_RANK, v)?);
            } else if is(k::APP_RANK) {
                p.app_rank = Some(want_rank(k::APP_RANK, v)?);
            } else if is(k::GLOBAL_RANK) {
                p.global_rank = Some(want_rank(k::GLOBAL_RANK, v)?);
            } else if is(k::NODEID) {
                p.nodeid = Some(want_u32(k::NODEID, v)?);
            } else if is(k::HOSTNAME) {
                p.hostname = Some(want_string(k::HOSTNAME, v)?);
            } else if is(k::QUALIFIED_VALUE) {
                let (key, v) = qualified(v)?;
                p.extra.set(&key, v);
            } else {
                let key = key_of(i)?;
                p.extra.set(key, canonical(key, v)?);
            }
        }
        Ok(())
    }
}

/// `PMIX_NODE_INFO_ARRAY`: one node, named by `PMIX_NODEID` and/or
/// `PMIX_HOSTNAME`.
fn node_array(v: &Value) -> Result<NodeRecord, JobError> {
    let mut rec = NodeRecord::default();
    for i in info_array(k::NODE_INFO_ARRAY, v)? {
        let key = key_of(i)?;
        match key {
            k::NODEID => rec.id = Some(want_u32(key, &i.value)?),
            k::HOSTNAME => rec.hostname = Some(want_string(key, &i.value)?),
            k::HOSTNAME_ALIASES => {
                let list = want_string(key, &i.value)?;
                rec.aliases = list
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                rec.infos.set(key, i.value.clone());
            }
            _ => rec.infos.set(key, canonical(key, &i.value)?),
        }
    }
    if rec.id.is_none() && rec.hostname.is_none() {
        return Err(JobError::NodeWithoutIdentity);
    }
    Ok(rec)
}
// attrs end

/// A job as `PMIx_server_register_nspace` describes it, with everything a
/// client expects derived. Build one with
/// [`from_registration`](Self::from_registration) (or
/// [`single_node`](Self::single_node)), write its segment with
/// [`build_segment`](Self::build_segment).
#[derive(Clone, Debug)]
pub struct JobDescription {
    pub(crate) nspace: Nspace,
    pub(crate) nlocalprocs: u32,
    pub(crate) local_hostname: String,
    pub(crate) nodata: bool,
    pub(crate) size: u32,
    pub(crate) session_id: Option<u32>,
    /// Session-realm keys (given and derived).
    pub(crate) session: KeyValues,
    /// Job-realm keys (given and derived).
    pub(crate) job: KeyValues,
    /// Applications, by increasing number.
    pub(crate) apps: Vec<AppDesc>,
    /// Nodes: those of the node map in its order, then the others.
    pub(crate) nodes: Vec<NodeDesc>,
    /// Index in `nodes` of this server's node.
    pub(crate) local_node: Option<usize>,
    pub(crate) procs: ProcTable,
}

/// Index meaning "none" in the per-rank tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Per-rank data, indexed by rank.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProcTable {
    /// Index in `nodes`, or [`NONE`].
    pub node: Vec<u32>,
    /// Index in `apps`, or [`NONE`].
    pub app: Vec<u32>,
    pub local_rank: Vec<u16>,
    pub node_rank: Vec<u16>,
    pub app_rank: Vec<u32>,
    pub global_rank: Vec<u32>,
    /// Other process-realm keys, given (`PMIX_PROC_DATA`) or derived for
    /// local ranks (`PMIX_PROCDIR`, `PMIX_LOCALITY_STRING`).
    pub extra: BTreeMap<u32, KeyValues>,
}
