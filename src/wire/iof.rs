//! Bodies of I/O forwarding: `PMIx_IOF_pull` (`Op::IOF_PULL`),
//! `PMIx_IOF_deregister` (`Op::IOF_DEREGISTER`), `PMIx_IOF_push`
//! (`Op::IOF_PUSH`), and the output the server forwards (the one-way
//! `Iof` frame, a [`Delivery`]).
//!
//! A registration is named by the id the *client* chose for it (its
//! handler reference), unique per connection: the server files it under
//! (connection, id) and stamps every delivery with the ids it matched, so
//! the client needs no second id space. Every decoder consumes exactly the
//! body, refuses trailing bytes, and bounds its counts by the bytes left.
//! Channel masks are the `pmix_iof_channel_t` bits ([`channel`]); a mask
//! with unknown bits is refused.

use super::body::*;
use crate::codec::{CodecError, Reader};
use crate::{keys, Info, Proc, Value};

/// The `pmix_iof_channel_t` bits.
pub mod channel {
    /// `PMIX_FWD_STDIN_CHANNEL`.
    pub const STDIN: u16 = 0x01;
    /// `PMIX_FWD_STDOUT_CHANNEL`.
    pub const STDOUT: u16 = 0x02;
    /// `PMIX_FWD_STDERR_CHANNEL`.
    pub const STDERR: u16 = 0x04;
    /// `PMIX_FWD_STDDIAG_CHANNEL`.
    pub const STDDIAG: u16 = 0x08;
    /// `PMIX_FWD_ALL_CHANNELS`.
    pub const ALL: u16 = 0xff;
    /// The bits that name a channel (the rest of `ALL` is reserved).
    pub const KNOWN: u16 = STDIN | STDOUT | STDERR | STDDIAG;
    /// The output channels a pull may name.
    pub const OUTPUT: u16 = STDOUT | STDERR | STDDIAG;
}

fn finish<T>(r: &Reader<'_>, v: T) -> Result<T, CodecError> {
    if r.remaining() != 0 {
        return Err(CodecError::BadParam("trailing bytes"));
    }
    Ok(v)
}

fn get_channels(r: &mut Reader<'_>) -> Result<u16, CodecError> {
    let c = u16::try_from(get_u32(r)?).map_err(|_| CodecError::BadParam("channel mask"))?;
    if c & !channel::ALL != 0 {
        return Err(CodecError::BadParam("channel mask"));
    }
    Ok(c)
}

/// `Op::IOF_PULL`: forward `channels` of `sources` to the requester.
#[derive(Clone, Debug, PartialEq)]
pub struct Pull {
    /// The requester's id for this registration (its handler reference).
    pub id: u64,
    /// Whose output (`PMIX_RANK_WILDCARD` for a whole namespace).
    pub sources: Vec<Proc>,
    /// Which channels (output channels only).
    pub channels: u16,
    /// The pull's directives (cache size and policy, copy/redirect, ...).
    pub directives: Vec<Info>,
}

impl Pull {
    /// The request body.
    pub fn encode(&self) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        put_u64(&mut out, self.id);
        put_procs(&mut out, &self.sources)?;
        put_u32(&mut out, self.channels.into());
        put_infos(&mut out, &self.directives)?;
        Ok(out)
    }

    /// Decodes a pull: at least one source, output channels only.
    pub fn decode(body: &[u8]) -> Result<Pull, CodecError> {
        let mut r = Reader::new(body);
        let id = get_u64(&mut r)?;
        let sources = get_procs(&mut r)?;
        let channels = get_channels(&mut r)?;
        let directives = get_infos(&mut r)?;
        if sources.is_empty() {
            return Err(CodecError::BadParam("pull without sources"));
        }
        if channels & channel::OUTPUT == 0 || channels & channel::STDIN != 0 {
            return Err(CodecError::BadParam("pull channels"));
        }
        finish(
            &r,
            Pull {
                id,
                sources,
                channels,
                directives,
            },
        )
    }
}

/// `Op::IOF_DEREGISTER`: ends the requester's registration `id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Deregister {
    /// The registration's id (as in its [`Pull`]).
    pub id: u64,
    /// Directives (none used today).
    pub directives: Vec<Info>,
}

impl Deregister {
    /// The request body.
    pub fn encode(&self) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        put_u64(&mut out, self.id);
        put_infos(&mut out, &self.directives)?;
        Ok(out)
    }

    /// Decodes a deregistration.
    pub fn decode(body: &[u8]) -> Result<Deregister, CodecError> {
        let mut r = Reader::new(body);
        let id = get_u64(&mut r)?;
        let directives = get_infos(&mut r)?;
        finish(&r, Deregister { id, directives })
    }
}

/// `Op::IOF_PUSH`: bytes (or the end) of the requester's stdin for
/// `targets`.
#[derive(Clone, Debug, PartialEq)]
pub struct Push {
    /// Whose stdin (`PMIX_RANK_WILDCARD` for a whole namespace).
    pub targets: Vec<Proc>,
    /// Directives (`PMIX_IOF_COMPLETE`, ...).
    pub directives: Vec<Info>,
    /// The bytes; `None`: end of input (the targets' stdin closes).
    pub data: Option<Vec<u8>>,
}

impl Push {
    /// The request body.
    pub fn encode(&self) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        put_procs(&mut out, &self.targets)?;
        put_infos(&mut out, &self.directives)?;
        match &self.data {
            Some(d) => {
                out.push(1);
                put_bytes(&mut out, d);
            }
            None => out.push(0),
        }
        Ok(out)
    }

    /// Reads this process's stdin to its end, handing `send` a push for
    /// `targets` with `directives` per chunk read, then one for the end
    /// (no bytes, `PMIX_IOF_COMPLETE`), one at a time; stops early when
    /// `send` returns false (the push failed). A read error ends the
    /// input as its end does.
    pub(crate) fn from_stdin(
        targets: &[Proc],
        directives: &[Info],
        mut send: impl FnMut(Push) -> bool,
    ) {
        let mut buf = vec![0u8; 64 << 10];
        let mut stdin = std::io::stdin().lock();
        loop {
            let n = match std::io::Read::read(&mut stdin, &mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => 0,
            };
            let mut d = directives.to_vec();
            if n == 0 {
                d.extend(Info::keyed(keys::IOF_COMPLETE, Value::Bool(true)));
            }
            let p = Push {
                targets: targets.to_vec(),
                directives: d,
                data: (n > 0).then(|| buf[..n].to_vec()),
            };
            if !send(p) || n == 0 {
                return;
            }
        }
    }

    /// Decodes a push: at least one target.
    pub fn decode(body: &[u8]) -> Result<Push, CodecError> {
        let mut r = Reader::new(body);
        let targets = get_procs(&mut r)?;
        let directives = get_infos(&mut r)?;
        let data = match get_u8(&mut r)? {
            0 => None,
            1 => Some(get_bytes(&mut r)?),
            _ => return Err(CodecError::BadParam("push data flag")),
        };
        if targets.is_empty() {
            return Err(CodecError::BadParam("push without targets"));
        }
        finish(
            &r,
            Push {
                targets,
                directives,
                data,
            },
        )
    }
}

/// The body of an `Iof` frame: one chunk of one source's channel, for the
/// receiving client's registrations `ids`.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    /// The registrations (the client's ids) this chunk matched.
    pub ids: Vec<u64>,
    /// Who wrote it.
    pub source: Proc,
    /// Exactly one output channel bit.
    pub channel: u16,
    /// The bytes (empty with `PMIX_IOF_COMPLETE`: the channel closed).
    pub data: Vec<u8>,
    /// `PMIX_IOF_COMPLETE`, the drop notice, and what the host gave.
    pub infos: Vec<Info>,
}

impl Delivery {
    /// The frame body.
    pub fn encode(&self) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::with_capacity(self.data.len() + 64);
        put_count(&mut out, self.ids.len())?;
        for id in &self.ids {
            put_u64(&mut out, *id);
        }
        put_proc(&mut out, &self.source)?;
        put_u32(&mut out, self.channel.into());
        put_bytes(&mut out, &self.data);
        put_infos(&mut out, &self.infos)?;
        Ok(out)
    }

    /// Decodes a delivery: at least one id, one known channel bit.
    pub fn decode(body: &[u8]) -> Result<Delivery, CodecError> {
        let mut r = Reader::new(body);
        let n = get_count(&mut r)?;
        if n == 0 {
            return Err(CodecError::BadParam("delivery without registrations"));
        }
        let ids = (0..n)
            .map(|_| get_u64(&mut r))
            .collect::<Result<Vec<_>, _>>()?;
        let source = get_proc(&mut r)?;
        let channel = get_channels(&mut r)?;
        if channel.count_ones() != 1 || channel & channel::OUTPUT == 0 {
            return Err(CodecError::BadParam("delivery channel"));
        }
        let data = get_bytes(&mut r)?;
        let infos = get_infos(&mut r)?;
        finish(
            &r,
            Delivery {
                ids,
                source,
                channel,
                data,
                infos,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace, Rank, Value};

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("job").unwrap(), Rank(r))
    }

    #[test]
    fn bodies_round_trip() {
        let pull = Pull {
            id: 3,
            sources: vec![p(Rank::WILDCARD.0)],
            channels: channel::STDOUT | channel::STDERR,
            directives: vec![Info::new(
                Key::new(crate::keys::IOF_CACHE_SIZE).unwrap(),
                Value::Uint32(10),
            )],
        };
        assert_eq!(Pull::decode(&pull.encode().unwrap()).unwrap(), pull);
        let d = Deregister {
            id: 9,
            directives: vec![],
        };
        assert_eq!(Deregister::decode(&d.encode().unwrap()).unwrap(), d);
        for data in [None, Some(b"hi\n".to_vec())] {
            let push = Push {
                targets: vec![p(0)],
                directives: vec![],
                data,
            };
            assert_eq!(Push::decode(&push.encode().unwrap()).unwrap(), push);
        }
        let del = Delivery {
            ids: vec![1, 2],
            source: p(1),
            channel: channel::STDERR,
            data: b"x".to_vec(),
            infos: vec![],
        };
        assert_eq!(Delivery::decode(&del.encode().unwrap()).unwrap(), del);
    }

    #[test]
    fn bad_bodies_are_refused() {
        // stdin on a pull, no channel, no source.
        for (sources, channels) in [
            (vec![p(0)], channel::STDIN | channel::STDOUT),
            (vec![p(0)], 0),
            (vec![], channel::STDOUT),
        ] {
            let pull = Pull {
                id: 0,
                sources,
                channels,
                directives: vec![],
            };
            assert!(Pull::decode(&pull.encode().unwrap()).is_err());
        }
        // Two channels in one delivery; trailing bytes.
        let mut del = Delivery {
            ids: vec![1],
            source: p(1),
            channel: channel::STDOUT | channel::STDERR,
            data: vec![],
            infos: vec![],
        };
        assert!(Delivery::decode(&del.encode().unwrap()).is_err());
        del.channel = channel::STDOUT;
        let mut b = del.encode().unwrap();
        b.push(0);
        assert!(Delivery::decode(&b).is_err());
        // A huge id count is refused before allocating.
        let mut b = Vec::new();
        put_u32(&mut b, u32::MAX);
        assert!(Delivery::decode(&b).is_err());
    }
}
