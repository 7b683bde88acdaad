//! Bodies of the publish/lookup service ([`Op::PUBLISH`], [`Op::LOOKUP`],
//! [`Op::UNPUBLISH`]).
//!
//! | operation | request body | response body |
//! |---|---|---|
//! | `PUBLISH` | infos (data and directives) | empty |
//! | `LOOKUP` | count, keys; infos | status (`SUCCESS` or `PARTIAL_SUCCESS`), count, (publisher, key, value)... |
//! | `UNPUBLISH` | 0 (every key) or 1, count, keys; infos | empty |
//!
//! A lookup that finds nothing is answered with the `Response`'s own
//! status (`PMIX_ERR_NOT_FOUND`, `PMIX_ERR_TIMEOUT`, ...) and no body; a
//! partial answer still carries data, so its status travels in the body.
//! Every decoder consumes exactly its body and checks each field.
//!
//! [`Op::PUBLISH`]: super::Op::PUBLISH
//! [`Op::LOOKUP`]: super::Op::LOOKUP
//! [`Op::UNPUBLISH`]: super::Op::UNPUBLISH

use super::body::*;
use super::WireError;
use crate::codec::{CodecError, Reader};
use crate::{Info, Key, Proc, Status, Value};

/// One published value as a lookup returns it (a `pmix_pdata_t`).
#[derive(Clone, Debug, PartialEq)]
pub struct PublishedValue {
    /// The process that published it.
    pub publisher: Proc,
    /// Its key.
    pub key: Key,
    /// Its value.
    pub value: Value,
}

const PUBLISH: &str = "publish request";
const LOOKUP: &str = "lookup request";
const LOOKUP_REPLY: &str = "lookup reply";
const UNPUBLISH: &str = "unpublish request";

/// An encoding failure (a value the codec cannot pack).
fn encoding(e: CodecError) -> Status {
    e.status()
}

fn body(kind: &'static str) -> impl Fn(CodecError) -> WireError {
    move |source| WireError::Body { kind, source }
}

fn finish(r: &Reader<'_>) -> Result<(), WireError> {
    match r.remaining() {
        0 => Ok(()),
        n => Err(WireError::Trailing(n)),
    }
}

fn put_keys(out: &mut Vec<u8>, keys: &[Key]) -> Result<(), CodecError> {
    put_count(out, keys.len())?;
    keys.iter().try_for_each(|k| put_key(out, k))
}

fn get_keys(r: &mut Reader<'_>) -> Result<Vec<Key>, CodecError> {
    let n = get_count(r)?;
    (0..n).map(|_| get_key(r)).collect()
}

/// Encodes a `PUBLISH` request.
pub fn encode_publish(infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_infos(&mut out, infos).map_err(encoding)?;
    Ok(out)
}

/// Decodes a `PUBLISH` request.
pub fn decode_publish(bytes: &[u8]) -> Result<Vec<Info>, WireError> {
    let mut r = Reader::new(bytes);
    let infos = get_infos(&mut r).map_err(body(PUBLISH))?;
    finish(&r)?;
    Ok(infos)
}

/// Encodes a `LOOKUP` request.
pub fn encode_lookup(keys: &[Key], infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_keys(&mut out, keys).map_err(encoding)?;
    put_infos(&mut out, infos).map_err(encoding)?;
    Ok(out)
}

/// Decodes a `LOOKUP` request: at least one key.
pub fn decode_lookup(bytes: &[u8]) -> Result<(Vec<Key>, Vec<Info>), WireError> {
    let mut r = Reader::new(bytes);
    let keys = get_keys(&mut r).map_err(body(LOOKUP))?;
    let infos = get_infos(&mut r).map_err(body(LOOKUP))?;
    finish(&r)?;
    if keys.is_empty() {
        return Err(WireError::Invalid {
            kind: LOOKUP,
            what: "no keys",
        });
    }
    Ok((keys, infos))
}

/// Encodes a `LOOKUP` response: the lookup's status and what it found.
pub fn encode_lookup_reply(status: Status, found: &[PublishedValue]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_status(&mut out, status);
    put_count(&mut out, found.len()).map_err(encoding)?;
    for p in found {
        put_proc(&mut out, &p.publisher).map_err(encoding)?;
        put_key(&mut out, &p.key).map_err(encoding)?;
        put_value(&mut out, &p.value).map_err(encoding)?;
    }
    Ok(out)
}

/// Decodes a `LOOKUP` response (status `SUCCESS` or `PARTIAL_SUCCESS`).
pub fn decode_lookup_reply(bytes: &[u8]) -> Result<(Status, Vec<PublishedValue>), WireError> {
    let mut r = Reader::new(bytes);
    let b = body(LOOKUP_REPLY);
    let status = get_status(&mut r).map_err(&b)?;
    if status != Status::SUCCESS && status != Status::ERR_PARTIAL_SUCCESS {
        return Err(WireError::Invalid {
            kind: LOOKUP_REPLY,
            what: "status",
        });
    }
    let n = get_count(&mut r).map_err(&b)?;
    let mut found = Vec::with_capacity(n.min(r.remaining()));
    for _ in 0..n {
        let publisher = get_proc(&mut r).map_err(&b)?;
        let key = get_key(&mut r).map_err(&b)?;
        let value = get_value(&mut r).map_err(&b)?;
        found.push(PublishedValue {
            publisher,
            key,
            value,
        });
    }
    finish(&r)?;
    Ok((status, found))
}

/// Encodes an `UNPUBLISH` request (`None`: every key of the caller).
pub fn encode_unpublish(keys: Option<&[Key]>, infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    match keys {
        None => out.push(0),
        Some(k) => {
            out.push(1);
            put_keys(&mut out, k).map_err(encoding)?;
        }
    }
    put_infos(&mut out, infos).map_err(encoding)?;
    Ok(out)
}

/// Decodes an `UNPUBLISH` request.
pub fn decode_unpublish(bytes: &[u8]) -> Result<(Option<Vec<Key>>, Vec<Info>), WireError> {
    let mut r = Reader::new(bytes);
    let b = body(UNPUBLISH);
    let keys = match get_u8(&mut r).map_err(&b)? {
        0 => None,
        1 => Some(get_keys(&mut r).map_err(&b)?),
        _ => {
            return Err(WireError::Invalid {
                kind: UNPUBLISH,
                what: "key marker",
            })
        }
    };
    let infos = get_infos(&mut r).map_err(&b)?;
    finish(&r)?;
    Ok((keys, infos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    fn key(s: &str) -> Key {
        Key::new(s).unwrap()
    }

    #[test]
    fn bodies_round_trip() {
        let infos = vec![Info::new(
            key("svc"),
            Value::String(Some(c"port".to_owned())),
        )];
        assert_eq!(
            decode_publish(&encode_publish(&infos).unwrap()).unwrap(),
            infos
        );
        let keys = vec![key("a"), key("b")];
        assert_eq!(
            decode_lookup(&encode_lookup(&keys, &infos).unwrap()).unwrap(),
            (keys.clone(), infos.clone())
        );
        for k in [None, Some(&keys[..])] {
            let (got, i) = decode_unpublish(&encode_unpublish(k, &infos).unwrap()).unwrap();
            assert_eq!(got.as_deref(), k);
            assert_eq!(i, infos);
        }
        let found = vec![PublishedValue {
            publisher: Proc::new(Nspace::new("ns").unwrap(), Rank(3)),
            key: key("a"),
            value: Value::Int(7),
        }];
        let body = encode_lookup_reply(Status::ERR_PARTIAL_SUCCESS, &found).unwrap();
        assert_eq!(
            decode_lookup_reply(&body).unwrap(),
            (Status::ERR_PARTIAL_SUCCESS, found)
        );
    }

    #[test]
    fn bad_bodies_are_refused() {
        assert!(decode_lookup(&encode_lookup(&[], &[]).unwrap()).is_err());
        let mut b = encode_publish(&[]).unwrap();
        b.push(0);
        assert!(decode_publish(&b).is_err());
        assert!(decode_unpublish(&[2, 0]).is_err());
        let body = encode_lookup_reply(Status::ERR_NOT_FOUND, &[]).unwrap();
        assert!(decode_lookup_reply(&body).is_err());
        // Every truncation of a valid body is an error, never a panic.
        let body = encode_lookup(&[key("abc")], &[Info::new(key("x"), Value::Int(1))]).unwrap();
        for n in 0..body.len() {
            assert!(decode_lookup(&body[..n]).is_err());
        }
    }

    /// Mutated and truncated bodies decode to a value or an error, never
    /// a panic (xorshift, deterministic).
    #[test]
    fn mutated_bodies_never_panic() {
        let infos = vec![
            Info::new(key("svc"), Value::String(Some(c"port".to_owned()))),
            Info::new(key(crate::keys::WAIT), Value::Int(0)),
        ];
        let found = vec![PublishedValue {
            publisher: Proc::new(Nspace::new("ns").unwrap(), Rank(1)),
            key: key("svc"),
            value: Value::Uint64(9),
        }];
        let bodies = [
            encode_publish(&infos).unwrap(),
            encode_lookup(&[key("a"), key("svc")], &infos).unwrap(),
            encode_unpublish(Some(&[key("a")]), &infos).unwrap(),
            encode_lookup_reply(Status::SUCCESS, &found).unwrap(),
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut b = bodies[(next() % bodies.len() as u64) as usize].clone();
            for _ in 0..1 + next() % 3 {
                let i = (next() % b.len() as u64) as usize;
                b[i] = next() as u8;
            }
            if next() % 4 == 0 {
                b.truncate((next() % (b.len() as u64 + 1)) as usize);
            }
            let _ = decode_publish(&b);
            let _ = decode_lookup(&b);
            let _ = decode_unpublish(&b);
            let _ = decode_lookup_reply(&b);
        }
    }
}
