//! `PMIx_server_setup_application` and `PMIx_server_setup_local_support`:
//! the application-specific setup a launcher asks for once per job (on
//! the node that launches it) and hands to every node's server before
//! their processes are forked.
//!
//! What this library contributes (it has no fabric plugins, so there are
//! no fabric allocations, security keys or network resources to give):
//!
//! - `PMIX_SETUP_APP_ENVARS` (or `PMIX_SETUP_APP_ALL`): the launcher's
//!   environment variables that configure PMIx and the programming model,
//!   harvested as OpenPMIx 4.2 does (its `pmdl` framework): every
//!   `PMIX_MCA_*` variable, plus, when `PMIX_PROGRAMMING_MODEL` or
//!   `PMIX_PERSONALITY` names one, that model's variables (`ompi`:
//!   `OMPI_MCA_*`; `mpich`: `MPICH_*` and `MPIR_CVAR_*`; `oshmem`:
//!   `OSHMEM_*` and `SHMEM_*`). Each becomes a `PMIX_SET_ENVAR` info
//!   (`pmix_envar_t` with separator `:`), in name order.
//! - `PMIX_SETUP_APP_NONENVARS`: nothing (no fabric support).
//! - `PMIX_SET_ENVAR`, `PMIX_UNSET_ENVAR`, `PMIX_PREPEND_ENVAR` and
//!   `PMIX_APPEND_ENVAR` given by the caller are passed through, after the
//!   harvested ones, so that a launcher can add its own.
//!
//! `setup_local_support(nspace, infos)` keeps the environment directives
//! among `infos` for the namespace (replacing earlier ones), and every
//! later `setup_fork` of a process of that namespace applies them, in
//! order, after the variables PMIx itself sets: `SET` overwrites,
//! `UNSET` removes, `PREPEND`/`APPEND` join the value before/after the
//! current one with the separator (or set it when the variable is unset;
//! a value already among the separated elements is not added again, so
//! that calling `setup_fork` twice on one environment changes nothing).
//! Other infos are ignored. Deregistering the namespace forgets them.
//!
//! Invariant: applying the same edits twice to one environment changes
//! nothing the second time (a separated element is never added twice).

use crate::{keys, Info, Key, Status, Value};

/// One environment directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvEdit {
    /// `PMIX_SET_ENVAR`: set, overwriting.
    Set {
        /// Variable name.
        name: String,
        /// Its value.
        value: String,
    },
    /// `PMIX_UNSET_ENVAR`: remove.
    Unset(String),
    /// `PMIX_PREPEND_ENVAR`: `value<sep>current`.
    Prepend {
        /// Variable name.
        name: String,
        /// What to put in front.
        value: String,
        /// Separator.
        sep: char,
    },
    /// `PMIX_APPEND_ENVAR`: `current<sep>value`.
    Append {
        /// Variable name.
        name: String,
        /// What to put behind.
        value: String,
        /// Separator.
        sep: char,
    },
}

/// One change to make to a child's environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvChange {
    /// Set `name` to `value` (overwriting).
    Set(String, String),
    /// Remove `name`.
    Unset(String),
}

/// Variable-name prefixes harvested for a programming model (lowercase
/// match on the start of `PMIX_PROGRAMMING_MODEL`/`PMIX_PERSONALITY`).
const MODEL_PREFIXES: [(&str, &[&str]); 3] = [
    ("ompi", &["OMPI_MCA_"]),
    ("mpich", &["MPICH_", "MPIR_CVAR_"]),
    ("oshmem", &["OSHMEM_", "SHMEM_"]),
];

/// Prefixes harvested whatever the model.
const PMIX_PREFIXES: [&str; 1] = ["PMIX_MCA_"];

fn flag(v: &Value) -> bool {
    crate::wire::flag(v)
}

fn key_is(i: &Info, k: &str) -> bool {
    i.key.as_bytes() == k.as_bytes()
}

fn envar(name: &str, value: &str, sep: u8) -> Result<Value, Status> {
    let c = |s: &str| std::ffi::CString::new(s).map_err(|_| Status::ERR_BAD_PARAM);
    Ok(Value::Envar(crate::value::Envar {
        envar: Some(c(name)?),
        value: Some(c(value)?),
        separator: sep,
    }))
}

fn info(key: &str, value: Value) -> Info {
    Info::new(Key::new(key).expect("a reserved key fits"), value)
}

/// `PMIx_server_setup_application` for job `nspace`: the infos
/// [`setup_application`] returns for `infos` from this process's
/// environment. It needs no running server: a launcher tool asks for it
/// too (OpenPMIx serves it in any initialized process), with the same
/// result.
pub fn application_setup(nspace: &crate::Nspace, infos: &[Info]) -> Result<Vec<Info>, Status> {
    if nspace.is_empty() {
        return Err(Status::ERR_BAD_PARAM);
    }
    setup_application(infos, std::env::vars())
}

/// The infos `setup_application` returns for `infos`, harvesting from
/// `environment` (the launcher's: `std::env::vars()`).
pub fn setup_application(
    infos: &[Info],
    environment: impl IntoIterator<Item = (String, String)>,
) -> Result<Vec<Info>, Status> {
    let mut envars = false;
    let mut models: Vec<String> = Vec::new();
    // attrs begin: PMIx_server_setup_application
    for i in infos {
        if key_is(i, keys::SETUP_APP_ENVARS) || key_is(i, keys::SETUP_APP_ALL) {
            envars |= flag(&i.value);
        } else if key_is(i, keys::PROGRAMMING_MODEL) || key_is(i, keys::PERSONALITY) {
            if let Some(s) = i.value.as_str() {
                models.extend(s.split(',').map(|m| m.trim().to_ascii_lowercase()));
            }
        }
    }
    // attrs end
    let mut out = Vec::new();
    if envars {
        let mut prefixes: Vec<&str> = PMIX_PREFIXES.to_vec();
        for (model, p) in MODEL_PREFIXES {
            if models.iter().any(|m| m.starts_with(model)) {
                prefixes.extend_from_slice(p);
            }
        }
        let mut found: Vec<(String, String)> = environment
            .into_iter()
            .filter(|(k, _)| prefixes.iter().any(|p| k.starts_with(p)))
            .collect();
        found.sort();
        for (k, v) in found {
            // A variable that cannot travel as a C string is skipped.
            if let Ok(value) = envar(&k, &v, b':') {
                out.push(info(keys::SET_ENVAR, value));
            }
        }
    }
    // The caller's own directives travel on.
    out.extend(
        infos
            .iter()
            .filter(|i| edit_of(i).ok().flatten().is_some())
            .cloned(),
    );
    Ok(out)
}

fn envar_parts(v: &Value) -> Result<(String, String, char), Status> {
    let Value::Envar(e) = v else {
        return Err(Status::ERR_TYPE_MISMATCH);
    };
    let name = e
        .envar
        .as_ref()
        .and_then(|s| s.to_str().ok())
        .filter(|s| !s.is_empty() && !s.contains('='))
        .ok_or(Status::ERR_BAD_PARAM)?;
    let value = e
        .value
        .as_ref()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sep = if e.separator == 0 {
        ':'
    } else {
        char::from(e.separator)
    };
    Ok((name.to_owned(), value, sep))
}

/// The directive an info holds, if it is one (`Err` if it is one but
/// malformed).
fn edit_of(i: &Info) -> Result<Option<EnvEdit>, Status> {
    // attrs begin: PMIx_server_setup_local_support
    Ok(Some(if key_is(i, keys::SET_ENVAR) {
        let (name, value, _) = envar_parts(&i.value)?;
        EnvEdit::Set { name, value }
    } else if key_is(i, keys::PREPEND_ENVAR) {
        let (name, value, sep) = envar_parts(&i.value)?;
        EnvEdit::Prepend { name, value, sep }
    } else if key_is(i, keys::APPEND_ENVAR) {
        let (name, value, sep) = envar_parts(&i.value)?;
        EnvEdit::Append { name, value, sep }
    } else if key_is(i, keys::UNSET_ENVAR) {
        let name = i
            .value
            .as_str()
            .filter(|s| !s.is_empty() && !s.contains('='))
            .ok_or(Status::ERR_BAD_PARAM)?;
        EnvEdit::Unset(name.to_owned())
    } else {
        return Ok(None);
    }))
    // attrs end
}

/// The environment directives among `infos` (`PMIX_ERR_BAD_PARAM` or
/// `PMIX_ERR_TYPE_MISMATCH` for a malformed one).
pub fn edits_of(infos: &[Info]) -> Result<Vec<EnvEdit>, Status> {
    let mut v = Vec::new();
    for i in infos {
        if let Some(e) = edit_of(i)? {
            v.push(e);
        }
    }
    Ok(v)
}

/// The changes `edits` make to an environment whose current values
/// `current` returns (later edits see the effect of earlier ones).
pub fn apply(edits: &[EnvEdit], current: impl Fn(&str) -> Option<String>) -> Vec<EnvChange> {
    let mut changed: Vec<(String, Option<String>)> = Vec::new();
    let now = |changed: &Vec<(String, Option<String>)>, name: &str| match changed
        .iter()
        .rev()
        .find(|(n, _)| n == name)
    {
        Some((_, v)) => v.clone(),
        None => current(name),
    };
    for e in edits {
        let (name, v) = match e {
            EnvEdit::Set { name, value } => (name, Some(value.clone())),
            EnvEdit::Unset(name) => (name, None),
            EnvEdit::Prepend { name, value, sep } => match now(&changed, name) {
                Some(old) if old.split(*sep).any(|p| p == value) => (name, Some(old)),
                Some(old) if !old.is_empty() => (name, Some(format!("{value}{sep}{old}"))),
                _ => (name, Some(value.clone())),
            },
            EnvEdit::Append { name, value, sep } => match now(&changed, name) {
                Some(old) if old.split(*sep).any(|p| p == value) => (name, Some(old)),
                Some(old) if !old.is_empty() => (name, Some(format!("{old}{sep}{value}"))),
                _ => (name, Some(value.clone())),
            },
        };
        changed.retain(|(n, _)| n != name);
        changed.push((name.clone(), v));
    }
    changed
        .into_iter()
        .map(|(n, v)| match v {
            Some(v) => EnvChange::Set(n, v),
            None => EnvChange::Unset(n),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn harvests_pmix_and_model_variables_when_asked() {
        let e = env(&[
            ("PMIX_MCA_ptl", "tcp"),
            ("OMPI_MCA_btl", "self"),
            ("HOME", "/root"),
            ("MPICH_X", "1"),
        ]);
        assert!(setup_application(&[], e.clone()).unwrap().is_empty());
        let ask = info(keys::SETUP_APP_ENVARS, Value::Bool(true));
        let got = setup_application(std::slice::from_ref(&ask), e.clone()).unwrap();
        assert_eq!(
            edits_of(&got).unwrap(),
            [EnvEdit::Set {
                name: "PMIX_MCA_ptl".into(),
                value: "tcp".into()
            }]
        );
        let model = info(keys::PROGRAMMING_MODEL, Value::string("ompi"));
        let got = setup_application(&[ask, model], e).unwrap();
        let names: Vec<_> = edits_of(&got)
            .unwrap()
            .into_iter()
            .map(|e| match e {
                EnvEdit::Set { name, .. } => name,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(names, ["OMPI_MCA_btl", "PMIX_MCA_ptl"]);
    }

    #[test]
    fn edits_apply_in_order() {
        let edits = [
            EnvEdit::Prepend {
                name: "PATH".into(),
                value: "/a".into(),
                sep: ':',
            },
            EnvEdit::Append {
                name: "NEW".into(),
                value: "x".into(),
                sep: ',',
            },
            EnvEdit::Append {
                name: "NEW".into(),
                value: "y".into(),
                sep: ',',
            },
            EnvEdit::Unset("GONE".into()),
            EnvEdit::Set {
                name: "S".into(),
                value: "1".into(),
            },
        ];
        let got = apply(&edits, |n| (n == "PATH").then(|| "/bin".to_owned()));
        let again = apply(&edits[..1], |_| Some("/a:/bin".to_owned()));
        assert_eq!(again, [EnvChange::Set("PATH".into(), "/a:/bin".into())]);
        assert_eq!(
            got,
            [
                EnvChange::Set("PATH".into(), "/a:/bin".into()),
                EnvChange::Set("NEW".into(), "x,y".into()),
                EnvChange::Unset("GONE".into()),
                EnvChange::Set("S".into(), "1".into()),
            ]
        );
    }

    #[test]
    fn malformed_directives_are_refused() {
        let bad = info(keys::UNSET_ENVAR, Value::Uint32(3));
        assert_eq!(edits_of(&[bad]), Err(Status::ERR_BAD_PARAM));
        let bad = info(keys::SET_ENVAR, Value::string("x"));
        assert_eq!(edits_of(&[bad]), Err(Status::ERR_TYPE_MISMATCH));
    }
}
