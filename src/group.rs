//! Process groups: the types the client API, the server and the host
//! share (`PMIx_Group_*`, the host's `group` upcall).
//!
//! A group is named by an id that also serves as a namespace
//! (`{grp, WILDCARD}` is every member, `{grp, r}` member `r`). Its
//! membership is kept sorted by namespace then rank, so every member sees
//! the same order and the same group rank for each process (OpenPMIx 4.2's
//! rule; its master branch uses the host's order).

use crate::info::value_of;
use crate::{keys, Info, Key, Proc, Status, Value};

/// `pmix_group_operation_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOp {
    /// `PMIX_GROUP_CONSTRUCT` (0).
    Construct,
    /// `PMIX_GROUP_DESTRUCT` (1).
    Destruct,
}

impl GroupOp {
    /// The C value.
    pub fn code(self) -> i32 {
        match self {
            GroupOp::Construct => 0,
            GroupOp::Destruct => 1,
        }
    }

    /// From the C value.
    pub fn from_code(c: i32) -> Option<GroupOp> {
        match c {
            0 => Some(GroupOp::Construct),
            1 => Some(GroupOp::Destruct),
            _ => None,
        }
    }
}

/// `pmix_group_opt_t`: an invitee's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupOpt {
    /// `PMIX_GROUP_DECLINE` (0).
    Decline,
    /// `PMIX_GROUP_ACCEPT` (1).
    Accept,
}

impl GroupOpt {
    /// The C value.
    pub fn code(self) -> i32 {
        match self {
            GroupOpt::Decline => 0,
            GroupOpt::Accept => 1,
        }
    }

    /// From the C value.
    pub fn from_code(c: i32) -> Option<GroupOpt> {
        match c {
            0 => Some(GroupOpt::Decline),
            1 => Some(GroupOpt::Accept),
            _ => None,
        }
    }
}

/// What a construct, an invite or a join that completed returns.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupResult {
    /// `PMIX_SUCCESS`, or `PMIX_ERR_PARTIAL_SUCCESS` when optional members
    /// were lost (`PMIX_GROUP_OPTIONAL`).
    pub status: Status,
    /// The group's id.
    pub id: String,
    /// `PMIX_GROUP_CONTEXT_ID`, if one was assigned.
    pub context_id: Option<u64>,
    /// The membership, in group-rank order.
    pub members: Vec<Proc>,
    /// What each member contributed with `PMIX_GROUP_INFO`.
    pub info: Vec<(Proc, Vec<Info>)>,
}

impl GroupResult {
    /// A successful result naming group `id` with no members yet (a
    /// declined join, a destruct, a leave).
    pub fn empty(id: &str) -> GroupResult {
        GroupResult {
            status: Status::SUCCESS,
            id: id.to_owned(),
            context_id: None,
            members: Vec::new(),
            info: Vec::new(),
        }
    }

    /// The results array as C callers get it: `PMIX_GROUP_CONTEXT_ID`
    /// first when one was assigned (OpenPMIx 4.2's examples read
    /// `results[0]`), then `PMIX_GROUP_MEMBERSHIP` (an array of procs),
    /// then `PMIX_GROUP_ID` (a join's results name the group, as OpenPMIx
    /// master's do; the other calls' carry it too).
    pub fn to_infos(&self) -> Vec<Info> {
        let mut out = Vec::with_capacity(3);
        if let (Some(c), Ok(k)) = (self.context_id, Key::new(keys::GROUP_CONTEXT_ID)) {
            out.push(Info::new(k, Value::Size(c as usize)));
        }
        if let Ok(k) = Key::new(keys::GROUP_MEMBERSHIP) {
            out.push(Info::new(k, Value::proc_array(&self.members)));
        }
        if let Ok(k) = Key::new(keys::GROUP_ID) {
            out.push(Info::new(k, Value::string(&self.id)));
        }
        out
    }

    /// The group rank of `proc`.
    pub fn rank_of(&self, proc: &Proc) -> Option<usize> {
        self.members.iter().position(|p| p == proc)
    }
}

/// The `PMIX_GROUP_ID` among `infos` (an event's, a query's).
pub fn id_in(infos: &[Info]) -> Option<String> {
    value_of(infos, keys::GROUP_ID)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The `PMIX_GROUP_CONTEXT_ID` among `infos` (of any integer type).
pub fn context_id_in(infos: &[Info]) -> Option<u64> {
    value_of(infos, keys::GROUP_CONTEXT_ID)
        .and_then(crate::wire::int)
        .and_then(|c| u64::try_from(c).ok())
}

/// The `PMIX_GROUP_MEMBERSHIP` among `infos`.
pub fn membership_in(infos: &[Info]) -> Option<Vec<Proc>> {
    value_of(infos, keys::GROUP_MEMBERSHIP).and_then(Value::procs)
}

/// Callback of the non-blocking group calls that return results
/// (construct, invite, join); runs on the progress thread.
pub type GroupCallback = Box<dyn FnOnce(Result<GroupResult, Status>) + Send + 'static>;

/// The group event codes (`pmix_status_t` values of the 4.2 headers).
pub mod events {
    use crate::Status;

    /// `PMIX_GROUP_INVITED`.
    pub const INVITED: Status = Status(-159);
    /// `PMIX_GROUP_LEFT`.
    pub const LEFT: Status = Status(-160);
    /// `PMIX_GROUP_INVITE_ACCEPTED`.
    pub const INVITE_ACCEPTED: Status = Status(-161);
    /// `PMIX_GROUP_INVITE_DECLINED`.
    pub const INVITE_DECLINED: Status = Status(-162);
    /// `PMIX_GROUP_INVITE_FAILED`.
    pub const INVITE_FAILED: Status = Status(-163);
    /// `PMIX_GROUP_MEMBERSHIP_UPDATE`.
    pub const MEMBERSHIP_UPDATE: Status = Status(-164);
    /// `PMIX_GROUP_CONSTRUCT_ABORT`.
    pub const CONSTRUCT_ABORT: Status = Status(-165);
    /// `PMIX_GROUP_CONSTRUCT_COMPLETE`.
    pub const CONSTRUCT_COMPLETE: Status = Status(-166);
    /// `PMIX_GROUP_LEADER_SELECTED`.
    pub const LEADER_SELECTED: Status = Status(-167);
    /// `PMIX_GROUP_LEADER_FAILED`.
    pub const LEADER_FAILED: Status = Status(-168);
    /// `PMIX_GROUP_CONTEXT_ID_ASSIGNED`.
    pub const CONTEXT_ID_ASSIGNED: Status = Status(-169);
    /// `PMIX_GROUP_MEMBER_FAILED`.
    pub const MEMBER_FAILED: Status = Status(-170);
}
