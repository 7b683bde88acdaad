//! [`PublishedData`]: a datastore for `PMIx_Publish` / `PMIx_Lookup` /
//! `PMIx_Unpublish`, ready for a host to serve its `publish`, `lookup`
//! and `unpublish` callbacks from (`pmixrun` does).
//!
//! Rules (chapter "Publish and Lookup Data" of the standard, section 8.8
//! "Retrieval rules"):
//! - Infos of a publish other than the directives (`PMIX_RANGE`,
//!   `PMIX_PERSISTENCE`, `PMIX_TIMEOUT`, `PMIX_USERID`, `PMIX_GRPID`,
//!   `PMIX_ACCESS_PERMISSIONS`) are the data. Range defaults to
//!   `PMIX_RANGE_SESSION`, persistence to `PMIX_PERSIST_APP`.
//! - A key already published on the same range — the same *set of
//!   processes*: same range word and the same node / namespace / session /
//!   process it designates — is `PMIX_ERR_DUPLICATE_KEY`, and nothing of
//!   that publish is stored (a publish is all or nothing).
//! - A lookup (range defaults to `PMIX_RANGE_SESSION`) sees an item when
//!   the publisher is in the lookup's range as seen from the requester, the
//!   requester is in the item's range as seen from the publisher, and the
//!   access rules let it: the requester's uid is the publisher's, or is in
//!   the item's `PMIX_ACCESS_USERIDS`, or its gid in `PMIX_ACCESS_GRPIDS`
//!   (unknown ids on either side are not checked). It answers what it
//!   sees, one value per key (the oldest); nothing seen is
//!   `PMIX_ERR_NOT_FOUND`, or `PMIX_ERR_NO_PERMISSIONS` when every match
//!   was refused by the access rules.
//! - `PMIX_WAIT` (0 or `true`: every key; N: at least N keys) parks the
//!   lookup until enough keys are published; `PMIX_TIMEOUT` then bounds
//!   the wait (`PMIX_ERR_TIMEOUT`). Deadlines are kept by one timer thread,
//!   started with the first deadline and ended with the store.
//! - `PMIX_PERSIST_FIRST_READ` items go with the first lookup that returns
//!   them; [`PublishedData::proc_terminated`],
//!   [`PublishedData::nspace_terminated`] and
//!   [`PublishedData::session_terminated`] drop what the other persistences
//!   say (and waiting lookups of what terminated).
//! - Unpublish removes the caller's own items with the given keys (all of
//!   them without keys), of the `PMIX_RANGE` given, else of any range.
//! - `PMIX_RANGE_RM` and `PMIX_RANGE_CUSTOM` are not supported
//!   (`PMIX_ERR_NOT_SUPPORTED`).
//!
//! Callbacks (lookup answers) never run under the store's lock, so they
//! may call back into the store.
//!
//! Invariant: a lookup's callback runs exactly once, never under the
//! store's lock (with what it found, or its failure at the wait's end).

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::value::DataArray;
use crate::wire::pubsub::PublishedValue;
use crate::wire::{flag, int};
use crate::{keys, Info, Key, Nspace, Proc, Status, Value};

/// `pmix_data_range_t`: who may see published data / whose data a lookup
/// searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataRange {
    /// `PMIX_RANGE_RM`: the host environment.
    Rm,
    /// `PMIX_RANGE_LOCAL`: processes of the same node.
    Local,
    /// `PMIX_RANGE_NAMESPACE`: processes of the same namespace.
    Namespace,
    /// `PMIX_RANGE_SESSION`: processes of the same session (the default).
    Session,
    /// `PMIX_RANGE_GLOBAL`: everyone.
    Global,
    /// `PMIX_RANGE_CUSTOM`: processes named in the call.
    Custom,
    /// `PMIX_RANGE_PROC_LOCAL`: the publishing process only.
    ProcLocal,
}

impl DataRange {
    /// From the C value; `PMIX_RANGE_UNDEF` is the default (session);
    /// `None` for `PMIX_RANGE_INVALID` and unknown values.
    pub fn from_raw(v: u8) -> Option<DataRange> {
        Some(match v {
            0 | 4 => DataRange::Session,
            1 => DataRange::Rm,
            2 => DataRange::Local,
            3 => DataRange::Namespace,
            5 => DataRange::Global,
            6 => DataRange::Custom,
            7 => DataRange::ProcLocal,
            _ => return None,
        })
    }
}

/// `pmix_persistence_t`: how long the store keeps an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Persistence {
    /// `PMIX_PERSIST_INDEF`: until unpublished.
    Indefinite,
    /// `PMIX_PERSIST_FIRST_READ`: until the first lookup returns it.
    FirstRead,
    /// `PMIX_PERSIST_PROC`: until the publisher terminates.
    Proc,
    /// `PMIX_PERSIST_APP`: until the publisher's namespace terminates (the
    /// default).
    App,
    /// `PMIX_PERSIST_SESSION`: until the session terminates.
    Session,
}

impl Persistence {
    /// From the C value; `None` for `PMIX_PERSIST_INVALID` and unknown
    /// values.
    pub fn from_raw(v: u8) -> Option<Persistence> {
        Some(match v {
            0 => Persistence::Indefinite,
            1 => Persistence::FirstRead,
            2 => Persistence::Proc,
            3 => Persistence::App,
            4 => Persistence::Session,
            _ => return None,
        })
    }
}

/// Where a publisher or requester sits, as the host knows it: its
/// identity, its node and its session (host-chosen numbers; a single-node,
/// single-session host uses 0 for both).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    /// The process.
    pub proc: Proc,
    /// Its node.
    pub node: u32,
    /// Its session.
    pub session: u32,
}

impl Participant {
    /// A process on node 0 of session 0.
    pub fn local(proc: Proc) -> Participant {
        Participant {
            proc,
            node: 0,
            session: 0,
        }
    }
}

/// Callback receiving a lookup's answer: what was found (at least one
/// value), or why nothing.
pub type LookupDone = Box<dyn FnOnce(Result<Vec<PublishedValue>, Status>) + Send + 'static>;

/// Effective ids a request carries (`PMIX_USERID`, `PMIX_GRPID`).
#[derive(Clone, Copy, Debug, Default)]
struct Ids {
    uid: Option<u32>,
    gid: Option<u32>,
}

impl Ids {
    fn of(infos: &[Info]) -> Ids {
        let mut ids = Ids::default();
        for i in infos {
            let id = int(&i.value).and_then(|v| u32::try_from(v).ok());
            if is(i, keys::USERID) {
                ids.uid = id;
            } else if is(i, keys::GRPID) {
                ids.gid = id;
            }
        }
        ids
    }
}

struct Item {
    key: Key,
    value: Value,
    owner: Participant,
    ids: Ids,
    range: DataRange,
    persistence: Persistence,
    /// `PMIX_ACCESS_USERIDS` / `PMIX_ACCESS_GRPIDS`.
    access_uids: Vec<u32>,
    access_gids: Vec<u32>,
}

impl Item {
    fn permits(&self, ids: Ids) -> bool {
        let (Some(mine), Some(theirs)) = (self.ids.uid, ids.uid) else {
            return true;
        };
        mine == theirs
            || self.access_uids.contains(&theirs)
            || ids.gid.is_some_and(|g| self.access_gids.contains(&g))
    }
}

struct Waiter {
    who: Participant,
    ids: Ids,
    keys: Vec<Key>,
    range: DataRange,
    need: usize,
    deadline: Option<Instant>,
    done: LookupDone,
}

#[derive(Default)]
struct State {
    items: Vec<Item>,
    waiters: Vec<Waiter>,
    timer_running: bool,
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    cond: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The datastore (see the module documentation). Dropping it ends its
/// timer thread; lookups still waiting are dropped unanswered.
pub struct PublishedData {
    shared: Arc<Shared>,
}

impl Default for PublishedData {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for PublishedData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.shared.lock();
        f.debug_struct("PublishedData")
            .field("items", &s.items.len())
            .field("waiters", &s.waiters.len())
            .finish()
    }
}

fn is(i: &Info, key: &str) -> bool {
    i.key.as_bytes() == key.as_bytes()
}

// attrs begin: PMIx_Publish PMIx_Publish_nb PMIx_Lookup PMIx_Lookup_nb PMIx_Unpublish PMIx_Unpublish_nb
fn range_of(infos: &[Info]) -> Result<Option<DataRange>, Status> {
    let Some(i) = infos.iter().find(|i| is(i, keys::RANGE)) else {
        return Ok(None);
    };
    let raw = match i.value {
        Value::DataRange(r) => r,
        ref v => int(v)
            .and_then(|x| u8::try_from(x).ok())
            .ok_or(Status::ERR_BAD_PARAM)?,
    };
    let r = DataRange::from_raw(raw).ok_or(Status::ERR_BAD_PARAM)?;
    if matches!(r, DataRange::Rm | DataRange::Custom) {
        return Err(Status::ERR_NOT_SUPPORTED);
    }
    Ok(Some(r))
}
// attrs end

// attrs begin: PMIx_Publish PMIx_Publish_nb
fn persistence_of(infos: &[Info]) -> Result<Persistence, Status> {
    let Some(i) = infos.iter().find(|i| is(i, keys::PERSISTENCE)) else {
        return Ok(Persistence::App);
    };
    let raw = match i.value {
        Value::Persist(p) => p,
        ref v => int(v)
            .and_then(|x| u8::try_from(x).ok())
            .ok_or(Status::ERR_BAD_PARAM)?,
    };
    Persistence::from_raw(raw).ok_or(Status::ERR_BAD_PARAM)
}
// attrs end

fn ids_in(v: &Value) -> Vec<u32> {
    match v {
        Value::DataArray(a) => a
            .items
            .iter()
            .filter_map(|x| int(x).and_then(|i| u32::try_from(i).ok()))
            .collect(),
        v => int(v)
            .and_then(|i| u32::try_from(i).ok())
            .into_iter()
            .collect(),
    }
}

/// `PMIX_ACCESS_PERMISSIONS`: an array of infos naming uids and gids.
// attrs begin: PMIx_Publish PMIx_Publish_nb
fn access_of(infos: &[Info]) -> (Vec<u32>, Vec<u32>) {
    let (mut uids, mut gids) = (Vec::new(), Vec::new());
    for i in infos.iter().filter(|i| is(i, keys::ACCESS_PERMISSIONS)) {
        let Value::DataArray(a) = &i.value else {
            continue;
        };
        let DataArray { items, .. } = &**a;
        for x in items {
            if let Value::Info(p) = x {
                if is(p, keys::ACCESS_USERIDS) {
                    uids.extend(ids_in(&p.value));
                } else if is(p, keys::ACCESS_GRPIDS) {
                    gids.extend(ids_in(&p.value));
                }
            }
        }
    }
    (uids, gids)
}
// attrs end

fn is_directive(i: &Info) -> bool {
    [
        keys::RANGE,
        keys::PERSISTENCE,
        keys::TIMEOUT,
        keys::USERID,
        keys::GRPID,
        keys::ACCESS_PERMISSIONS,
    ]
    .iter()
    .any(|k| is(i, k))
}

/// Is `b` within `range` as seen from `a`?
fn in_range(range: DataRange, a: &Participant, b: &Participant) -> bool {
    match range {
        DataRange::Local => a.node == b.node,
        DataRange::Namespace => a.proc.nspace == b.proc.nspace,
        DataRange::Session => a.session == b.session,
        DataRange::Global => true,
        DataRange::ProcLocal => a.proc == b.proc,
        DataRange::Rm | DataRange::Custom => false,
    }
}

/// `PMIX_WAIT`: how many keys must be found (None: do not wait).
// attrs begin: PMIx_Lookup PMIx_Lookup_nb
fn wait_of(infos: &[Info], nkeys: usize) -> Option<usize> {
    let i = infos.iter().find(|i| is(i, keys::WAIT))?;
    match int(&i.value) {
        Some(n) if n > 0 => Some((n as u64).min(nkeys as u64) as usize),
        Some(_) => Some(nkeys),
        None => flag(&i.value).then_some(nkeys),
    }
}
// attrs end

// attrs begin: PMIx_Lookup PMIx_Lookup_nb
fn timeout_of(infos: &[Info]) -> Option<Duration> {
    infos
        .iter()
        .find(|i| is(i, keys::TIMEOUT))
        .and_then(|i| int(&i.value))
        .filter(|&s| s > 0)
        .map(|s| Duration::from_secs(s as u64))
}
// attrs end

/// The outcome of one search.
enum Search {
    /// Values found, with the indices of their items.
    Found(Vec<(usize, PublishedValue)>),
    /// Nothing visible; `true` if matches were refused by access rules.
    Nothing(bool),
}

fn search(items: &[Item], who: &Participant, ids: Ids, keys: &[Key], range: DataRange) -> Search {
    let mut found = Vec::new();
    let mut refused = false;
    for (n, k) in keys.iter().enumerate() {
        if keys[..n].contains(k) {
            continue;
        }
        let mut hit = None;
        for (idx, it) in items.iter().enumerate() {
            if &it.key != k
                || !in_range(range, who, &it.owner)
                || !in_range(it.range, &it.owner, who)
            {
                continue;
            }
            if !it.permits(ids) {
                refused = true;
                continue;
            }
            hit = Some(idx);
            break;
        }
        if let Some(idx) = hit {
            let it = &items[idx];
            found.push((
                idx,
                PublishedValue {
                    publisher: it.owner.proc.clone(),
                    key: it.key.clone(),
                    value: it.value.clone(),
                },
            ));
        }
    }
    if found.is_empty() {
        Search::Nothing(refused)
    } else {
        Search::Found(found)
    }
}

/// Takes the found values out of a search, removing first-read items.
fn take(items: &mut Vec<Item>, found: Vec<(usize, PublishedValue)>) -> Vec<PublishedValue> {
    let mut gone: Vec<usize> = found
        .iter()
        .filter(|(i, _)| items[*i].persistence == Persistence::FirstRead)
        .map(|(i, _)| *i)
        .collect();
    gone.sort_unstable();
    for i in gone.into_iter().rev() {
        items.remove(i);
    }
    found.into_iter().map(|(_, v)| v).collect()
}

type Answers = Vec<(LookupDone, Result<Vec<PublishedValue>, Status>)>;

/// Answers every waiting lookup that can now be answered.
fn satisfy(s: &mut State) -> Answers {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.waiters.len() {
        let w = &s.waiters[i];
        match search(&s.items, &w.who, w.ids, &w.keys, w.range) {
            Search::Found(f) if f.len() >= w.need => {
                let w = s.waiters.remove(i);
                let v = take(&mut s.items, f);
                out.push((w.done, Ok(v)));
            }
            _ => i += 1,
        }
    }
    out
}

fn deliver(answers: Answers) {
    for (done, r) in answers {
        done(r);
    }
}

impl PublishedData {
    /// An empty store.
    pub fn new() -> PublishedData {
        PublishedData {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                cond: Condvar::new(),
            }),
        }
    }

    /// Stores the data among `infos` published by `who` (see the module
    /// documentation for the directives and the duplicate rule).
    pub fn publish(&self, who: &Participant, infos: &[Info]) -> Result<(), Status> {
        let range = range_of(infos)?.unwrap_or(DataRange::Session);
        let persistence = persistence_of(infos)?;
        let ids = Ids::of(infos);
        let (access_uids, access_gids) = access_of(infos);
        let data: Vec<&Info> = infos.iter().filter(|i| !is_directive(i)).collect();
        let answers = {
            let mut s = self.shared.lock();
            for (n, d) in data.iter().enumerate() {
                let twice = data[..n].iter().any(|e| e.key == d.key);
                let taken = s.items.iter().any(|it| {
                    it.key == d.key && it.range == range && in_range(range, &it.owner, who)
                });
                if twice || taken {
                    return Err(Status::ERR_DUPLICATE_KEY);
                }
            }
            for d in data {
                s.items.push(Item {
                    key: d.key.clone(),
                    value: d.value.clone(),
                    owner: who.clone(),
                    ids,
                    range,
                    persistence,
                    access_uids: access_uids.clone(),
                    access_gids: access_gids.clone(),
                });
            }
            satisfy(&mut s)
        };
        deliver(answers);
        Ok(())
    }

    /// Looks `keys` up for `who`; `done` receives the answer, at once or,
    /// under `PMIX_WAIT`, when enough keys are published (or the
    /// `PMIX_TIMEOUT` passes). It may run before this returns.
    pub fn lookup(&self, who: &Participant, keys: &[Key], infos: &[Info], done: LookupDone) {
        let range = match range_of(infos) {
            Ok(r) => r.unwrap_or(DataRange::Session),
            Err(e) => return done(Err(e)),
        };
        if keys.is_empty() {
            return done(Err(Status::ERR_BAD_PARAM));
        }
        let ids = Ids::of(infos);
        let mut distinct: Vec<Key> = Vec::with_capacity(keys.len());
        for k in keys {
            if !distinct.contains(k) {
                distinct.push(k.clone());
            }
        }
        let need = wait_of(infos, distinct.len());
        let mut s = self.shared.lock();
        let (found, refused) = match search(&s.items, who, ids, &distinct, range) {
            Search::Found(f) => (f, false),
            Search::Nothing(refused) => (Vec::new(), refused),
        };
        match need {
            Some(need) if found.len() < need => {
                let deadline = timeout_of(infos).map(|t| Instant::now() + t);
                s.waiters.push(Waiter {
                    who: who.clone(),
                    ids,
                    keys: distinct,
                    range,
                    need,
                    deadline,
                    done,
                });
                if deadline.is_some() {
                    self.arm_timer(&mut s);
                }
            }
            _ if found.is_empty() => {
                drop(s);
                done(Err(if refused {
                    Status::ERR_NO_PERMISSIONS
                } else {
                    Status::ERR_NOT_FOUND
                }));
            }
            _ => {
                let v = take(&mut s.items, found);
                drop(s);
                done(Ok(v));
            }
        }
    }

    /// Removes `who`'s own items with `keys` (every key with `None`), of
    /// the `PMIX_RANGE` among `infos` if one is given.
    pub fn unpublish(
        &self,
        who: &Participant,
        keys: Option<&[Key]>,
        infos: &[Info],
    ) -> Result<(), Status> {
        let range = range_of(infos)?;
        let mut s = self.shared.lock();
        s.items.retain(|it| {
            let mine = it.owner.proc == who.proc
                && range.map_or(true, |r| r == it.range)
                && keys.map_or(true, |k| k.contains(&it.key));
            !mine
        });
        Ok(())
    }

    /// `proc` terminated: drops its `PMIX_PERSIST_PROC` items and its
    /// waiting lookups.
    pub fn proc_terminated(&self, proc: &Proc) {
        let waiters = {
            let mut s = self.shared.lock();
            s.items
                .retain(|it| !(it.persistence == Persistence::Proc && &it.owner.proc == proc));
            let (gone, keep) = std::mem::take(&mut s.waiters)
                .into_iter()
                .partition(|w| &w.who.proc == proc);
            s.waiters = keep;
            gone
        };
        drop::<Vec<Waiter>>(waiters);
    }

    /// `nspace` terminated: drops its processes' `PMIX_PERSIST_PROC` and
    /// `PMIX_PERSIST_APP` items and their waiting lookups.
    pub fn nspace_terminated(&self, nspace: &Nspace) {
        let waiters = {
            let mut s = self.shared.lock();
            s.items.retain(|it| {
                !(matches!(it.persistence, Persistence::Proc | Persistence::App)
                    && &it.owner.proc.nspace == nspace)
            });
            let (gone, keep) = std::mem::take(&mut s.waiters)
                .into_iter()
                .partition(|w| &w.who.proc.nspace == nspace);
            s.waiters = keep;
            gone
        };
        drop::<Vec<Waiter>>(waiters);
    }

    /// `session` terminated: drops everything of it but
    /// `PMIX_PERSIST_INDEF` items.
    pub fn session_terminated(&self, session: u32) {
        let waiters = {
            let mut s = self.shared.lock();
            s.items.retain(|it| {
                it.persistence == Persistence::Indefinite || it.owner.session != session
            });
            let (gone, keep) = std::mem::take(&mut s.waiters)
                .into_iter()
                .partition(|w| w.who.session == session);
            s.waiters = keep;
            gone
        };
        drop::<Vec<Waiter>>(waiters);
    }

    /// Number of items stored (for tests and diagnostics).
    pub fn len(&self) -> usize {
        self.shared.lock().items.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes sure the timer thread runs (and sees a new deadline).
    fn arm_timer(&self, s: &mut State) {
        if s.timer_running {
            self.shared.cond.notify_one();
            return;
        }
        let shared = self.shared.clone();
        let started = std::thread::Builder::new()
            .name("pmix-published-timer".into())
            .spawn(move || timer(shared))
            .is_ok();
        s.timer_running = started;
    }
}

impl Drop for PublishedData {
    fn drop(&mut self) {
        let waiters = {
            let mut s = self.shared.lock();
            s.closed = true;
            std::mem::take(&mut s.waiters)
        };
        self.shared.cond.notify_all();
        drop(waiters);
    }
}

/// The timer thread: answers `PMIX_ERR_TIMEOUT` to waiting lookups whose
/// deadline passed; sleeps until the nearest deadline otherwise.
fn timer(shared: Arc<Shared>) {
    let mut s = shared.lock();
    loop {
        if s.closed {
            s.timer_running = false;
            return;
        }
        let now = Instant::now();
        let (late, keep): (Vec<Waiter>, Vec<Waiter>) = std::mem::take(&mut s.waiters)
            .into_iter()
            .partition(|w| w.deadline.is_some_and(|d| d <= now));
        s.waiters = keep;
        if !late.is_empty() {
            drop(s);
            for w in late {
                (w.done)(Err(Status::ERR_TIMEOUT));
            }
            s = shared.lock();
            continue;
        }
        let next = s.waiters.iter().filter_map(|w| w.deadline).min();
        s = match next {
            Some(d) => {
                let wait = d.saturating_duration_since(now);
                shared
                    .cond
                    .wait_timeout(s, wait)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => shared.cond.wait(s).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

#[cfg(test)]
mod tests;
