//! The layouts of OpenPMIx's resource-control commands and of their
//! replies (read from its `src/common/pmix_control.c`, `pmix_alloc.c`,
//! 4.2.2's `pmix_query.c`, and 6.0's `pmix_session.c`): one description
//! for our server's door, which reads them, and our client's link, which
//! writes them.
//!
//! | command | fields (after the command) |
//! |---|---|
//! | `PMIX_JOB_CONTROL_CMD` | count, target `PROC`s, count, directive `INFO`s |
//! | `PMIX_MONITOR_CMD` | what to monitor (one `INFO`, no count), the error to raise (`STATUS`), count, directives |
//! | `PMIX_ALLOC_CMD` | the `ALLOC_DIRECTIVE`, count, `INFO`s |
//! | `PMIX_SESSION_CTRL_CMD` (6.0 on) | the session id `UINT32`, count, directives |
//!
//! Every reply is the status, then (on success or
//! `PMIX_ERR_PARTIAL_SUCCESS` only) a count and the result infos; a reply
//! that ends after a successful status has no results (OpenPMIx's client
//! reads it so).
//!
//! Invariant: decoding believes a count only up to the bytes left (see
//! [`super::fields`]).

use crate::codec::{Buffer, CodecError, Format};
use crate::{DataType, Info, Proc, Status, Value};

use super::fields::{infos, one, pack_infos, pack_procs, procs};
use super::Command;

/// One of the control requests, its fields decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Control {
    /// `PMIx_Job_control`.
    JobControl {
        targets: Vec<Proc>,
        directives: Vec<Info>,
    },
    /// `PMIx_Process_monitor`.
    Monitor {
        what: Info,
        error: Status,
        directives: Vec<Info>,
    },
    /// `PMIx_Allocation_request`.
    Allocate { directive: u8, infos: Vec<Info> },
    /// `PMIx_Session_control`.
    SessionControl { session: u32, directives: Vec<Info> },
}

impl Control {
    /// The command that carries this request.
    pub fn command(&self) -> Command {
        match self {
            Control::JobControl { .. } => Command::JobControl,
            Control::Monitor { .. } => Command::Monitor,
            Control::Allocate { .. } => Command::Alloc,
            Control::SessionControl { .. } => Command::SessionCtrl,
        }
    }

    /// The request as `fmt` packs it: the command, then the fields.
    pub fn pack(&self, fmt: Format) -> Result<Vec<u8>, CodecError> {
        let mut b = Buffer::new();
        fmt.pack_value(&mut b, &Value::Command(self.command().into()))?;
        match self {
            Control::JobControl {
                targets,
                directives,
            } => {
                pack_procs(fmt, &mut b, targets)?;
                pack_infos(fmt, &mut b, directives)?;
            }
            Control::Monitor {
                what,
                error,
                directives,
            } => {
                fmt.pack_value(&mut b, &Value::Info(Box::new(what.clone())))?;
                fmt.pack_value(&mut b, &Value::Status(error.0))?;
                pack_infos(fmt, &mut b, directives)?;
            }
            Control::Allocate { directive, infos } => {
                fmt.pack_value(&mut b, &Value::AllocDirective(*directive))?;
                pack_infos(fmt, &mut b, infos)?;
            }
            Control::SessionControl {
                session,
                directives,
            } => {
                fmt.pack_value(&mut b, &Value::Uint32(*session))?;
                pack_infos(fmt, &mut b, directives)?;
            }
        }
        Ok(b.into_bytes())
    }

    /// The fields of `cmd` (read already) from `buf`; `None` if `cmd` is
    /// not a control command.
    pub fn unpack(
        cmd: Command,
        fmt: Format,
        buf: &mut Buffer,
    ) -> Option<Result<Control, CodecError>> {
        let read = |buf: &mut Buffer| -> Result<Control, CodecError> {
            Ok(match cmd {
                Command::JobControl => Control::JobControl {
                    targets: procs(fmt, buf)?,
                    directives: infos(fmt, buf)?,
                },
                Command::Monitor => {
                    let Value::Info(what) = one(fmt, buf, DataType::Info)? else {
                        return Err(CodecError::BadParam("monitor"));
                    };
                    let Value::Status(error) = one(fmt, buf, DataType::Status)? else {
                        return Err(CodecError::BadParam("error"));
                    };
                    Control::Monitor {
                        what: *what,
                        error: Status(error),
                        directives: infos(fmt, buf)?,
                    }
                }
                Command::Alloc => {
                    let Value::AllocDirective(directive) = one(fmt, buf, DataType::AllocDirective)?
                    else {
                        return Err(CodecError::BadParam("directive"));
                    };
                    Control::Allocate {
                        directive,
                        infos: infos(fmt, buf)?,
                    }
                }
                _ => {
                    let Value::Uint32(session) = one(fmt, buf, DataType::Uint32)? else {
                        return Err(CodecError::BadParam("session"));
                    };
                    Control::SessionControl {
                        session,
                        directives: infos(fmt, buf)?,
                    }
                }
            })
        };
        matches!(
            cmd,
            Command::JobControl | Command::Monitor | Command::Alloc | Command::SessionCtrl
        )
        .then(|| read(buf))
    }
}

/// True if a reply with `status` goes on with the results.
pub fn carries_results(status: Status) -> bool {
    status == Status::SUCCESS || status == Status::ERR_PARTIAL_SUCCESS
}

/// A reply: `status`, then (if it [`carries_results`]) the results.
pub fn pack_results(
    fmt: Format,
    status: Status,
    results: Vec<Info>,
) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(status.0))?;
    if carries_results(status) {
        pack_infos(fmt, &mut b, &results)?;
    }
    Ok(b.into_bytes())
}

/// The results after a reply's `status` (read already): none if the
/// status does not carry them or the reply ends there.
pub fn unpack_results(
    fmt: Format,
    status: Status,
    b: &mut Buffer,
) -> Result<Vec<Info>, CodecError> {
    if !carries_results(status) || b.remaining() == 0 {
        return Ok(Vec::new());
    }
    infos(fmt, b)
}
