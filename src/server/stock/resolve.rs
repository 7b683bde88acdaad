//! `PMIx_Resolve_peers` and `PMIx_Resolve_nodes` of a 5.x stock peer
//! (its library asks the server whenever it is connected), answered from
//! the namespace's job data, the node arrays the init reply carries.
//!
//! | command | fields (after the command) | our request | reply |
//! |---|---|---|---|
//! | `PMIX_RESOLVE_PEERS_CMD` | node (`PMIX_STRING`, none: this node), namespace (`PMIX_STRING`) | `NspaceRequest` | status, then the count and the procs of the namespace on that node |
//! | `PMIX_RESOLVE_NODE_CMD` | namespace | `NspaceRequest` | status, then the comma-separated node names |
//!
//! A peer that names no namespace (every namespace, for OpenPMIx) is
//! answered for its own. No process (or node) found: `PMIX_ERR_NOT_FOUND`.

use super::fields::one;
use super::request::Pending;
use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::job_info::{Entry, Pair};
use crate::wire::Message;
use crate::{keys, DataType, Nspace, Proc, Rank, Status, Value};

fn opt_string(fmt: Format, buf: &mut Buffer) -> Result<Option<String>, CodecError> {
    match one(fmt, buf, DataType::String)? {
        Value::String(s) => Ok(s
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())),
        _ => Err(CodecError::BadParam("string")),
    }
}

fn nspace_or(own: &Nspace, given: Option<String>) -> Result<Nspace, CodecError> {
    match given {
        Some(s) => Nspace::new(s.as_bytes()).map_err(|_| CodecError::BadParam("nspace")),
        None => Ok(own.clone()),
    }
}

/// `PMIx_Resolve_peers`: the node, the namespace.
pub(super) fn peers(
    own: &Nspace,
    fmt: Format,
    buf: &mut Buffer,
) -> Result<(Message, Pending), CodecError> {
    let node = opt_string(fmt, buf)?;
    let nspace = nspace_or(own, opt_string(fmt, buf)?)?;
    Ok((
        Message::NspaceRequest(nspace.clone()),
        Pending::ResolvePeers { nspace, node },
    ))
}

/// `PMIx_Resolve_nodes`: the namespace.
pub(super) fn nodes(
    own: &Nspace,
    fmt: Format,
    buf: &mut Buffer,
) -> Result<(Message, Pending), CodecError> {
    let nspace = nspace_or(own, opt_string(fmt, buf)?)?;
    Ok((Message::NspaceRequest(nspace), Pending::ResolveNode))
}

/// The node arrays of the job data, each as its pairs.
fn node_arrays(entries: &[Entry]) -> impl Iterator<Item = Vec<Pair>> + '_ {
    entries.iter().filter_map(|e| match e {
        Entry::Pair(p) if p.key.as_bytes() == keys::NODE_INFO_ARRAY.as_bytes() => match &p.value {
            Value::DataArray(a) => Some(
                a.items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Info(i) => Some(Pair {
                            key: i.key.clone(),
                            value: i.value.clone(),
                        }),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        },
        _ => None,
    })
}

fn string_of<'a>(pairs: &'a [Pair], key: &str) -> Option<&'a str> {
    pairs.iter().find_map(|p| match &p.value {
        Value::String(Some(s)) if p.key.as_bytes() == key.as_bytes() => s.to_str().ok(),
        _ => None,
    })
}

/// The ranks of `nspace` on `node` (this host if `None`).
fn peers_on(entries: &[Entry], nspace: &Nspace, node: &str) -> Vec<Proc> {
    node_arrays(entries)
        .filter(|n| string_of(n, keys::HOSTNAME) == Some(node))
        .flat_map(|n| {
            string_of(&n, keys::LOCAL_PEERS)
                .unwrap_or("")
                .split(',')
                .filter_map(|r| r.trim().parse::<u32>().ok())
                .map(|r| Proc::new(nspace.clone(), Rank(r)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A resolve-peers answer from the job data `entries` of `nspace`.
pub(super) fn peers_reply(
    fmt: Format,
    entries: &[Entry],
    nspace: &Nspace,
    node: Option<&str>,
    this_host: &str,
) -> Result<Vec<u8>, CodecError> {
    let procs = peers_on(entries, nspace, node.unwrap_or(this_host));
    let mut b = Buffer::new();
    if procs.is_empty() {
        fmt.pack_value(&mut b, &Value::Status(Status::ERR_NOT_FOUND.0))?;
        return Ok(b.into_bytes());
    }
    fmt.pack_value(&mut b, &Value::Status(Status::SUCCESS.0))?;
    fmt.pack_value(&mut b, &Value::Size(procs.len()))?;
    let v: Vec<Value> = procs.into_iter().map(Value::Proc).collect();
    fmt.pack(&mut b, DataType::Proc, &v)?;
    Ok(b.into_bytes())
}

/// A resolve-node answer from the job data `entries`.
pub(super) fn nodes_reply(fmt: Format, entries: &[Entry]) -> Result<Vec<u8>, CodecError> {
    let names: Vec<String> = node_arrays(entries)
        .filter_map(|n| string_of(&n, keys::HOSTNAME).map(str::to_owned))
        .collect();
    let mut b = Buffer::new();
    if names.is_empty() {
        fmt.pack_value(&mut b, &Value::Status(Status::ERR_NOT_FOUND.0))?;
        return Ok(b.into_bytes());
    }
    fmt.pack_value(&mut b, &Value::Status(Status::SUCCESS.0))?;
    let list = std::ffi::CString::new(names.join(",")).map_err(|_| CodecError::BadParam("node"))?;
    fmt.pack_value(&mut b, &Value::String(Some(list)))?;
    Ok(b.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::stock::fields::pack;
    use crate::value::DataArray;
    use crate::{Info, Key};

    fn node(name: &str, peers: &str) -> Entry {
        let infos = [(keys::HOSTNAME, name), (keys::LOCAL_PEERS, peers)]
            .into_iter()
            .map(|(k, v)| Value::Info(Box::new(Info::new(Key::new(k).unwrap(), Value::string(v)))))
            .collect();
        Entry::Pair(Pair {
            key: Key::new(keys::NODE_INFO_ARRAY).unwrap(),
            value: Value::DataArray(Box::new(DataArray {
                elem_type: DataType::Info,
                items: infos,
            })),
        })
    }

    #[test]
    fn peers_and_nodes_come_from_the_node_arrays() {
        let f = Format::DATA_PACK;
        let ns = Nspace::new("job").unwrap();
        let e = [node("n1", "0,1"), node("n2", "2,3")];
        let mut b = Buffer::from_bytes(peers_reply(f, &e, &ns, Some("n2"), "n1").unwrap());
        assert_eq!(one(f, &mut b, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(one(f, &mut b, DataType::Size).unwrap(), Value::Size(2));
        let want = [2, 3].map(|r| Value::Proc(Proc::new(ns.clone(), Rank(r))));
        assert_eq!(f.unpack(&mut b, DataType::Proc, 2).unwrap(), want);
        // No node named: this host's.
        let mut b = Buffer::from_bytes(peers_reply(f, &e, &ns, None, "n1").unwrap());
        assert_eq!(one(f, &mut b, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(one(f, &mut b, DataType::Size).unwrap(), Value::Size(2));
        let mut b = Buffer::from_bytes(peers_reply(f, &e, &ns, Some("n9"), "n1").unwrap());
        assert_eq!(
            one(f, &mut b, DataType::Status).unwrap(),
            Value::Status(Status::ERR_NOT_FOUND.0)
        );
        let mut b = Buffer::from_bytes(nodes_reply(f, &e).unwrap());
        assert_eq!(one(f, &mut b, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(
            one(f, &mut b, DataType::String).unwrap(),
            Value::string("n1,n2")
        );
    }

    #[test]
    fn no_namespace_is_the_peers_own() {
        let f = Format::DATA_PACK;
        let own = Nspace::new("mine").unwrap();
        let mut b = Buffer::new();
        pack(&mut b, Value::String(Some(c"n1".into())));
        pack(&mut b, Value::String(None));
        let (m, p) = peers(&own, f, &mut b).unwrap();
        assert!(matches!(m, Message::NspaceRequest(n) if n == own));
        assert!(matches!(p, Pending::ResolvePeers { node: Some(n), .. } if n == "n1"));
    }
}
