//! The process sets this server knows: those its host defined with
//! `PMIx_server_define_process_set` and those a job registration carried
//! (`PMIX_PSET_NAME`, with `PMIX_PSET_MEMBERS` or else the application's
//! ranks, as PRRTE registers `--pset`).
//!
//! Invariant: every set has a nonempty name, unique in the table (defining
//! an existing name replaces its members); members are kept in the order
//! given, without duplicates; no member belongs to a namespace the host
//! deregistered (its processes leave every set, and a set left empty goes).
//! Names are listed in the order they were first defined. The sets
//! defined with an event (`PMIx_server_define_process_set`, not a
//! registration) are marked announced, for the clients that connect later
//! to hear of them too; only existing sets are marked.

use crate::job::JobDescription;
use crate::{keys, Nspace, Proc, Rank, Status, Value};

/// The table of process sets (owned by the progress thread's `State`).
#[derive(Default)]
pub(crate) struct ProcessSets {
    sets: Vec<(String, Vec<Proc>)>,
    /// The names of the sets defined with an event, in definition order.
    announced: Vec<String>,
}

impl ProcessSets {
    /// Counts this room's entries (see [`Census`](super::census::Census)).
    pub(super) fn count(&self, c: &mut super::census::Census) {
        c.add("psets.sets", self.sets.len());
    }

    /// Defines (or redefines) set `name`.
    pub(crate) fn define(&mut self, name: &str, members: Vec<Proc>) -> Result<(), Status> {
        if name.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let mut uniq: Vec<Proc> = Vec::with_capacity(members.len());
        for p in members {
            if !uniq.contains(&p) {
                uniq.push(p);
            }
        }
        match self.sets.iter_mut().find(|(n, _)| n == name) {
            Some((_, m)) => *m = uniq,
            None => self.sets.push((name.to_owned(), uniq)),
        }
        Ok(())
    }

    /// Marks the existing set `name` as defined with an event.
    pub(crate) fn announce(&mut self, name: &str) {
        if self.members(name).is_some() && !self.announced.iter().any(|n| n == name) {
            self.announced.push(name.to_owned());
        }
    }

    /// The sets defined with an event, with their members.
    pub(crate) fn announced(&self) -> Vec<(&str, &[Proc])> {
        self.announced
            .iter()
            .filter_map(|n| Some((n.as_str(), self.members(n)?)))
            .collect()
    }

    /// Deletes set `name`: `PMIX_ERR_NOT_FOUND` if there is none.
    pub(crate) fn delete(&mut self, name: &str) -> Result<(), Status> {
        if name.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let before = self.sets.len();
        self.sets.retain(|(n, _)| n != name);
        self.announced.retain(|n| n != name);
        if self.sets.len() == before {
            Err(Status::ERR_NOT_FOUND)
        } else {
            Ok(())
        }
    }

    /// Namespace `ns` was deregistered: its processes leave every set;
    /// the sets left empty are forgotten (without events, as sets a
    /// registration brought are defined without).
    pub(crate) fn forget_nspace(&mut self, ns: &Nspace) {
        for (_, m) in self.sets.iter_mut() {
            m.retain(|p| &p.nspace != ns);
        }
        self.sets.retain(|(_, m)| !m.is_empty());
        let sets = &self.sets;
        self.announced
            .retain(|n| sets.iter().any(|(name, _)| name == n));
    }

    /// How many sets there are.
    pub(crate) fn len(&self) -> usize {
        self.sets.len()
    }

    /// The names, in order of first definition.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.sets.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The members of set `name`.
    pub(crate) fn members(&self, name: &str) -> Option<&[Proc]> {
        self.sets
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.as_slice())
    }

    /// The names of the sets `proc` belongs to (a member given with the
    /// wildcard rank holds every rank of its namespace).
    pub(crate) fn sets_of(&self, proc: &Proc) -> Vec<&str> {
        self.sets
            .iter()
            .filter(|(_, m)| {
                m.iter().any(|p| {
                    p.nspace == proc.nspace && (p.rank == proc.rank || p.rank == Rank::WILDCARD)
                })
            })
            .map(|(n, _)| n.as_str())
            .collect()
    }
}

/// The sets a job registration carries: each application with a
/// `PMIX_PSET_NAME` is a set, whose members are its `PMIX_PSET_MEMBERS`
/// if given, else the application's ranks.
pub(crate) fn registered_sets(nspace: &Nspace, job: &JobDescription) -> Vec<(String, Vec<Proc>)> {
    let mut out = Vec::new();
    for app in job.apps() {
        let Some(name) = app.info(keys::PSET_NAME).and_then(Value::as_str) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let members = app
            .info(keys::PSET_MEMBERS)
            .and_then(Value::procs)
            .unwrap_or_else(|| {
                app.ranks()
                    .iter()
                    .map(|&r| Proc::new(nspace.clone(), Rank(r)))
                    .collect()
            });
        out.push((name.to_owned(), members));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("ns").unwrap(), Rank(r))
    }

    #[test]
    fn define_replace_delete() {
        let mut t = ProcessSets::default();
        assert_eq!(t.define("", vec![]), Err(Status::ERR_BAD_PARAM));
        t.define("a", vec![p(0), p(1), p(0)]).unwrap();
        t.define("b", vec![p(2)]).unwrap();
        assert_eq!(t.members("a").unwrap(), &[p(0), p(1)]);
        t.define("a", vec![p(3)]).unwrap();
        assert_eq!(t.names(), vec!["a", "b"]);
        assert_eq!(t.members("a").unwrap(), &[p(3)]);
        assert_eq!(t.delete("zz"), Err(Status::ERR_NOT_FOUND));
        t.delete("a").unwrap();
        assert_eq!(t.len(), 1);
        assert!(t.members("a").is_none());
        assert_eq!(t.sets_of(&p(2)), vec!["b"]);
        assert!(t.sets_of(&p(3)).is_empty());
        t.define(
            "all",
            vec![Proc::new(Nspace::new("ns").unwrap(), Rank::WILDCARD)],
        )
        .unwrap();
        assert_eq!(t.sets_of(&p(2)), vec!["b", "all"]);
    }

    #[test]
    fn a_deregistered_namespace_leaves_every_set() {
        let mut t = ProcessSets::default();
        let other = Proc::new(Nspace::new("other").unwrap(), Rank(0));
        t.define("mixed", vec![p(0), other.clone()]).unwrap();
        t.define("only", vec![p(1)]).unwrap();
        t.forget_nspace(&Nspace::new("ns").unwrap());
        assert_eq!(t.names(), vec!["mixed"]);
        assert_eq!(t.members("mixed").unwrap(), std::slice::from_ref(&other));
    }

    #[test]
    fn announced_sets_are_those_defined_with_an_event_and_still_there() {
        let mut t = ProcessSets::default();
        t.define("quiet", vec![p(0)]).unwrap();
        t.define("told", vec![p(1)]).unwrap();
        t.define("gone", vec![p(2)]).unwrap();
        t.announce("told");
        t.announce("gone");
        t.announce("missing");
        t.delete("gone").unwrap();
        assert_eq!(t.announced(), vec![("told", &[p(1)][..])]);
        t.forget_nspace(&Nspace::new("ns").unwrap());
        assert!(t.announced().is_empty());
    }
}
