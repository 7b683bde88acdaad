//! The monitors the server library runs itself, each a [`Tracker`]
//! looking at its process or file once per period on the loop's timers.
//!
//! How each decides (OpenPMIx's sensors' behaviour, the standard's
//! counting of drops):
//! - heartbeat: a window of one period; a window with a beat clears the
//!   misses; one without counts a miss, and the miss past the
//!   `drops` tolerated raises the alert once: the monitor then stays
//!   silent until a beat revives it (it may alert again later);
//! - file: the first successful `stat` is the baseline; a check where no
//!   watched attribute (size, access or modification time) moved counts a
//!   miss, one where any moved clears them; the miss past `drops` raises
//!   the alert and ends the monitor (one alert per request, as OpenPMIx).
//!   A file that cannot be read (not there yet, removed) counts nothing.
//!   Access times move only as the file system records them (`relatime`,
//!   `noatime`): size and modification are the reliable signs.
//!
//! Invariants:
//! - A tracker's next look is armed in the loop's timers exactly while the
//!   tracker exists: [`Monitors::start`] arms it, [`Monitors::tick`] re-arms
//!   it or, ending it, does not; [`Monitors::cancel`] disarms what it
//!   removes. Nothing polls: between looks the loop sleeps.
//! - A tracker belongs to the process that asked (its owner): only that
//!   process beats for it or cancels it, and its departure ends it
//!   ([`Monitors::cancel`] with no name).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Instant, SystemTime};

use super::request::{Aspects, Spec, Watch};
use crate::events::Event;
use crate::server::timers::{TimerKey, Timers};
use crate::{keys, Info, Proc, Value};

/// The monitors in progress, by number.
#[derive(Default)]
pub(in crate::server) struct Monitors {
    trackers: BTreeMap<u64, Tracker>,
    next: u64,
}

/// One monitor.
struct Tracker {
    owner: Proc,
    spec: Spec,
    /// When it looks next (armed in the timers).
    due: Instant,
    sensor: Sensor,
}

/// What a monitor remembers between looks.
enum Sensor {
    Heartbeat {
        /// A beat came in this window.
        beaten: bool,
        /// Windows in a row without one.
        missed: u32,
        /// The alert was raised and no beat came since.
        silent: bool,
    },
    File {
        /// The attributes at the last look (`None`: no baseline yet).
        last: Option<Stamp>,
        /// Looks in a row without a change.
        misses: u32,
    },
}

/// A file's attributes at one look.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    size: u64,
    accessed: Option<SystemTime>,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// The attributes of `path` now, if it can be read.
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            size: m.len(),
            accessed: m.accessed().ok(),
            modified: m.modified().ok(),
        })
    }

    /// True if any attribute of `aspects` differs between the two looks.
    fn moved(&self, before: &Stamp, aspects: Aspects) -> bool {
        (aspects.size && self.size != before.size)
            || (aspects.access && self.accessed != before.accessed)
            || (aspects.modify && self.modified != before.modified)
    }
}

/// What one look found.
enum Verdict {
    /// Nothing to report; look again.
    Quiet,
    /// Raise the alert; look again.
    Alert,
    /// Raise the alert; the monitor is over.
    AlertAndEnd,
}

impl Sensor {
    fn new(watch: &Watch) -> Sensor {
        match watch {
            Watch::Heartbeat => Sensor::Heartbeat {
                beaten: false,
                missed: 0,
                silent: false,
            },
            Watch::File { .. } => Sensor::File {
                last: None,
                misses: 0,
            },
        }
    }

    /// One look, at the end of a period.
    fn look(&mut self, spec: &Spec) -> Verdict {
        match (self, &spec.watch) {
            (
                Sensor::Heartbeat {
                    beaten,
                    missed,
                    silent,
                },
                _,
            ) => {
                if std::mem::take(beaten) || *silent {
                    return Verdict::Quiet;
                }
                *missed += 1;
                if *missed > spec.drops {
                    *silent = true;
                    return Verdict::Alert;
                }
                Verdict::Quiet
            }
            (Sensor::File { last, misses }, Watch::File { path, aspects }) => {
                let Some(now) = Stamp::of(path) else {
                    return Verdict::Quiet;
                };
                let Some(before) = last.replace(now) else {
                    return Verdict::Quiet;
                };
                if now.moved(&before, *aspects) {
                    *misses = 0;
                    return Verdict::Quiet;
                }
                *misses += 1;
                if *misses > spec.drops {
                    Verdict::AlertAndEnd
                } else {
                    Verdict::Quiet
                }
            }
            (Sensor::File { .. }, Watch::Heartbeat) => Verdict::Quiet,
        }
    }
}

impl Monitors {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("monitors.trackers", self.trackers.len());
    }

    /// Starts monitor `spec` for `owner`, its first look one period after
    /// `now`; returns its number.
    pub(in crate::server) fn start(
        &mut self,
        owner: Proc,
        spec: Spec,
        now: Instant,
        timers: &mut Timers,
    ) -> u64 {
        self.next += 1;
        let n = self.next;
        let due = now + spec.period;
        timers.set(due, TimerKey::Monitor(n));
        let sensor = Sensor::new(&spec.watch);
        self.trackers.insert(
            n,
            Tracker {
                owner,
                spec,
                due,
                sensor,
            },
        );
        n
    }

    /// True if a heartbeat monitor of `owner` runs here.
    pub(in crate::server) fn watches_beats_of(&self, owner: &Proc) -> bool {
        self.trackers
            .values()
            .any(|t| &t.owner == owner && t.spec.watch == Watch::Heartbeat)
    }

    /// A beat of `owner`: every heartbeat monitor of it sees it.
    pub(in crate::server) fn beat(&mut self, owner: &Proc) {
        for t in self.trackers.values_mut().filter(|t| &t.owner == owner) {
            if let Sensor::Heartbeat {
                beaten,
                missed,
                silent,
            } = &mut t.sensor
            {
                (*beaten, *missed, *silent) = (true, 0, false);
            }
        }
    }

    /// True if `owner` runs a monitor named `name` here.
    pub(in crate::server) fn has(&self, owner: &Proc, name: &str) -> bool {
        self.trackers
            .values()
            .any(|t| &t.owner == owner && t.spec.name.as_deref() == Some(name))
    }

    /// Ends `owner`'s monitors named `name` (all of them if `None`),
    /// disarming their looks; returns how many ended.
    pub(in crate::server) fn cancel(
        &mut self,
        owner: &Proc,
        name: Option<&str>,
        timers: &mut Timers,
    ) -> usize {
        let ending: Vec<u64> = self
            .trackers
            .iter()
            .filter(|(_, t)| {
                &t.owner == owner && name.map_or(true, |n| t.spec.name.as_deref() == Some(n))
            })
            .map(|(&n, _)| n)
            .collect();
        for n in &ending {
            if let Some(t) = self.trackers.remove(n) {
                timers.cancel(t.due, TimerKey::Monitor(*n));
            }
        }
        ending.len()
    }

    /// Monitor `n`'s look, due at `now` (its timer fired): the alert to
    /// raise, if any. The monitor is re-armed one period on, unless the
    /// look ended it.
    pub(in crate::server) fn tick(
        &mut self,
        n: u64,
        now: Instant,
        timers: &mut Timers,
    ) -> Option<Event> {
        let t = self.trackers.get_mut(&n)?;
        let verdict = t.sensor.look(&t.spec);
        let alert = match verdict {
            Verdict::Quiet => None,
            Verdict::Alert | Verdict::AlertAndEnd => Some(alert_of(t)),
        };
        if matches!(verdict, Verdict::AlertAndEnd) {
            self.trackers.remove(&n);
        } else {
            // A loop held up past a period looks again one period from
            // now, not in a burst of overdue looks.
            t.due = (t.due + t.spec.period).max(now + t.spec.period / 2);
            timers.set(t.due, TimerKey::Monitor(n));
        }
        alert
    }
}

/// The alert of tracker `t`: from its owner, in its range, naming the
/// process (`PMIX_EVENT_AFFECTED_PROC`), the monitor's id if it has one
/// and, for a file, the file (`PMIX_MONITOR_FILE`).
fn alert_of(t: &Tracker) -> Event {
    let mut infos: Vec<Info> = Vec::with_capacity(3);
    infos.extend(Info::keyed(
        keys::EVENT_AFFECTED_PROC,
        Value::Proc(t.owner.clone()),
    ));
    if let Some(name) = &t.spec.name {
        infos.extend(Info::keyed(keys::MONITOR_ID, Value::string(name)));
    }
    if let Watch::File { path, .. } = &t.spec.watch {
        let p = path.to_string_lossy();
        infos.extend(Info::keyed(keys::MONITOR_FILE, Value::string(&p)));
    }
    Event {
        status: t.spec.alert,
        source: t.owner.clone(),
        range: t.spec.range,
        infos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Range;
    use crate::{Nspace, Rank, Status};
    use std::time::Duration;

    fn proc(r: u32) -> Proc {
        Proc::new(Nspace::new("mon").unwrap(), Rank(r))
    }

    fn heartbeat(drops: u32, name: Option<&str>) -> Spec {
        Spec {
            name: name.map(str::to_owned),
            alert: Status(-109),
            range: Range::NAMESPACE,
            period: Duration::from_secs(1),
            drops,
            watch: Watch::Heartbeat,
        }
    }

    /// Fires every due look up to `at`, collecting the alerts.
    fn run_until(m: &mut Monitors, t: &mut Timers, at: Instant) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(TimerKey::Monitor(n)) = t.pop_expired(at) {
            out.extend(m.tick(n, at, t));
        }
        out
    }

    #[test]
    fn a_silent_process_alerts_once_past_its_drops_and_a_beat_revives_it() {
        let (mut m, mut t) = (Monitors::default(), Timers::default());
        let t0 = Instant::now();
        m.start(proc(0), heartbeat(1, None), t0, &mut t);
        let s = Duration::from_secs(1);
        // Window 1 beaten, 2 missed (tolerated), 3 missed: the alert.
        m.beat(&proc(0));
        assert!(run_until(&mut m, &mut t, t0 + s).is_empty());
        assert!(run_until(&mut m, &mut t, t0 + 2 * s).is_empty());
        let a = run_until(&mut m, &mut t, t0 + 3 * s);
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].status, &a[0].source), (Status(-109), &proc(0)));
        assert_eq!(a[0].affected(), vec![proc(0)]);
        // Silent afterwards, until a beat.
        assert!(run_until(&mut m, &mut t, t0 + 6 * s).is_empty());
        m.beat(&proc(0));
        assert!(run_until(&mut m, &mut t, t0 + 7 * s).is_empty());
        assert!(run_until(&mut m, &mut t, t0 + 8 * s).is_empty());
        assert_eq!(run_until(&mut m, &mut t, t0 + 9 * s).len(), 1);
    }

    #[test]
    fn cancelled_and_departed_monitors_leave_no_timer() {
        let (mut m, mut t) = (Monitors::default(), Timers::default());
        let t0 = Instant::now();
        m.start(proc(0), heartbeat(0, Some("a")), t0, &mut t);
        m.start(proc(0), heartbeat(0, Some("b")), t0, &mut t);
        m.start(proc(1), heartbeat(0, Some("a")), t0, &mut t);
        assert!(m.has(&proc(0), "a") && !m.has(&proc(0), "c"));
        assert_eq!(m.cancel(&proc(0), Some("a"), &mut t), 1);
        assert_eq!(m.cancel(&proc(0), Some("a"), &mut t), 0);
        assert_eq!(m.cancel(&proc(0), None, &mut t), 1);
        let a = run_until(&mut m, &mut t, t0 + Duration::from_secs(1));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].source, proc(1));
        assert_eq!(m.cancel(&proc(1), None, &mut t), 1);
        assert_eq!(t.next_in(t0), None);
    }

    #[test]
    fn a_file_that_stops_growing_alerts_once_and_ends() {
        let dir = std::env::temp_dir().join(format!("pmix-monitor-room-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("progress");
        std::fs::write(&path, b"a").unwrap();
        let spec = Spec {
            watch: Watch::File {
                path: path.clone(),
                aspects: Aspects {
                    size: true,
                    ..Aspects::default()
                },
            },
            ..heartbeat(0, Some("f"))
        };
        let (mut m, mut t) = (Monitors::default(), Timers::default());
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        m.start(proc(0), spec, t0, &mut t);
        assert!(run_until(&mut m, &mut t, t0 + s).is_empty(), "baseline");
        std::fs::write(&path, b"ab").unwrap();
        assert!(run_until(&mut m, &mut t, t0 + 2 * s).is_empty(), "grew");
        let a = run_until(&mut m, &mut t, t0 + 3 * s);
        assert_eq!(a.len(), 1, "stopped growing");
        let file = crate::info::value_of(&a[0].infos, keys::MONITOR_FILE);
        assert_eq!(file.and_then(Value::as_str), path.to_str());
        assert_eq!(t.next_in(t0), None, "one alert, then over");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
