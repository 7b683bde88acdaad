//! A monitoring request as the server reads it: which kind the `monitor`
//! info asks for ([`Kind`]), and, for a monitor the library runs itself,
//! the directives it honours ([`Spec`]).
//!
//! What is honoured (the standard's attributes, with OpenPMIx's sensors'
//! reading of them):
//! - `PMIX_MONITOR_HEARTBEAT`: `PMIX_MONITOR_HEARTBEAT_TIME` (seconds per
//!   window, required, not 0) and `PMIX_MONITOR_HEARTBEAT_DROPS` (empty
//!   windows tolerated before the alert, default 0);
//! - `PMIX_MONITOR_FILE` (the path, a string): `PMIX_MONITOR_FILE_SIZE`,
//!   `_ACCESS`, `_MODIFY` (what counts as a sign of life, at least one;
//!   the standard types the last two as strings: any value but a false
//!   bool turns them on), `PMIX_MONITOR_FILE_CHECK_TIME` (seconds between
//!   checks, required, not 0) and `PMIX_MONITOR_FILE_DROPS` (unchanged
//!   checks tolerated, default 0);
//! - both: `PMIX_MONITOR_ID` (a string: the name a cancel gives),
//!   `PMIX_RANGE` (the alert's range, default `PMIX_RANGE_NAMESPACE`) and
//!   `PMIX_MONITOR_APP_CONTROL` (accepted: the library only raises the
//!   event, it never acts on the process).
//!
//! Invariant: a request is taken whole or refused with a
//! [`MonitorError`]: a monitoring directive (`pmix.monitor.*`) the kind
//! does not use, or a value of the wrong type, is refused rather than
//! ignored; other directives (a host's `PMIX_USERID`, ...) are not ours
//! to judge and are passed over.

use std::path::PathBuf;
use std::time::Duration;

use crate::events::Range;
use crate::info::ValueView;
use crate::server::clients::connections::Caller;
use crate::{keys, Info, Proc, Status, Value};

/// A `PMIx_Process_monitor` request of a process, kept whole while the
/// host decides whether it serves it.
#[derive(Clone, Debug)]
pub(in crate::server) struct Asked {
    /// Who waits for the answer.
    pub(in crate::server) caller: Caller,
    /// The requester: the process a monitor watches.
    pub(in crate::server) proc: Proc,
    /// What is asked (`PMIX_MONITOR_HEARTBEAT`, `PMIX_MONITOR_FILE`, ...).
    pub(in crate::server) monitor: Info,
    /// The code to raise when the monitor trips.
    pub(in crate::server) error: Status,
    /// How.
    pub(in crate::server) directives: Vec<Info>,
}

/// What the `monitor` info asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::server) enum Kind {
    /// `PMIX_SEND_HEARTBEAT`: the requester beats.
    Beat,
    /// `PMIX_MONITOR_CANCEL`: end the requester's monitor of that id
    /// (`None`, a NULL string: all of them).
    Cancel(Option<String>),
    /// `PMIX_MONITOR_HEARTBEAT` or `PMIX_MONITOR_FILE`: a monitor the
    /// library can run (read by [`Spec::read`]).
    Sensor,
    /// Anything else: only a host can serve it.
    Other,
}

/// Why a request is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::server) enum MonitorError {
    /// No period, or a period of 0 seconds.
    NoPeriod,
    /// A file monitor without a path.
    NoFile,
    /// A file monitor watching neither size, access nor modification.
    NothingWatched,
    /// A directive (named) whose value has the wrong type.
    BadValue(&'static str),
    /// A monitoring directive this kind of monitor does not use.
    NotForThisKind,
    /// A kind of monitor the library does not run.
    Unsupported,
}

impl MonitorError {
    /// The status the requester gets.
    pub(in crate::server) fn status(self) -> Status {
        match self {
            MonitorError::Unsupported => Status::ERR_NOT_SUPPORTED,
            _ => Status::ERR_BAD_PARAM,
        }
    }
}

/// A monitor the library runs, as asked.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::server) struct Spec {
    /// `PMIX_MONITOR_ID`.
    pub(in crate::server) name: Option<String>,
    /// The code of the alert: the requester's `error`, or the standard's
    /// alert of the kind when it gave `PMIX_SUCCESS`.
    pub(in crate::server) alert: Status,
    /// The alert's range.
    pub(in crate::server) range: Range,
    /// How often the monitor looks.
    pub(in crate::server) period: Duration,
    /// Looks without a sign of life tolerated before the alert.
    pub(in crate::server) drops: u32,
    /// What it watches.
    pub(in crate::server) watch: Watch,
}

/// What a monitor watches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::server) enum Watch {
    /// The requester's beats.
    Heartbeat,
    /// A file's size, access or modification time.
    File { path: PathBuf, aspects: Aspects },
}

/// Which of a file's attributes count as signs of life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::server) struct Aspects {
    pub(in crate::server) size: bool,
    pub(in crate::server) access: bool,
    pub(in crate::server) modify: bool,
}

/// The kind of request `monitor` is.
pub(in crate::server) fn classify(monitor: &Info) -> Result<Kind, MonitorError> {
    let key = monitor.key.as_bytes();
    let is = |k: &str| key == k.as_bytes();
    // attrs begin: PMIx_Process_monitor PMIx_Process_monitor_nb
    let kind = if is(keys::SEND_HEARTBEAT) {
        Kind::Beat
    } else if is(keys::MONITOR_CANCEL) {
        match &monitor.value {
            Value::String(s) => Kind::Cancel(
                s.as_ref()
                    .map(|s| s.to_string_lossy().into_owned())
                    .filter(|s| !s.is_empty()),
            ),
            Value::Undef => Kind::Cancel(None),
            _ => return Err(MonitorError::BadValue(keys::MONITOR_CANCEL)),
        }
    } else if is(keys::MONITOR_HEARTBEAT) || is(keys::MONITOR_FILE) {
        Kind::Sensor
    } else {
        Kind::Other
    };
    // attrs end
    Ok(kind)
}

impl Spec {
    /// The monitor `monitor` (`PMIX_MONITOR_HEARTBEAT` or
    /// `PMIX_MONITOR_FILE`) asks for under `directives`, raising `error`.
    pub(in crate::server) fn read(
        monitor: &Info,
        error: Status,
        directives: &[Info],
    ) -> Result<Spec, MonitorError> {
        let heartbeat = monitor.key.as_bytes() == keys::MONITOR_HEARTBEAT.as_bytes();
        let file = monitor.key.as_bytes() == keys::MONITOR_FILE.as_bytes();
        if !heartbeat && !file {
            return Err(MonitorError::Unsupported);
        }
        let mut spec = Spec {
            name: None,
            alert: if error != Status::SUCCESS {
                error
            } else if heartbeat {
                crate::events::codes::MONITOR_HEARTBEAT_ALERT
            } else {
                crate::events::codes::MONITOR_FILE_ALERT
            },
            range: Range::NAMESPACE,
            period: Duration::ZERO,
            drops: 0,
            watch: Watch::Heartbeat,
        };
        let mut aspects = Aspects::default();
        // attrs begin: PMIx_Process_monitor PMIx_Process_monitor_nb
        let (period_key, drops_key) = if heartbeat {
            (keys::MONITOR_HEARTBEAT_TIME, keys::MONITOR_HEARTBEAT_DROPS)
        } else {
            (keys::MONITOR_FILE_CHECK_TIME, keys::MONITOR_FILE_DROPS)
        };
        let file_aspects = [
            keys::MONITOR_FILE_SIZE,
            keys::MONITOR_FILE_ACCESS,
            keys::MONITOR_FILE_MODIFY,
        ];
        for d in directives {
            let k = d.key.as_bytes();
            let is = |name: &str| k == name.as_bytes();
            if is(period_key) {
                spec.period = Duration::from_secs(seconds(d, period_key)?.into());
            } else if is(drops_key) {
                spec.drops = seconds(d, drops_key)?;
            } else if is(keys::MONITOR_ID) {
                let name = d
                    .value
                    .as_str()
                    .ok_or(MonitorError::BadValue(keys::MONITOR_ID))?;
                // A monitor named twice keeps its first name (OpenPMIx).
                spec.name.get_or_insert_with(|| name.to_owned());
            } else if is(keys::RANGE) {
                spec.range = match d.value {
                    Value::DataRange(r) if Range(r).is_valid() => Range(r),
                    _ => return Err(MonitorError::BadValue(keys::RANGE)),
                };
            } else if is(keys::MONITOR_APP_CONTROL) {
                // Nothing to hold back: the library never acts on the
                // process, it only raises the event.
            } else if file && file_aspects.iter().any(|a| is(a)) {
                // The standard types _ACCESS and _MODIFY as strings: any
                // value but a false bool asks for the aspect.
                let on = !matches!(d.value, Value::Bool(false));
                if is(keys::MONITOR_FILE_SIZE) {
                    aspects.size = on;
                } else if is(keys::MONITOR_FILE_ACCESS) {
                    aspects.access = on;
                } else {
                    aspects.modify = on;
                }
            } else if k.starts_with(b"pmix.monitor.") {
                return Err(MonitorError::NotForThisKind);
            }
        }
        // attrs end
        if spec.period.is_zero() {
            return Err(MonitorError::NoPeriod);
        }
        if file {
            let path = monitor
                .value
                .as_str()
                .filter(|p| !p.is_empty())
                .ok_or(MonitorError::NoFile)?;
            if aspects == Aspects::default() {
                return Err(MonitorError::NothingWatched);
            }
            spec.watch = Watch::File {
                path: PathBuf::from(path),
                aspects,
            };
        }
        Ok(spec)
    }
}

/// A count or a number of seconds: any integer type whose value fits a
/// `uint32_t`.
fn seconds(d: &Info, key: &'static str) -> Result<u32, MonitorError> {
    ValueView::of(&d.value)
        .int()
        .and_then(|x| u32::try_from(x).ok())
        .ok_or(MonitorError::BadValue(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(k: &str, v: Value) -> Info {
        Info::keyed(k, v).unwrap()
    }

    fn beat_monitor() -> Info {
        info(keys::MONITOR_HEARTBEAT, Value::Undef)
    }

    #[test]
    fn a_heartbeat_monitor_needs_a_period_and_defaults_to_the_standard_alert() {
        let dirs = [info(keys::MONITOR_HEARTBEAT_TIME, Value::Uint32(2))];
        let s = Spec::read(&beat_monitor(), Status::SUCCESS, &dirs).unwrap();
        assert_eq!(s.period, Duration::from_secs(2));
        assert_eq!(s.alert, crate::events::codes::MONITOR_HEARTBEAT_ALERT);
        assert_eq!(s.range, Range::NAMESPACE);
        assert_eq!(s.watch, Watch::Heartbeat);
        let own = Spec::read(&beat_monitor(), Status(-5000), &dirs).unwrap();
        assert_eq!(own.alert, Status(-5000));
        let zero = [info(keys::MONITOR_HEARTBEAT_TIME, Value::Uint32(0))];
        for bad in [&zero[..], &[]] {
            assert_eq!(
                Spec::read(&beat_monitor(), Status::SUCCESS, bad),
                Err(MonitorError::NoPeriod)
            );
        }
    }

    #[test]
    fn wrong_types_and_directives_of_the_other_kind_are_refused() {
        let cases = [
            info(keys::MONITOR_HEARTBEAT_TIME, Value::string("2")),
            info(keys::MONITOR_ID, Value::Uint32(1)),
            info(keys::RANGE, Value::DataRange(99)),
            info(keys::MONITOR_FILE_CHECK_TIME, Value::Uint32(1)),
        ];
        for c in cases {
            let dirs = [info(keys::MONITOR_HEARTBEAT_TIME, Value::Uint32(1)), c];
            let e = Spec::read(&beat_monitor(), Status::SUCCESS, &dirs).unwrap_err();
            assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{dirs:?}");
        }
    }

    #[test]
    fn a_file_monitor_needs_a_path_a_period_and_something_to_watch() {
        let file = info(keys::MONITOR_FILE, Value::string("/tmp/x"));
        let period = info(keys::MONITOR_FILE_CHECK_TIME, Value::Uint32(1));
        let size = info(keys::MONITOR_FILE_SIZE, Value::Bool(true));
        let s = Spec::read(&file, Status::SUCCESS, &[period.clone(), size.clone()]).unwrap();
        assert_eq!(s.alert, crate::events::codes::MONITOR_FILE_ALERT);
        let Watch::File { path, aspects } = s.watch else {
            panic!("a file monitor");
        };
        assert_eq!(path, PathBuf::from("/tmp/x"));
        assert!(aspects.size && !aspects.access && !aspects.modify);
        assert_eq!(
            Spec::read(&file, Status::SUCCESS, std::slice::from_ref(&period)),
            Err(MonitorError::NothingWatched)
        );
        let nameless = info(keys::MONITOR_FILE, Value::String(None));
        assert_eq!(
            Spec::read(&nameless, Status::SUCCESS, &[period, size]),
            Err(MonitorError::NoFile)
        );
    }

    #[test]
    fn requests_are_told_apart_by_their_key() {
        let k = |i: Info| classify(&i).unwrap();
        assert_eq!(k(info(keys::SEND_HEARTBEAT, Value::Undef)), Kind::Beat);
        assert_eq!(
            k(info(keys::MONITOR_CANCEL, Value::string("a"))),
            Kind::Cancel(Some("a".into()))
        );
        assert_eq!(
            k(info(keys::MONITOR_CANCEL, Value::String(None))),
            Kind::Cancel(None)
        );
        assert_eq!(k(beat_monitor()), Kind::Sensor);
        assert_eq!(k(info("pmix.monitor.other", Value::Undef)), Kind::Other);
        assert!(classify(&info(keys::MONITOR_CANCEL, Value::Uint32(3))).is_err());
    }
}
