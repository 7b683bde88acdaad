//! I/O forwarding in a client or tool: `PMIx_IOF_pull`,
//! `PMIx_IOF_deregister`, `PMIx_IOF_push`.
//!
//! A pull is filed here under a handler id this process chooses (from 0
//! up, as OpenPMIx's first handler is 0) and sent to the server with it;
//! the server stamps the output it forwards (`Iof` frames) with the ids it
//! matched. Output for an id not (or no longer) filed is dropped.
//!
//! The formatting a pull asks for is applied here, on the receiving side,
//! as OpenPMIx does: `PMIX_IOF_TAG_OUTPUT` (`[jobid,rank]<stdout>: `, the
//! jobid being the part of the namespace after its last `@`),
//! `PMIX_IOF_TAG_FULLNAME_OUTPUT`, `PMIX_IOF_RANK_OUTPUT`,
//! `PMIX_IOF_TIMESTAMP_OUTPUT` (`ctime` in brackets) and
//! `PMIX_IOF_XML_OUTPUT` (`<stdout rank="0">...</stdout>`, with `&`, `<`,
//! `>` and unprintable bytes escaped), line by line: a formatted stream
//! holds an incomplete last line until its newline, the end of the
//! stream (`PMIX_IOF_COMPLETE`) or the deregistration. Unlike OpenPMIx,
//! which hands the handler the raw bytes, a handler receives the output
//! formatted as asked. `PMIX_IOF_BUFFERING_SIZE` collects output per
//! source and channel until that many bytes are there;
//! `PMIX_IOF_BUFFERING_TIME` bounds how long (in seconds) they wait (a
//! timer thread per such registration flushes them on the progress
//! thread). A pull without a handler writes to this process's own stdout
//! (the stdout channel) or stderr (stderr and stddiag).
//!
//! A push is bytes, the end of input, or (no bytes and
//! `PMIX_IOF_PUSH_STDIN`, see [`PushRequest`]) this process's own stdin,
//! which [`Client::iof_push_stdin`] forwards from a thread of its own
//! until its end, then pushes the end of input.
//!
//! Invariants:
//! - Handlers run on the progress thread only, one chunk at a time, in
//!   the order the server sent them (per source and channel: the order
//!   the output was written, see `server::iof`).
//! - A registration's buffered output is flushed to its handler before
//!   its deregistration completes; nothing reaches it afterwards.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::{Client, Inner};
use crate::info::{flag_in, value_of};
use crate::wire::iof::{channel, Delivery, Deregister, Pull, Push};
use crate::wire::{int, Op};
use crate::{keys, Info, Proc, Rank, Status};

/// One chunk of forwarded output, as a handler receives it.
#[derive(Debug)]
pub struct IofChunk<'a> {
    /// The registration's handler id.
    pub id: u64,
    /// Who wrote it.
    pub source: &'a Proc,
    /// Its channel (one `pmix_iof_channel_t` bit).
    pub channel: u16,
    /// The bytes (formatted as the pull asked); empty at the end of the
    /// stream.
    pub data: &'a [u8],
    /// `PMIX_IOF_COMPLETE` (the stream ended), the server's drop notice
    /// (`crate::server::IOF_DROPPED`) and what the host gave.
    pub infos: &'a [Info],
}

/// Receives forwarded output on the progress thread.
pub type IofHandler = Arc<dyn Fn(&IofChunk<'_>) + Send + Sync + 'static>;

/// Receives a registration's result (its handler id) on the progress
/// thread.
pub type IofRegCallback = Box<dyn FnOnce(Result<u64, Status>) + Send + 'static>;

/// What a `PMIx_IOF_push` asks for, from its bytes and directives: the
/// rule a client's, a tool's and a server's push share (a server process
/// pushes through its own host, see `Server::iof_push_stdin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushRequest<'a> {
    /// These bytes, for the targets' stdin.
    Bytes(&'a [u8]),
    /// No bytes: the end of input (the targets' stdin closes).
    EndOfInput,
    /// No bytes and `PMIX_IOF_PUSH_STDIN`: this process's own stdin is
    /// forwarded to the targets until its end ([`Client::iof_push_stdin`]);
    /// the C API answers `PMIX_OPERATION_SUCCEEDED` once it started.
    OwnStdin,
}

impl<'a> PushRequest<'a> {
    /// The request a push of `data` (`None`: no byte object) with
    /// `directives` makes.
    pub fn of(data: Option<&'a [u8]>, directives: &[Info]) -> PushRequest<'a> {
        match data {
            Some(d) => PushRequest::Bytes(d),
            // attrs begin: PMIx_IOF_push
            None if flag_in(directives, keys::IOF_PUSH_STDIN) => PushRequest::OwnStdin,
            // attrs end
            None => PushRequest::EndOfInput,
        }
    }
}

/// The output formatting a pull asked for.
#[derive(Clone, Copy, Debug, Default)]
struct Format {
    tag: bool,
    fullname: bool,
    rank: bool,
    timestamp: bool,
    xml: bool,
}

impl Format {
    fn parse(d: &[Info]) -> Format {
        // attrs begin: PMIx_IOF_pull
        Format {
            tag: flag_in(d, keys::IOF_TAG_OUTPUT),
            fullname: flag_in(d, keys::IOF_TAG_FULLNAME_OUTPUT),
            rank: flag_in(d, keys::IOF_RANK_OUTPUT),
            timestamp: flag_in(d, keys::IOF_TIMESTAMP_OUTPUT),
            xml: flag_in(d, keys::IOF_XML_OUTPUT),
        }
        // attrs end
    }

    fn any(&self) -> bool {
        self.tag || self.fullname || self.rank || self.timestamp || self.xml
    }

    /// One line (with its newline, if it has one) formatted.
    fn line(&self, source: &Proc, chan: u16, line: &[u8], out: &mut Vec<u8>) {
        let suffix = channel_name(chan);
        let ns = source.nspace.to_string_lossy();
        let (jobid, is_jobid) = match ns.rfind('@') {
            Some(i) => (ns[i + 1..].to_string(), true),
            None => (ns.to_string(), false),
        };
        let rank = rank_text(source.rank);
        let stamp = self.timestamp.then(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0);
            match crate::sys::ctime(now) {
                Ok(mut t) => {
                    if t.last() == Some(&b'\n') {
                        t.pop();
                    }
                    String::from_utf8_lossy(&t).into_owned()
                }
                Err(_) => "unknown".to_string(),
            }
        });
        if self.xml {
            let head = if self.tag {
                let attr = if is_jobid { "jobid" } else { "nspace" };
                format!("<{suffix} {attr}=\"{jobid}\" rank=\"{rank}\"")
            } else if self.fullname {
                format!("<{suffix} nspace=\"{ns}\" rank=\"{rank}\"")
            } else {
                format!("<{suffix} rank=\"{rank}\"")
            };
            out.extend_from_slice(head.as_bytes());
            if let Some(t) = &stamp {
                out.extend_from_slice(format!(" timestamp=\"{t}\"").as_bytes());
            }
            out.push(b'>');
            for &b in line {
                match b {
                    b'&' => out.extend_from_slice(b"&amp;"),
                    b'<' => out.extend_from_slice(b"&lt;"),
                    b'>' => out.extend_from_slice(b"&gt;"),
                    0x20..=0x7e => out.push(b),
                    _ => out.extend_from_slice(format!("&#{b:03};").as_bytes()),
                }
            }
            out.extend_from_slice(format!("</{suffix}>\n").as_bytes());
            return;
        }
        let tag = if self.tag {
            Some(format!("[{jobid},{rank}]<{suffix}>: "))
        } else if self.fullname {
            Some(format!("[{ns},{rank}]<{suffix}>: "))
        } else if self.rank {
            Some(format!("[{rank}]<{suffix}>: "))
        } else {
            None
        };
        match (&stamp, &tag) {
            (Some(t), Some(_)) => out.extend_from_slice(format!("[{t}]").as_bytes()),
            (Some(t), None) => out.extend_from_slice(format!("[{t}]<{suffix}>: ").as_bytes()),
            _ => {}
        }
        if let Some(tag) = &tag {
            out.extend_from_slice(tag.as_bytes());
        }
        out.extend_from_slice(line);
    }
}

fn channel_name(c: u16) -> &'static str {
    match c {
        channel::STDOUT => "stdout",
        channel::STDERR => "stderr",
        _ => "stddiag",
    }
}

/// `PMIX_RANK_PRINT`.
fn rank_text(r: Rank) -> String {
    match r {
        Rank::UNDEF => "UNDEF".into(),
        Rank::WILDCARD => "WILDCARD".into(),
        Rank(n) if n == u32::MAX - 2 => "LOCALNODE".into(),
        Rank(n) => n.to_string(),
    }
}

/// What one source's channel holds back.
#[derive(Default)]
struct Held {
    /// An incomplete last line (formatted streams).
    partial: Vec<u8>,
    /// Formatted output not yet handed out (buffering).
    ready: Vec<u8>,
    since: Option<Instant>,
}

/// One registration.
struct Puller {
    handler: Option<IofHandler>,
    format: Format,
    buffer_size: usize,
    buffer_time: Option<Duration>,
    held: Mutex<HashMap<(Proc, u16), Held>>,
    /// Stops the buffering timer thread (dropped at deregistration).
    stop: Mutex<Option<crossbeam_channel::Sender<()>>>,
}

impl Puller {
    fn new(handler: Option<IofHandler>, d: &[Info]) -> Puller {
        let size = |k| {
            value_of(d, k)
                .and_then(int)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        // attrs begin: PMIx_IOF_pull
        let secs = size(keys::IOF_BUFFERING_TIME);
        let buffer_size = size(keys::IOF_BUFFERING_SIZE);
        // attrs end
        Puller {
            handler,
            format: Format::parse(d),
            buffer_size,
            buffer_time: (secs > 0).then(|| Duration::from_secs(secs as u64)),
            held: Mutex::new(HashMap::new()),
            stop: Mutex::new(None),
        }
    }

    fn emit(&self, id: u64, source: &Proc, chan: u16, data: &[u8], infos: &[Info]) {
        match &self.handler {
            Some(h) => h(&IofChunk {
                id,
                source,
                channel: chan,
                data,
                infos,
            }),
            None if !data.is_empty() => {
                // A closed stdout/stderr of our own is no reason to fail.
                let _ = if chan == channel::STDOUT {
                    let mut o = std::io::stdout().lock();
                    o.write_all(data).and_then(|()| o.flush())
                } else {
                    std::io::stderr().lock().write_all(data)
                };
            }
            None => {}
        }
    }

    /// One delivered chunk for registration `id`.
    fn receive(&self, id: u64, d: &Delivery) {
        let end = d.data.is_empty() || flag_in(&d.infos, keys::IOF_COMPLETE);
        if !self.format.any() && self.buffer_size == 0 && self.buffer_time.is_none() {
            return self.emit(id, &d.source, d.channel, &d.data, &d.infos);
        }
        let out = {
            let mut held = self.held.lock();
            let h = held.entry((d.source.clone(), d.channel)).or_default();
            if self.format.any() {
                h.partial.extend_from_slice(&d.data);
                let cut = if end {
                    h.partial.len()
                } else {
                    h.partial
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1)
                };
                let lines: Vec<u8> = h.partial.drain(..cut).collect();
                for line in lines.split_inclusive(|&b| b == b'\n') {
                    self.format.line(&d.source, d.channel, line, &mut h.ready);
                }
            } else {
                h.ready.extend_from_slice(&d.data);
            }
            if !h.ready.is_empty() && h.since.is_none() {
                h.since = Some(Instant::now());
            }
            let due = end
                || h.ready.len() >= self.buffer_size.max(1)
                || self
                    .buffer_time
                    .zip(h.since)
                    .is_some_and(|(t, s)| s.elapsed() >= t);
            if due {
                h.since = None;
                std::mem::take(&mut h.ready)
            } else {
                Vec::new()
            }
        };
        if !out.is_empty() {
            let infos = if end { &[][..] } else { &d.infos[..] };
            self.emit(id, &d.source, d.channel, &out, infos);
        }
        if end {
            self.held.lock().remove(&(d.source.clone(), d.channel));
            self.emit(id, &d.source, d.channel, &[], &d.infos);
        }
    }

    /// Hands out everything held (`all`), or what waited its buffering
    /// time.
    fn flush(&self, id: u64, all: bool) {
        let out: Vec<((Proc, u16), Vec<u8>)> = {
            let mut held = self.held.lock();
            held.iter_mut()
                .filter_map(|(k, h)| {
                    let due = all
                        || self
                            .buffer_time
                            .zip(h.since)
                            .is_some_and(|(t, s)| s.elapsed() >= t);
                    if !due {
                        return None;
                    }
                    if all && !h.partial.is_empty() {
                        let p = std::mem::take(&mut h.partial);
                        if self.format.any() {
                            self.format.line(&k.0, k.1, &p, &mut h.ready);
                        } else {
                            h.ready.extend_from_slice(&p);
                        }
                    }
                    h.since = None;
                    let r = std::mem::take(&mut h.ready);
                    (!r.is_empty()).then(|| (k.clone(), r))
                })
                .collect()
        };
        for ((source, chan), data) in out {
            self.emit(id, &source, chan, &data, &[]);
        }
    }
}

/// This process's registrations.
#[derive(Default)]
pub(super) struct Pulls {
    table: Mutex<HashMap<u64, Arc<Puller>>>,
    next: AtomicU64,
    listening: AtomicBool,
    /// Our stdin is being forwarded (`PMIX_IOF_PUSH_STDIN`).
    pushing_stdin: AtomicBool,
}

fn on_output(inner: &Inner, body: Vec<u8>) {
    // A malformed chunk is dropped: the server is trusted for nothing it
    // sends, and one bad chunk is no reason to lose the connection.
    let Ok(d) = Delivery::decode(&body) else {
        return;
    };
    for id in &d.ids {
        let p = inner.iof.table.lock().get(id).cloned();
        if let Some(p) = p {
            p.receive(*id, &d);
        }
    }
}

/// `PMIX_ERR_WOULD_BLOCK` on the progress thread (a handler or callback
/// calling a blocking form would wait for itself), as OpenPMIx master.
fn may_block() -> Result<(), Status> {
    if std::thread::current().name() == Some("pmix-client") {
        return Err(Status::ERR_WOULD_BLOCK);
    }
    Ok(())
}

impl Client {
    fn listen_iof(&self) {
        if self.inner.iof.listening.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        self.inner
            .requester
            .set_iof_sink(Some(Arc::new(move |body: Vec<u8>| {
                if let Some(inner) = weak.upgrade() {
                    on_output(&inner, body);
                }
            })));
    }

    /// `PMIx_IOF_pull` (non-blocking): forwards `channels` of `sources` to
    /// `handler` (`None`: to this process's own stdout/stderr), formatted
    /// as `directives` ask; `done` receives the handler id (or the
    /// failure) on the progress thread. Stdin cannot be pulled
    /// (`PMIX_ERR_NOT_SUPPORTED`, as the standard says); no sources or no
    /// output channel: `PMIX_ERR_BAD_PARAM`.
    pub fn iof_pull_nb(
        &self,
        sources: &[Proc],
        channels: u16,
        directives: &[Info],
        handler: Option<IofHandler>,
        done: IofRegCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if channels & channel::STDIN != 0 {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        if sources.is_empty() || channels & channel::OUTPUT == 0 || channels & !channel::ALL != 0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        self.listen_iof();
        let id = self.inner.iof.next.fetch_add(1, Ordering::Relaxed);
        let puller = Arc::new(Puller::new(handler, directives));
        if let Some(t) = puller.buffer_time {
            self.start_buffer_timer(id, &puller, t);
        }
        self.inner.iof.table.lock().insert(id, puller);
        let body = Pull {
            id,
            sources: sources.to_vec(),
            channels,
            directives: directives.to_vec(),
        }
        .encode()
        .map_err(Status::from)?;
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        self.request_nb(
            Op::IOF_PULL,
            body,
            Box::new(move |r| match r {
                Ok(_) => done(Ok(id)),
                Err(s) => {
                    if let Some(inner) = weak.upgrade() {
                        if let Some(p) = inner.iof.table.lock().remove(&id) {
                            p.stop.lock().take();
                        }
                        // The server may have filed it before its host
                        // refused: it goes there too (the answer, if any,
                        // is not awaited).
                        if let Ok(body) = (Deregister {
                            id,
                            directives: Vec::new(),
                        })
                        .encode()
                        {
                            inner.requester.submit(
                                crate::wire::Message::Request(crate::wire::Request {
                                    op: Op::IOF_DEREGISTER,
                                    body,
                                }),
                                None,
                            );
                        }
                    }
                    done(Err(s))
                }
            }),
        )
    }

    /// `PMIx_IOF_pull`: as [`Client::iof_pull_nb`], waiting for the
    /// server; returns the handler id. Blocking forms called on the
    /// progress thread (from a handler) fail with `PMIX_ERR_WOULD_BLOCK`.
    pub fn iof_pull(
        &self,
        sources: &[Proc],
        channels: u16,
        directives: &[Info],
        handler: Option<IofHandler>,
    ) -> Result<u64, Status> {
        may_block()?;
        super::wait_for(|cb| self.iof_pull_nb(sources, channels, directives, handler, cb))?
    }

    fn start_buffer_timer(&self, id: u64, puller: &Arc<Puller>, every: Duration) {
        let (tx, rx) = crossbeam_channel::bounded::<()>(0);
        *puller.stop.lock() = Some(tx);
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let p = Arc::downgrade(puller);
        let _ = std::thread::Builder::new()
            .name("pmix-iof-buffer".into())
            .spawn(move || {
                // Ends when the registration goes (its sender is dropped).
                while let Err(crossbeam_channel::RecvTimeoutError::Timeout) = rx.recv_timeout(every)
                {
                    let (Some(inner), Some(p)) = (weak.upgrade(), p.upgrade()) else {
                        return;
                    };
                    inner
                        .requester
                        .run_there(Box::new(move || p.flush(id, false)));
                }
            });
    }

    /// `PMIx_IOF_deregister` (non-blocking): ends registration `id` after
    /// handing out what it holds; `PMIX_ERR_BAD_PARAM` for an id this
    /// process did not register (as OpenPMIx 4.2.2). `done` runs on the
    /// progress thread.
    pub fn iof_deregister_nb(
        &self,
        id: u64,
        directives: &[Info],
        done: Box<dyn FnOnce(Status) + Send + 'static>,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        let Some(p) = self.inner.iof.table.lock().remove(&id) else {
            return Err(Status::ERR_BAD_PARAM);
        };
        p.stop.lock().take();
        let body = Deregister {
            id,
            directives: directives.to_vec(),
        }
        .encode()
        .map_err(Status::from)?;
        // The flush runs on the progress thread, after every chunk
        // already received.
        self.run_on_progress_thread(Box::new(move || p.flush(id, true)));
        self.request_nb(
            Op::IOF_DEREGISTER,
            body,
            Box::new(move |r| done(r.err().unwrap_or(Status::SUCCESS))),
        )
    }

    /// `PMIx_IOF_deregister`, waiting for the server.
    pub fn iof_deregister(&self, id: u64, directives: &[Info]) -> Result<(), Status> {
        may_block()?;
        super::wait_for(|cb| self.iof_deregister_nb(id, directives, cb))?.into_result()
    }

    /// `PMIx_IOF_push` (non-blocking): `data` for the stdin of `targets`
    /// (`None`: the end of input: their stdin closes), through the
    /// server to its host's `push_stdin`. `done` runs on the progress
    /// thread.
    pub fn iof_push_nb(
        &self,
        targets: &[Proc],
        data: Option<&[u8]>,
        directives: &[Info],
        done: Box<dyn FnOnce(Status) + Send + 'static>,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if targets.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let body = Push {
            targets: targets.to_vec(),
            directives: directives.to_vec(),
            data: data.map(<[u8]>::to_vec),
        }
        .encode()
        .map_err(Status::from)?;
        self.request_nb(
            Op::IOF_PUSH,
            body,
            Box::new(move |r| done(r.err().unwrap_or(Status::SUCCESS))),
        )
    }

    /// `PMIx_IOF_push`, waiting for the host's answer.
    pub fn iof_push(
        &self,
        targets: &[Proc],
        data: Option<&[u8]>,
        directives: &[Info],
    ) -> Result<(), Status> {
        may_block()?;
        super::wait_for(|cb| self.iof_push_nb(targets, data, directives, cb))?.into_result()
    }

    /// `PMIx_IOF_push` with `PMIX_IOF_PUSH_STDIN` and no bytes: a thread
    /// reads this process's stdin and pushes each chunk to `targets`
    /// (waiting for each to be accepted, so a slow host slows the reading,
    /// not the memory), then the end of input. `PMIX_ERR_BAD_PARAM` if
    /// this process forwards its stdin already.
    pub fn iof_push_stdin(&self, targets: &[Proc], directives: &[Info]) -> Result<(), Status> {
        self.inner.check_active()?;
        if targets.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        if self.inner.iof.pushing_stdin.swap(true, Ordering::AcqRel) {
            return Err(Status::ERR_BAD_PARAM);
        }
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let is_singleton = self.is_singleton;
        let targets = targets.to_vec();
        let dirs: Vec<Info> = directives
            .iter()
            .filter(|i| i.key.as_bytes() != keys::IOF_PUSH_STDIN.as_bytes())
            .cloned()
            .collect();
        std::thread::Builder::new()
            .name("pmix-iof-stdin".into())
            .spawn(move || {
                Push::from_stdin(&targets, &dirs, |p| {
                    // A handle on the client for this push only (no
                    // progress thread of its own: dropping it stops
                    // nothing); the client may be gone meanwhile.
                    let Some(inner) = weak.upgrade() else {
                        return false;
                    };
                    let me = Client::handle(inner, is_singleton);
                    me.iof_push(&p.targets, p.data.as_deref(), &p.directives)
                        .is_ok()
                });
                if let Some(inner) = weak.upgrade() {
                    inner.iof.pushing_stdin.store(false, Ordering::Release);
                }
            })
            .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Value};

    fn src(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    fn flag(k: &str) -> Info {
        Info::keyed(k, Value::Bool(true)).unwrap()
    }

    fn fmt(d: &[Info], p: &Proc, c: u16, line: &[u8]) -> String {
        let mut out = Vec::new();
        Format::parse(d).line(p, c, line, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn tags_as_openpmix_formats_them() {
        let p = src("prterun-host-1@1", 3);
        let tag = [flag(keys::IOF_TAG_OUTPUT)];
        assert_eq!(
            fmt(&tag, &p, channel::STDOUT, b"hi\n"),
            "[1,3]<stdout>: hi\n"
        );
        let full = [flag(keys::IOF_TAG_FULLNAME_OUTPUT)];
        assert_eq!(
            fmt(&full, &p, channel::STDERR, b"x\n"),
            "[prterun-host-1@1,3]<stderr>: x\n"
        );
        let rank = [flag(keys::IOF_RANK_OUTPUT)];
        assert_eq!(
            fmt(&rank, &src("job", 0), channel::STDDIAG, b"d\n"),
            "[0]<stddiag>: d\n"
        );
        // No '@': the whole namespace.
        assert_eq!(
            fmt(&tag, &src("job", 0), channel::STDOUT, b"y\n"),
            "[job,0]<stdout>: y\n"
        );
    }

    #[test]
    fn timestamps_and_xml() {
        let p = src("ns@2", 1);
        let ts = fmt(
            &[flag(keys::IOF_TIMESTAMP_OUTPUT)],
            &p,
            channel::STDOUT,
            b"a\n",
        );
        // "[Thu Nov 26 00:06:04 2026]<stdout>: a\n"
        assert!(
            ts.starts_with('[') && ts.ends_with("]<stdout>: a\n"),
            "{ts}"
        );
        let both = fmt(
            &[flag(keys::IOF_TIMESTAMP_OUTPUT), flag(keys::IOF_TAG_OUTPUT)],
            &p,
            channel::STDOUT,
            b"a\n",
        );
        assert!(both.ends_with("][2,1]<stdout>: a\n"), "{both}");
        let xml = fmt(
            &[flag(keys::IOF_XML_OUTPUT), flag(keys::IOF_TAG_OUTPUT)],
            &p,
            channel::STDERR,
            b"a<b>&c\n",
        );
        assert_eq!(
            xml,
            "<stderr jobid=\"2\" rank=\"1\">a&lt;b&gt;&amp;c&#010;</stderr>\n"
        );
    }

    /// Hands `p` one delivery of rank 0's stdout per item (with
    /// `PMIX_IOF_COMPLETE` when the flag is set).
    fn receive_all(p: &Puller, deliveries: &[(&[u8], bool)]) {
        for (data, end) in deliveries {
            let infos: Vec<Info> = if *end {
                vec![flag(keys::IOF_COMPLETE)]
            } else {
                vec![]
            };
            let d = Delivery {
                ids: vec![0],
                source: src("j", 0),
                channel: channel::STDOUT,
                data: data.to_vec(),
                infos,
            };
            p.receive(0, &d);
        }
    }

    #[test]
    fn formatted_streams_hold_partial_lines_and_buffering_collects() {
        let got = Arc::new(Mutex::new(Vec::<String>::new()));
        let g = got.clone();
        let h: IofHandler = Arc::new(move |c: &IofChunk<'_>| {
            g.lock().push(String::from_utf8_lossy(c.data).into_owned())
        });
        let p = Puller::new(Some(h.clone()), &[flag(keys::IOF_RANK_OUTPUT)]);
        receive_all(&p, &[(b"ab", false), (b"c\nd", false), (b"", true)]);
        assert_eq!(
            *got.lock(),
            ["[0]<stdout>: abc\n", "[0]<stdout>: d", ""],
            "a line is tagged once, the tail at the end"
        );
        got.lock().clear();
        let size = Info::keyed(keys::IOF_BUFFERING_SIZE, Value::Uint32(6)).unwrap();
        let p = Puller::new(Some(h), &[size]);
        receive_all(&p, &[(b"abc", false), (b"def", false), (b"g", false)]);
        assert_eq!(*got.lock(), ["abcdef"], "six bytes collected, one held");
        p.flush(0, true);
        assert_eq!(*got.lock(), ["abcdef", "g"], "deregistration flushes");
    }
}
