//! `pmix_status_t` as a Rust type.
//!
//! A [`Status`] is the integer PMIx uses for both results and event codes;
//! [`Status::SUCCESS`] is zero, errors are negative. Fallible functions in
//! this crate return [`Result<T>`], whose error side is a non-success
//! `Status`, so the C edge maps them without a table.

use std::fmt;

/// A PMIx status code (`pmix_status_t`). Conversions to and from `i32` are
/// lossless: codes this crate has no name for are carried as they are.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Status(pub i32);

/// Result of a PMIx operation: `Err` holds a non-success [`Status`].
pub type Result<T> = std::result::Result<T, Status>;

impl Status {
    pub const SUCCESS: Status = Status(0);
    pub const ERROR: Status = Status(-1);
    pub const ERR_EXISTS: Status = Status(-11);
    pub const ERR_INVALID_CRED: Status = Status(-12);
    pub const ERR_WOULD_BLOCK: Status = Status(-15);
    pub const ERR_UNKNOWN_DATA_TYPE: Status = Status(-16);
    pub const ERR_TYPE_MISMATCH: Status = Status(-18);
    pub const ERR_UNPACK_INADEQUATE_SPACE: Status = Status(-19);
    pub const ERR_UNPACK_FAILURE: Status = Status(-20);
    pub const ERR_PACK_FAILURE: Status = Status(-21);
    pub const ERR_NO_PERMISSIONS: Status = Status(-23);
    pub const ERR_TIMEOUT: Status = Status(-24);
    pub const ERR_UNREACH: Status = Status(-25);
    pub const ERR_BAD_PARAM: Status = Status(-27);
    pub const ERR_RESOURCE_BUSY: Status = Status(-28);
    pub const ERR_OUT_OF_RESOURCE: Status = Status(-29);
    pub const ERR_INIT: Status = Status(-31);
    pub const ERR_NOMEM: Status = Status(-32);
    pub const ERR_NOT_FOUND: Status = Status(-46);
    pub const ERR_NOT_SUPPORTED: Status = Status(-47);
    pub const ERR_COMM_FAILURE: Status = Status(-49);
    pub const ERR_UNPACK_READ_PAST_END_OF_BUFFER: Status = Status(-50);
    pub const ERR_PARTIAL_SUCCESS: Status = Status(-52);
    pub const ERR_DUPLICATE_KEY: Status = Status(-53);
    pub const ERR_PARAM_VALUE_NOT_SUPPORTED: Status = Status(-59);
    pub const ERR_EMPTY: Status = Status(-60);
    pub const ERR_LOST_CONNECTION: Status = Status(-61);
    pub const ERR_NOT_AVAILABLE: Status = Status(-64);
    /// `PMIX_EVENT_JOB_END`: a job's processes have all ended.
    pub const EVENT_JOB_END: Status = Status(-145);
    /// `PMIX_MODEL_DECLARED`: a programming model declared itself at
    /// init (see `Client::declare_model`).
    pub const MODEL_DECLARED: Status = Status(-147);
    pub const OPERATION_SUCCEEDED: Status = Status(-157);
    pub const ERR_INVALID_OPERATION: Status = Status(-158);
    /// `PMIX_ERR_JOB_FAILED_TO_LAUNCH`.
    pub const ERR_JOB_FAILED_TO_LAUNCH: Status = Status(-181);
    /// `PMIX_ERR_EXE_NOT_ACCESSIBLE`.
    pub const ERR_EXE_NOT_ACCESSIBLE: Status = Status(-73);
    /// `PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE`.
    pub const ERR_JOB_WDIR_NOT_ACCESSIBLE: Status = Status(-74);
    /// `PMIX_ERR_JOB_EXE_NOT_FOUND`.
    pub const ERR_JOB_EXE_NOT_FOUND: Status = Status(-190);

    /// The raw `pmix_status_t`.
    pub const fn code(self) -> i32 {
        self.0
    }

    /// True for [`Status::SUCCESS`].
    pub const fn is_success(self) -> bool {
        self.0 == 0
    }

    /// `Ok(())` for success, `Err(self)` otherwise.
    pub fn into_result(self) -> Result<()> {
        if self.is_success() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl From<i32> for Status {
    fn from(code: i32) -> Self {
        Status(code)
    }
}

impl From<Status> for i32 {
    fn from(s: Status) -> i32 {
        s.0
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Status({})", self.0)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PMIx status {}", self.0)
    }
}

impl std::error::Error for Status {}
