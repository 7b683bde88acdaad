//! The job data a stock OpenPMIx client receives in answer to its init
//! request, taken from the namespace's job segment (the one our own
//! clients map), in the layout OpenPMIx's `gds/hash` component sends and
//! stores: after the namespace's name, a stream of key-value pairs with no
//! count.
//!
//! | entries, in order | form |
//! |---|---|
//! | the job realm | one pair a key (stored under the wildcard rank) |
//! | the session realm | one `PMIX_SESSION_INFO_ARRAY`, led by `PMIX_SESSION_ID` (clients from 4.2.0 on, when the session has an id); otherwise its keys one by one |
//! | each node | one `PMIX_NODE_INFO_ARRAY`, led by `PMIX_HOSTNAME` and `PMIX_NODEID`; for clients before 3.1.100, the array under the node's name, and this node's keys one by one as well |
//! | each application | one `PMIX_APP_INFO_ARRAY`, led by `PMIX_APPNUM` |
//! | each rank | one `PMIX_PROC_BLOB`: a byte object holding the rank and its process-realm pairs |
//!
//! This module only chooses the entries; packing them in the peer's
//! buffer format is the door's business, because a blob's bytes depend
//! on it.
//!
//! Invariant: every entry comes from the segment as it is (nothing is
//! derived here), and a realm the segment does not hold gives no entry,
//! so a stock client sees what our clients see, in OpenPMIx's layout.

use std::ffi::CStr;

use pmix_shmem::{Corrupt, NodeSel, Realm, Segment};

use crate::job::stored::from_ref;
use crate::value::DataArray;
use crate::{keys, DataType, Info, Key, Value};

/// The OpenPMIx release a client announced in its handshake, compared
/// the way OpenPMIx's `PMIX_PEER_IS_EARLIER` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub major: u32,
    pub minor: u32,
    pub release: u32,
}

impl Release {
    /// A release from its three numbers.
    pub const fn new(major: u32, minor: u32, release: u32) -> Self {
        Release {
            major,
            minor,
            release,
        }
    }

    /// True if this release is earlier than `major.minor.release`.
    pub fn is_earlier(self, major: u32, minor: u32, release: u32) -> bool {
        self < Release::new(major, minor, release)
    }
}

impl From<(u32, u32, u32)> for Release {
    /// From [`ConnectMessage::version_numbers`](super::ConnectMessage::version_numbers).
    fn from((major, minor, release): (u32, u32, u32)) -> Self {
        Release::new(major, minor, release)
    }
}

/// One key and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub key: Key,
    pub value: Value,
}

/// One entry of the init reply's stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A key-value pair, packed as a `PMIX_KVAL`.
    Pair(Pair),
    /// A rank's process realm, packed as a `PMIX_KVAL` whose key is
    /// `PMIX_PROC_BLOB` and whose value is a byte object holding the rank
    /// (`PMIX_PROC_RANK`) and then the pairs (`PMIX_KVAL` each).
    ProcBlob { rank: u32, pairs: Vec<Pair> },
}

/// The job data of `segment` for a client of release `peer` on the node
/// called `this_host`, in the order OpenPMIx sends it.
pub fn entries(segment: &Segment, peer: Release, this_host: &str) -> Result<Vec<Entry>, Corrupt> {
    let mut out: Vec<Entry> = row(segment, Realm::Job)?
        .into_iter()
        .map(Entry::Pair)
        .collect();
    session(segment, peer, &mut out)?;
    nodes(segment, peer, this_host, &mut out)?;
    apps(segment, &mut out)?;
    for rank in 0..segment.proc_ranks() {
        let pairs = row(segment, Realm::Proc(rank))?;
        if !pairs.is_empty() {
            out.push(Entry::ProcBlob { rank, pairs });
        }
    }
    Ok(out)
}

/// Every pair of one row, in key order.
fn row(segment: &Segment, realm: Realm<'_>) -> Result<Vec<Pair>, Corrupt> {
    let mut pairs = Vec::new();
    for entry in segment.row_entries(realm)? {
        let (key, value) = entry?;
        if let Some(key) = key_of(key) {
            pairs.push(Pair {
                key,
                value: from_ref(&value),
            });
        }
    }
    Ok(pairs)
}

/// A segment's key as a [`Key`]; a name too long for one (which the
/// writer never stores) is skipped.
fn key_of(name: &CStr) -> Option<Key> {
    Key::new(name.to_bytes()).ok()
}

fn key(name: &str) -> Key {
    Key::new(name).expect("reserved key names fit a pmix_key_t")
}

/// `items` as a data array of infos, led by `first`, without another
/// copy of `first`'s key.
fn led_array(first: Vec<Pair>, items: Vec<Pair>) -> Value {
    let lead: Vec<Key> = first.iter().map(|p| p.key.clone()).collect();
    let infos = first
        .into_iter()
        .chain(items.into_iter().filter(|p| !lead.contains(&p.key)))
        .map(|p| Value::Info(Box::new(Info::new(p.key, p.value))))
        .collect();
    Value::DataArray(Box::new(DataArray {
        elem_type: DataType::Info,
        items: infos,
    }))
}

fn session(segment: &Segment, peer: Release, out: &mut Vec<Entry>) -> Result<(), Corrupt> {
    let pairs = row(segment, Realm::Session)?;
    let id = pairs
        .iter()
        .find(|p| p.key.as_bytes() == keys::SESSION_ID.as_bytes())
        .cloned();
    match id {
        Some(id) if !peer.is_earlier(4, 2, 0) => out.push(Entry::Pair(Pair {
            key: key(keys::SESSION_INFO_ARRAY),
            value: led_array(vec![id], pairs),
        })),
        _ => push_alone(out, pairs),
    }
    Ok(())
}

/// Appends `pairs` one by one, except those whose key the stream already
/// has on its own (the job realm repeats some session and node keys).
fn push_alone(out: &mut Vec<Entry>, pairs: Vec<Pair>) {
    for p in pairs {
        let known = out
            .iter()
            .any(|e| matches!(e, Entry::Pair(q) if q.key == p.key));
        if !known {
            out.push(Entry::Pair(p));
        }
    }
}

fn nodes(
    segment: &Segment,
    peer: Release,
    this_host: &str,
    out: &mut Vec<Entry>,
) -> Result<(), Corrupt> {
    let rows = segment.index().node_ids.len() as u32;
    for r in 0..rows {
        let Some(id) = segment.node_id(r) else {
            continue;
        };
        let pairs = row(segment, Realm::Node(NodeSel::Id(id)))?;
        let hostname = pairs
            .iter()
            .find(|p| p.key.as_bytes() == keys::HOSTNAME.as_bytes())
            .cloned();
        let mut lead: Vec<Pair> = hostname.iter().cloned().collect();
        lead.push(Pair {
            key: key(keys::NODEID),
            value: Value::Uint32(id),
        });
        if !peer.is_earlier(3, 1, 100) {
            out.push(Entry::Pair(Pair {
                key: key(keys::NODE_INFO_ARRAY),
                value: led_array(lead, pairs),
            }));
            continue;
        }
        // Clients before 3.1.100 know a node's array by its name, and
        // look for their own node's keys on their own.
        let Some(Pair {
            value: Value::String(Some(name)),
            ..
        }) = hostname
        else {
            continue;
        };
        let Some(name_key) = key_of(&name) else {
            continue;
        };
        let own = name.to_bytes() == this_host.as_bytes();
        out.push(Entry::Pair(Pair {
            key: name_key,
            value: led_array(lead, pairs.clone()),
        }));
        if own {
            push_alone(out, pairs);
        }
    }
    Ok(())
}

fn apps(segment: &Segment, out: &mut Vec<Entry>) -> Result<(), Corrupt> {
    let nums: Vec<u32> = segment
        .index()
        .app_nums
        .iter()
        .map(|a| a.to_native())
        .collect();
    for num in nums {
        let pairs = row(segment, Realm::App(num))?;
        let lead = vec![Pair {
            key: key(keys::APPNUM),
            value: Value::Uint32(num),
        }];
        out.push(Entry::Pair(Pair {
            key: key(keys::APP_INFO_ARRAY),
            value: led_array(lead, pairs),
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobDescription;
    use crate::Nspace;

    /// Two nodes ("n1": ranks 0-1, "n2": ranks 2-3), two applications,
    /// a session id; this server runs on "n2".
    fn segment() -> Segment {
        let ns = Nspace::new("job-9").unwrap();
        let infos = vec![
            Info::new(key(keys::NODE_MAP), Value::string("n1,n2")),
            Info::new(key(keys::PROC_MAP), Value::string("0,1;2,3")),
            Info::new(key(keys::SESSION_ID), Value::Uint32(7)),
            Info::new(
                key(keys::APP_INFO_ARRAY),
                Value::info_array(vec![
                    Info::new(key(keys::APPNUM), Value::Uint32(0)),
                    Info::new(key(keys::APP_SIZE), Value::Uint32(3)),
                ]),
            ),
            Info::new(
                key(keys::APP_INFO_ARRAY),
                Value::info_array(vec![
                    Info::new(key(keys::APPNUM), Value::Uint32(1)),
                    Info::new(key(keys::APP_SIZE), Value::Uint32(1)),
                ]),
            ),
        ];
        let job = JobDescription::from_registration(&ns, 2, &infos, "n2").unwrap();
        job.build_segment().unwrap().open().unwrap()
    }

    fn find<'a>(pairs: &'a [Pair], name: &str) -> Option<&'a Value> {
        pairs
            .iter()
            .find(|p| p.key.as_bytes() == name.as_bytes())
            .map(|p| &p.value)
    }

    fn array_pairs(v: &Value) -> Vec<Pair> {
        v.infos()
            .unwrap()
            .into_iter()
            .map(|i| Pair {
                key: i.key,
                value: i.value,
            })
            .collect()
    }

    fn arrays<'a>(e: &'a [Entry], name: &str) -> Vec<&'a Value> {
        e.iter()
            .filter_map(|x| match x {
                Entry::Pair(p) if p.key.as_bytes() == name.as_bytes() => Some(&p.value),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_current_client_gets_the_job_then_arrays_then_one_blob_a_rank() {
        let e = entries(&segment(), Release::new(5, 0, 11), "n2").unwrap();
        let Entry::Pair(first) = &e[0] else {
            panic!("the job realm comes first: {e:?}");
        };
        assert!(!first.key.as_bytes().starts_with(b"pmix.ssn"));
        let job: Vec<Pair> = e
            .iter()
            .filter_map(|x| match x {
                Entry::Pair(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(find(&job, keys::JOB_SIZE), Some(&Value::Uint32(4)));

        let sessions = arrays(&e, keys::SESSION_INFO_ARRAY);
        assert_eq!(sessions.len(), 1);
        let s = array_pairs(sessions[0]);
        assert_eq!(s[0].key.as_bytes(), keys::SESSION_ID.as_bytes());
        assert_eq!(s[0].value, Value::Uint32(7));
        assert_eq!(
            s.iter()
                .filter(|p| p.key.as_bytes() == keys::SESSION_ID.as_bytes())
                .count(),
            1
        );

        let nodes = arrays(&e, keys::NODE_INFO_ARRAY);
        assert_eq!(nodes.len(), 2);
        for (n, name, peers) in [(0, "n1", "0,1"), (1, "n2", "2,3")] {
            let p = array_pairs(nodes[n]);
            assert_eq!(p[0].key.as_bytes(), keys::HOSTNAME.as_bytes());
            assert_eq!(p[0].value, Value::string(name));
            assert_eq!(p[1].key.as_bytes(), keys::NODEID.as_bytes());
            assert_eq!(find(&p, keys::LOCAL_PEERS), Some(&Value::string(peers)));
        }

        let apps = arrays(&e, keys::APP_INFO_ARRAY);
        assert_eq!(apps.len(), 2);
        for (n, size) in [(0u32, 3u32), (1, 1)] {
            let p = array_pairs(apps[n as usize]);
            assert_eq!(p[0].key.as_bytes(), keys::APPNUM.as_bytes());
            assert_eq!(p[0].value, Value::Uint32(n));
            assert_eq!(find(&p, keys::APP_SIZE), Some(&Value::Uint32(size)));
        }

        let blobs: Vec<(u32, &Vec<Pair>)> = e
            .iter()
            .filter_map(|x| match x {
                Entry::ProcBlob { rank, pairs } => Some((*rank, pairs)),
                _ => None,
            })
            .collect();
        assert_eq!(blobs.iter().map(|b| b.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(find(blobs[3].1, keys::HOSTNAME), Some(&Value::string("n2")));
        assert_eq!(find(blobs[3].1, keys::APPNUM), Some(&Value::Uint32(1)));
        assert!(matches!(e.last(), Some(Entry::ProcBlob { rank: 3, .. })));
    }

    #[test]
    fn a_4_1_client_gets_session_keys_one_by_one() {
        let e = entries(&segment(), Release::new(4, 1, 2), "n2").unwrap();
        assert!(arrays(&e, keys::SESSION_INFO_ARRAY).is_empty());
        assert_eq!(arrays(&e, keys::SESSION_ID), [&Value::Uint32(7)]);
    }

    #[test]
    fn a_3_1_client_gets_nodes_by_name_and_its_own_node_keys_alone() {
        let e = entries(&segment(), Release::new(3, 1, 5), "n2").unwrap();
        assert!(arrays(&e, keys::NODE_INFO_ARRAY).is_empty());
        assert_eq!(arrays(&e, "n1").len(), 1);
        assert_eq!(arrays(&e, "n2").len(), 1);
        // This node's peers stand on their own; n1's do not.
        assert_eq!(arrays(&e, keys::LOCAL_PEERS), [&Value::string("2,3")]);
    }
}
