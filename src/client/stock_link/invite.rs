//! Invite/join on an OpenPMIx server, as OpenPMIx 5's own clients do it
//! (read in its `pmix_client_group.c`): not through the server's group
//! commands but by events among the processes, which the server only
//! relays.
//!
//! - The leader (`PMIx_Group_invite`) registers `PMIX_GROUP_INVITE_ACCEPTED`,
//!   `_DECLINED` and `PMIX_PROC_TERMINATED` with the server, then notifies
//!   `PMIX_GROUP_INVITED` to the invitees (custom range, `PMIX_GROUP_ID`,
//!   non-default handlers only). Each answer (the event's source) settles
//!   one invitee: an acceptance keeps it, a decline or its end drops it
//!   from the group. Once every invitee answered, the invite succeeds
//!   with the members left, and the leader notifies them
//!   `PMIX_GROUP_CONSTRUCT_COMPLETE` (custom range, `PMIX_GROUP_ID`).
//! - An invitee (`PMIx_Group_join`) notifies `PMIX_GROUP_INVITE_ACCEPTED`
//!   (or `_DECLINED`) to the leader alone; the server's status for that
//!   notification answers the join (no members: OpenPMIx's join returns
//!   none either).
//!
//! Invariants: an invitation ends exactly once — all answered, the
//! notification refused, or its `PMIX_TIMEOUT` passed (then
//! `PMIX_ERR_TIMEOUT`); an answer settles at most one invitation (the
//! oldest that waits for its source), and one without a waiting
//! invitation is only passed on to the client's handlers.

use std::time::{Duration, Instant};

use crate::events::{Event, Range};
use crate::group::events as codes;
use crate::group::{GroupOpt, GroupResult};
use crate::wire::directives::{Directives, TIMEOUT_ONLY};
use crate::wire::group;
use crate::{keys, Info, Key, Proc, Status, Value};

/// `PMIX_PROC_TERMINATED`.
const PROC_TERMINATED: Status = Status(-111);

/// The codes a leader registers with the server while it waits.
pub(super) const ANSWER_CODES: [Status; 3] = [
    codes::INVITE_ACCEPTED,
    codes::INVITE_DECLINED,
    PROC_TERMINATED,
];

/// One invitation this process (the leader) waits on.
pub(super) struct Invitation {
    /// The client's request.
    pub(super) request: u32,
    pub(super) id: String,
    /// The procs invited, this process among them if it named itself, in
    /// the order given; those who declined or ended are taken out.
    members: Vec<Proc>,
    /// The invitees whose answer has not come.
    waiting: Vec<Proc>,
    deadline: Option<Instant>,
}

fn info(k: &str, v: Value) -> Info {
    Info::new(Key::new(k).expect("reserved key names fit"), v)
}

/// The notification of `code` from `me` to `targets` (custom range),
/// with `extra` infos.
fn notice(me: &Proc, code: Status, targets: Value, extra: Vec<Info>) -> Event {
    let mut infos = vec![info(keys::EVENT_CUSTOM_RANGE, targets)];
    infos.extend(extra);
    Event {
        status: code,
        source: me.clone(),
        range: Range::CUSTOM,
        infos,
    }
}

impl Invitation {
    /// The invitation an invite request's `body` asks of `me` (client
    /// request `request`), and the `PMIX_GROUP_INVITED` notification to
    /// send; `Err` for a body that does not decode.
    pub(super) fn start(
        me: &Proc,
        request: u32,
        body: &[u8],
    ) -> Result<(Invitation, Event), Status> {
        let (id, procs, dirs) = group::decode_construct(body)?;
        let mut members: Vec<Proc> = Vec::new();
        for p in procs {
            if !members.contains(&p) {
                members.push(p);
            }
        }
        let waiting: Vec<Proc> = members.iter().filter(|p| *p != me).cloned().collect();
        let deadline = Directives::parse_for(&dirs, TIMEOUT_ONLY)
            .timeout
            .map(|t| Instant::now() + t);
        let invited = notice(
            me,
            codes::INVITED,
            Value::proc_array(&waiting),
            vec![
                info(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
                info(keys::GROUP_ID, Value::string(&id)),
            ],
        );
        Ok((
            Invitation {
                request,
                id,
                members,
                waiting,
                deadline,
            },
            invited,
        ))
    }

    /// Takes an answer (`ev`) into account; true if it was one this
    /// invitation waited for.
    pub(super) fn answer(&mut self, ev: &Event) -> bool {
        if !ANSWER_CODES.contains(&ev.status) {
            return false;
        }
        // A process's end names it as the affected process.
        let who = if ev.status == PROC_TERMINATED {
            match crate::info::value_of(&ev.infos, keys::EVENT_AFFECTED_PROC) {
                Some(Value::Proc(p)) => p.clone(),
                _ => ev.source.clone(),
            }
        } else {
            ev.source.clone()
        };
        let Some(at) = self.waiting.iter().position(|p| *p == who) else {
            return false;
        };
        self.waiting.remove(at);
        if ev.status != codes::INVITE_ACCEPTED {
            self.members.retain(|p| *p != who);
        }
        true
    }

    /// Every invitee answered.
    pub(super) fn settled(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Its deadline passed at `now`.
    pub(super) fn expired(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }

    /// How long until its deadline (`None`: none).
    pub(super) fn left(&self, now: Instant) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(now))
    }

    /// The invite's answer (a group of the members left) and the
    /// `PMIX_GROUP_CONSTRUCT_COMPLETE` notification to them.
    pub(super) fn complete(self, me: &Proc) -> (Result<Vec<u8>, Status>, Vec<Proc>, Event) {
        let others: Vec<Proc> = self.members.iter().filter(|p| *p != me).cloned().collect();
        let done = notice(
            me,
            codes::CONSTRUCT_COMPLETE,
            Value::proc_array(&others),
            vec![
                info(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
                info(keys::GROUP_ID, Value::string(&self.id)),
            ],
        );
        let body = group::encode_result(&GroupResult {
            status: Status::SUCCESS,
            id: self.id,
            context_id: None,
            members: self.members.clone(),
            info: Vec::new(),
        });
        (body, self.members, done)
    }
}

/// The notification a join request's `body` asks of `me`: its answer to
/// the leader alone.
pub(super) fn join_notice(me: &Proc, body: &[u8]) -> Result<Event, Status> {
    let (_, leader, opt, _) = group::decode_join(body)?;
    let code = match opt {
        GroupOpt::Accept => codes::INVITE_ACCEPTED,
        GroupOpt::Decline => codes::INVITE_DECLINED,
    };
    Ok(notice(me, code, Value::Proc(leader), Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("job").unwrap(), Rank(r))
    }

    fn answer(code: Status, from: u32) -> Event {
        Event {
            status: code,
            source: p(from),
            range: Range::CUSTOM,
            infos: Vec::new(),
        }
    }

    fn started(procs: &[Proc], dirs: &[Info]) -> (Invitation, Event) {
        let body = group::encode_construct("g", procs, dirs).unwrap();
        Invitation::start(&p(0), 7, &body).unwrap()
    }

    #[test]
    fn the_leader_invites_the_others_and_waits_for_each() {
        let (mut inv, invited) = started(&[p(0), p(1), p(2)], &[]);
        assert_eq!(invited.status, codes::INVITED);
        assert_eq!(invited.range, Range::CUSTOM);
        let targets = crate::info::value_of(&invited.infos, keys::EVENT_CUSTOM_RANGE);
        assert_eq!(targets.and_then(Value::procs), Some(vec![p(1), p(2)]));
        assert!(!inv.settled());
        assert!(inv.answer(&answer(codes::INVITE_ACCEPTED, 1)));
        // A second answer of the same process is not this invitation's.
        assert!(!inv.answer(&answer(codes::INVITE_ACCEPTED, 1)));
        assert!(!inv.settled());
        assert!(inv.answer(&answer(codes::INVITE_DECLINED, 2)));
        assert!(inv.settled());
        let (body, members, done) = inv.complete(&p(0));
        assert_eq!(members, vec![p(0), p(1)]);
        let g = group::decode_result(&body.unwrap()).unwrap();
        assert_eq!((g.id.as_str(), g.members), ("g", vec![p(0), p(1)]));
        assert_eq!(done.status, codes::CONSTRUCT_COMPLETE);
    }

    #[test]
    fn other_events_and_strangers_are_not_answers() {
        let (mut inv, _) = started(&[p(0), p(1)], &[]);
        assert!(!inv.answer(&answer(codes::INVITED, 1)));
        assert!(!inv.answer(&answer(codes::INVITE_ACCEPTED, 5)));
        assert!(!inv.settled());
    }

    #[test]
    fn a_timeout_sets_a_deadline() {
        let (inv, _) = started(&[p(0), p(1)], &[]);
        assert!(inv.left(Instant::now()).is_none());
        let t = [info(keys::TIMEOUT, Value::Int32(1))];
        let (inv, _) = started(&[p(0), p(1)], &t);
        assert!(!inv.expired(Instant::now()));
        assert!(inv.expired(Instant::now() + Duration::from_secs(2)));
    }

    #[test]
    fn a_join_answers_the_leader_alone() {
        let body = group::encode_join("g", &p(0), GroupOpt::Accept, &[]).unwrap();
        let n = join_notice(&p(3), &body).unwrap();
        assert_eq!(n.status, codes::INVITE_ACCEPTED);
        let to = crate::info::value_of(&n.infos, keys::EVENT_CUSTOM_RANGE);
        assert_eq!(to, Some(&Value::Proc(p(0))));
        let body = group::encode_join("g", &p(0), GroupOpt::Decline, &[]).unwrap();
        assert_eq!(
            join_notice(&p(3), &body).unwrap().status,
            codes::INVITE_DECLINED
        );
    }
}
