//! The server's own log channels: `PMIX_LOG_STDERR`, `PMIX_LOG_STDOUT`
//! and the syslog channels, written by this process ([`log_locally`]),
//! and the reading of a log request's source, timestamp and text that a
//! host serving `log` needs too ([`log_source`], [`log_timestamp`],
//! [`log_text`]).
//!
//! Invariant: a message goes to each channel asked for at most once
//! (`PMIX_LOG_ONCE`: to the first that takes it); the result says how
//! many took it (`PMIX_ERR_NOT_SUPPORTED` none, `PMIX_ERR_PARTIAL_SUCCESS`
//! some).

use std::ffi::CString;
use std::io::Write;

use crate::info::value_of;
use crate::{keys, Info, Proc, Status, Value};

// attrs begin: PMIx_Log PMIx_Log_nb
/// `PMIX_LOG_ONCE`: the first channel that takes the message ends it.
const LOG_ONCE: &str = keys::LOG_ONCE;
/// `PMIX_LOG_SYSLOG_PRI`.
const LOG_SYSLOG_PRI: &str = keys::LOG_SYSLOG_PRI;
/// `PMIX_LOG_TIMESTAMP`.
const LOG_TIMESTAMP: &str = keys::LOG_TIMESTAMP;
/// `PMIX_LOG_GENERATE_TIMESTAMP`.
const LOG_GENERATE_TIMESTAMP: &str = keys::LOG_GENERATE_TIMESTAMP;
/// `PMIX_LOG_TIMESTAMP_OUTPUT`.
const LOG_TIMESTAMP_OUTPUT: &str = keys::LOG_TIMESTAMP_OUTPUT;
/// `PMIX_LOG_TAG_OUTPUT`.
const LOG_TAG_OUTPUT: &str = keys::LOG_TAG_OUTPUT;
/// `PMIX_LOG_SOURCE`.
pub const LOG_SOURCE: &str = keys::LOG_SOURCE;
/// `PMIX_LOG_STDERR`.
pub const LOG_STDERR: &str = keys::LOG_STDERR;
/// `PMIX_LOG_STDOUT`.
pub const LOG_STDOUT: &str = keys::LOG_STDOUT;
/// `PMIX_LOG_SYSLOG`, `PMIX_LOG_LOCAL_SYSLOG`, `PMIX_LOG_GLOBAL_SYSLOG`.
const LOG_SYSLOGS: [&str; 3] = [
    keys::LOG_SYSLOG,
    keys::LOG_LOCAL_SYSLOG,
    keys::LOG_GLOBAL_SYSLOG,
];
// attrs end

fn flag(infos: &[Info], key: &str) -> bool {
    match value_of(infos, key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Undef) => true,
        _ => false,
    }
}

/// The source a log request names (`PMIX_LOG_SOURCE`), else `requester`.
pub fn log_source(requester: &Proc, directives: &[Info]) -> Proc {
    match value_of(directives, LOG_SOURCE) {
        Some(Value::Proc(p)) => p.clone(),
        _ => requester.clone(),
    }
}

/// The timestamp a log request asks for (`PMIX_LOG_TIMESTAMP`, or now
/// under `PMIX_LOG_GENERATE_TIMESTAMP`), in seconds since the epoch.
pub fn log_timestamp(directives: &[Info]) -> Option<i64> {
    match value_of(directives, LOG_TIMESTAMP) {
        Some(Value::Time(t)) | Some(Value::Int64(t)) => return Some(*t),
        Some(Value::Uint64(t)) => return i64::try_from(*t).ok(),
        _ => {}
    }
    if flag(directives, LOG_GENERATE_TIMESTAMP) {
        return std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_secs()).ok());
    }
    None
}

/// The text of a logged datum: a string, or a byte object read as text.
pub fn log_text(v: &Value) -> Option<String> {
    match v {
        Value::String(Some(s)) => Some(s.to_string_lossy().into_owned()),
        Value::ByteObject(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// How [`log_locally`] writes a line to a standard stream.
fn stream_line(prefix: &str, channel: &str, tag: bool, stamp: Option<i64>, text: &str) -> String {
    let mut line = String::new();
    if let Some(t) = stamp {
        line.push_str(&format!("[{t}] "));
    }
    if tag {
        line.push_str(channel);
        line.push_str(": ");
    }
    line.push_str(prefix);
    line.push_str(text.trim_end_matches('\n'));
    line.push('\n');
    line
}

/// Logs `data` the way a server without a logging host does: to this
/// process's stderr (`PMIX_LOG_STDERR`), stdout (`PMIX_LOG_STDOUT`) or
/// syslog (`PMIX_LOG_SYSLOG`, at `PMIX_LOG_SYSLOG_PRI`, default
/// `LOG_ERR`), each line prefixed with `prefix`. Honours `PMIX_LOG_ONCE`
/// (only the first channel that succeeds), `PMIX_LOG_TAG_OUTPUT` and the
/// timestamp directives. `PMIX_ERR_NOT_SUPPORTED` if no datum names a
/// channel it knows, `PMIX_ERR_PARTIAL_SUCCESS` if some do not.
pub fn log_locally(prefix: &str, data: &[Info], directives: &[Info]) -> Result<(), Status> {
    let once = flag(directives, LOG_ONCE) || flag(data, LOG_ONCE);
    let tag = flag(directives, LOG_TAG_OUTPUT);
    let stamp = if flag(directives, LOG_TIMESTAMP_OUTPUT)
        || value_of(directives, LOG_TIMESTAMP).is_some()
    {
        log_timestamp(directives)
    } else {
        None
    };
    let pri = match value_of(directives, LOG_SYSLOG_PRI) {
        Some(Value::Int(p)) | Some(Value::Int32(p)) => *p,
        _ => libc::LOG_ERR,
    };
    let (mut done, mut skipped) = (0usize, 0usize);
    for d in data {
        let key = d.key.as_c_str().to_bytes();
        if key == LOG_ONCE.as_bytes() {
            continue;
        }
        let Some(text) = log_text(&d.value) else {
            skipped += 1;
            continue;
        };
        let ok = if key == LOG_STDERR.as_bytes() {
            let line = stream_line(prefix, "stderr", tag, stamp, &text);
            std::io::stderr().write_all(line.as_bytes()).is_ok()
        } else if key == LOG_STDOUT.as_bytes() {
            let line = stream_line(prefix, "stdout", tag, stamp, &text);
            let mut out = std::io::stdout().lock();
            out.write_all(line.as_bytes()).is_ok() && out.flush().is_ok()
        } else if LOG_SYSLOGS.iter().any(|s| s.as_bytes() == key) {
            syslog(pri, &format!("{prefix}{text}"))
        } else {
            false
        };
        if ok {
            done += 1;
            if once {
                return Ok(());
            }
        } else {
            skipped += 1;
        }
    }
    match (done, skipped) {
        (0, _) => Err(Status::ERR_NOT_SUPPORTED),
        (_, 0) => Ok(()),
        _ => Err(Status::ERR_PARTIAL_SUCCESS),
    }
}

fn syslog(pri: i32, msg: &str) -> bool {
    let Ok(m) = CString::new(msg.replace('\0', " ")) else {
        return false;
    };
    crate::sys::syslog(pri, &m);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    #[test]
    fn unknown_channels_are_not_supported() {
        let d = vec![Info::new(
            Key::new("pmix.log.email").unwrap(),
            Value::string("x"),
        )];
        assert_eq!(log_locally("", &d, &[]), Err(Status::ERR_NOT_SUPPORTED));
    }

    #[test]
    fn stream_lines_carry_tag_and_timestamp() {
        assert_eq!(
            stream_line("[j:1] ", "stderr", true, Some(5), "hi\n"),
            "[5] stderr: [j:1] hi\n"
        );
    }
}
