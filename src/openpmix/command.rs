//! `pmix_cmd_t`: the one-byte command (packed as `PMIX_COMMAND`) that
//! starts every request a client or tool sends its server.
//!
//! Values 0–32 are common to 4.2.2 and 5.0.11; 5.0 adds 37 and 38; master
//! adds 33–36 and 39. New commands are only ever appended, and a server
//! answers one it does not know with `PMIX_ERR_NOT_SUPPORTED`.

use super::WireError;

macro_rules! commands {
    ($( $(#[$doc:meta])* $name:ident = $val:expr, $c:literal; )*) => {
        /// A request's command.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Command {
            $( $(#[$doc])* $name = $val, )*
        }

        impl Command {
            /// Every command, in value order.
            pub const ALL: &'static [Command] = &[$(Command::$name),*];

            /// OpenPMIx's name of the command (`PMIX_REQ_CMD`, ...).
            pub fn c_name(self) -> &'static str {
                match self {
                    $( Command::$name => $c, )*
                }
            }
        }

        impl TryFrom<u8> for Command {
            type Error = WireError;

            fn try_from(v: u8) -> Result<Command, WireError> {
                match v {
                    $( $val => Ok(Command::$name), )*
                    _ => Err(WireError::UnknownCommand(v)),
                }
            }
        }
    };
}

commands! {
    /// Init: asks for the job's data.
    Req = 0, "PMIX_REQ_CMD";
    /// Abort.
    Abort = 1, "PMIX_ABORT_CMD";
    /// Commit of put data.
    Commit = 2, "PMIX_COMMIT_CMD";
    /// Fence.
    FenceNb = 3, "PMIX_FENCENB_CMD";
    /// Get (and direct modex).
    GetNb = 4, "PMIX_GETNB_CMD";
    /// Finalize.
    Finalize = 5, "PMIX_FINALIZE_CMD";
    /// Publish.
    PublishNb = 6, "PMIX_PUBLISHNB_CMD";
    /// Lookup.
    LookupNb = 7, "PMIX_LOOKUPNB_CMD";
    /// Unpublish.
    UnpublishNb = 8, "PMIX_UNPUBLISHNB_CMD";
    /// Spawn.
    SpawnNb = 9, "PMIX_SPAWNNB_CMD";
    /// Connect.
    ConnectNb = 10, "PMIX_CONNECTNB_CMD";
    /// Disconnect.
    DisconnectNb = 11, "PMIX_DISCONNECTNB_CMD";
    /// Event notification.
    Notify = 12, "PMIX_NOTIFY_CMD";
    /// Event registration.
    RegEvents = 13, "PMIX_REGEVENTS_CMD";
    /// Event deregistration.
    DeregEvents = 14, "PMIX_DEREGEVENTS_CMD";
    /// Query.
    Query = 15, "PMIX_QUERY_CMD";
    /// Log.
    Log = 16, "PMIX_LOG_CMD";
    /// Allocation request.
    Alloc = 17, "PMIX_ALLOC_CMD";
    /// Job control.
    JobControl = 18, "PMIX_JOB_CONTROL_CMD";
    /// Process monitoring.
    Monitor = 19, "PMIX_MONITOR_CMD";
    /// Get a credential.
    GetCredential = 20, "PMIX_GET_CREDENTIAL_CMD";
    /// Validate a credential.
    ValidateCred = 21, "PMIX_VALIDATE_CRED_CMD";
    /// IOF pull.
    IofPull = 22, "PMIX_IOF_PULL_CMD";
    /// IOF push.
    IofPush = 23, "PMIX_IOF_PUSH_CMD";
    /// Group construct.
    GroupConstruct = 24, "PMIX_GROUP_CONSTRUCT_CMD";
    /// Group join.
    GroupJoin = 25, "PMIX_GROUP_JOIN_CMD";
    /// Group invite.
    GroupInvite = 26, "PMIX_GROUP_INVITE_CMD";
    /// Group leave.
    GroupLeave = 27, "PMIX_GROUP_LEAVE_CMD";
    /// Group destruct.
    GroupDestruct = 28, "PMIX_GROUP_DESTRUCT_CMD";
    /// IOF deregistration.
    IofDereg = 29, "PMIX_IOF_DEREG_CMD";
    /// Fabric registration.
    FabricRegister = 30, "PMIX_FABRIC_REGISTER_CMD";
    /// Fabric update.
    FabricUpdate = 31, "PMIX_FABRIC_UPDATE_CMD";
    /// Device distances.
    ComputeDeviceDistances = 32, "PMIX_COMPUTE_DEVICE_DISTANCES_CMD";
    /// Cache refresh (master).
    RefreshCache = 33, "PMIX_REFRESH_CACHE";
    /// Resource block (master).
    ResBlk = 34, "PMIX_RESBLK_CMD";
    /// Session control (master).
    SessionCtrl = 35, "PMIX_SESSION_CTRL_CMD";
    /// System info request (master).
    ReqSysinfo = 36, "PMIX_REQ_SYSINFO_CMD";
    /// Resolve peers (5.0).
    ResolvePeers = 37, "PMIX_RESOLVE_PEERS_CMD";
    /// Resolve node (5.0).
    ResolveNode = 38, "PMIX_RESOLVE_NODE_CMD";
    /// Switch of gds module (master).
    GdsFallback = 39, "PMIX_GDS_FALLBACK_CMD";
}

impl Command {
    /// The first OpenPMIx series that sends this command (4 for those of
    /// 4.2.2, 5 for 5.0's additions, 6 for master's).
    pub fn since_major(self) -> u8 {
        match self as u8 {
            0..=32 => 4,
            37 | 38 => 5,
            _ => 6,
        }
    }
}

impl From<Command> for u8 {
    fn from(c: Command) -> u8 {
        c as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_maps_to_its_command_or_an_error() {
        for b in 0..=u8::MAX {
            match Command::try_from(b) {
                Ok(c) => assert_eq!(u8::from(c), b),
                Err(e) => {
                    assert!(b > 39);
                    assert_eq!(e.status(), crate::Status::ERR_NOT_SUPPORTED);
                }
            }
        }
        assert_eq!(Command::ALL.len(), 40);
        assert_eq!(Command::GetNb.c_name(), "PMIX_GETNB_CMD");
        assert_eq!(Command::ResolveNode.since_major(), 5);
    }
}
