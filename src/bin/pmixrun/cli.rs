//! Command-line parsing (hand-written: a handful of options).
//!
//! ```text
//! pmixrun [OPTIONS] -n N PROGRAM [ARGS...] [: [OPTIONS] -n M PROGRAM2 [ARGS...]]...
//! ```
//!
//! `--tag-output`, `--timeout`, `--stdin`, `-x`, `--stop-in-init`,
//! `--stop-on-exec`, `--recoverable` (also spelt as PRRTE's `--rtos
//! recoverable`) and `--system-server` apply to the whole job wherever
//! they appear; `-n`,
//! `--wdir` and `--pset` to the program context they
//! precede (`--pset NAME`: the context's ranks form the process set NAME).

use std::path::PathBuf;

/// One program context (`-n N PROGRAM ARGS...`): one application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    pub np: u32,
    pub argv: Vec<String>,
    pub wdir: Option<PathBuf>,
    /// `--pset NAME`: the context's ranks form this process set.
    pub pset: Option<String>,
}

/// The parsed command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub contexts: Vec<Context>,
    pub tag_output: bool,
    pub timeout: Option<u64>,
    /// `-x VAR=val` (`Some`) or `-x VAR` (`None`: the launcher's value).
    pub env: Vec<(String, Option<String>)>,
    /// `--stdin RANKS`: which ranks of the job read a stdin that
    /// `pmixrun` feeds (its own stdin, and `PMIx_IOF_push` from tools);
    /// `None`: rank 0 reads `pmixrun`'s stdin directly when that is not a
    /// terminal, the others `/dev/null`.
    pub stdin: Option<StdinRanks>,
    /// `--stop-in-init`: every rank waits in `PMIx_Init` for a debugger's
    /// `PMIX_DEBUGGER_RELEASE`.
    pub stop_in_init: bool,
    /// `--stop-on-exec`: every rank is held stopped at its first
    /// instruction until released (`PMIX_DEBUGGER_RELEASE` or `SIGCONT`).
    pub stop_on_exec: bool,
    /// `--recoverable`: a rank's failure is reported to the others, who
    /// go on; the job's exit status still reports it.
    pub recoverable: bool,
    /// `--system-server`: `pmixrun`'s server is also this node's system
    /// server (`pmix.sys.<host>` in the system temporary directory).
    pub system_server: bool,
}

/// The ranks `--stdin` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StdinRanks {
    /// `none`: every rank reads `/dev/null`.
    None,
    /// `all`.
    All,
    /// A comma list of ranks.
    Ranks(Vec<u32>),
}

impl StdinRanks {
    /// Parses `none`, `all` or a comma list of ranks.
    pub fn parse(v: &str) -> Result<StdinRanks, String> {
        match v {
            "none" => Ok(StdinRanks::None),
            "all" => Ok(StdinRanks::All),
            _ => v
                .split(',')
                .map(|r| {
                    r.trim()
                        .parse::<u32>()
                        .map_err(|_| format!("--stdin: not none, all or a list of ranks: {v}"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(StdinRanks::Ranks),
        }
    }

    /// True if rank `r` reads the stdin `pmixrun` feeds.
    pub fn has(&self, r: u32) -> bool {
        match self {
            StdinRanks::None => false,
            StdinRanks::All => true,
            StdinRanks::Ranks(v) => v.contains(&r),
        }
    }
}

pub const USAGE: &str = "usage: pmixrun [--tag-output] [--timeout SECS] [--stdin none|all|RANKS] \
[-x VAR[=val]] [--stop-in-init] [--stop-on-exec] [--recoverable] [--system-server] [--wdir DIR] \
[--pset NAME] -n N PROGRAM [ARGS...] [: -n M PROGRAM2 [ARGS...]]...
  --pset NAME     the next program context's ranks form the process set NAME
                  (announced to every rank with PMIX_PROCESS_SET_DEFINE)
  --recoverable   (or --rtos recoverable) a rank that fails (non-zero exit,
                  killed, exit without PMIx_Finalize) does not end the job: the
                  others hear of it (PMIX_ERR_PROC_ABORTED, failed collectives)
                  and go on; pmixrun still exits with the first failure's status
  --system-server also serve as this node's system PMIx server (pmix.sys.<host>
                  in $TMPDIR, else /tmp), for tools using PMIX_CONNECT_TO_SYSTEM;
                  refused while another one runs
  --stop-in-init  every rank waits in PMIx_Init until a debugger (a tool) sends
                  PMIX_DEBUGGER_RELEASE
  --stop-on-exec  every rank is held stopped at its first instruction, for a
                  debugger to attach, until PMIX_DEBUGGER_RELEASE or SIGCONT";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Run(Options),
    Help,
}

fn value<'a>(
    opt: &str,
    inline: Option<&'a str>,
    it: &mut impl Iterator<Item = &'a String>,
) -> Result<&'a str, String> {
    match inline {
        Some(v) => Ok(v),
        None => it
            .next()
            .map(String::as_str)
            .ok_or_else(|| format!("option {opt} needs a value")),
    }
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    loop {
        // One program context.
        let mut np: Option<u32> = None;
        let mut wdir = None;
        let mut pset = None;
        let mut argv: Vec<String> = Vec::new();
        let mut more = false;
        while let Some(a) = it.next() {
            if !argv.is_empty() {
                if a == ":" {
                    more = true;
                    break;
                }
                argv.push(a.clone());
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (a.as_str(), None),
            };
            match name {
                "-h" | "--help" => return Ok(Parsed::Help),
                "-n" | "--n" | "-np" | "--np" => {
                    let v = value(name, inline, &mut it)?;
                    let n: u32 = v
                        .parse()
                        .map_err(|_| format!("{name}: not a process count: {v}"))?;
                    if n == 0 {
                        return Err(format!("{name}: at least one process is needed"));
                    }
                    np = Some(n);
                }
                "--tag-output" => o.tag_output = true,
                "--stop-in-init" => o.stop_in_init = true,
                "--stop-on-exec" => o.stop_on_exec = true,
                "--recoverable" => o.recoverable = true,
                "--system-server" => o.system_server = true,
                "--rtos" => {
                    let v = value(name, inline, &mut it)?;
                    if v != "recoverable" {
                        return Err(format!("--rtos: only 'recoverable' is supported: {v}"));
                    }
                    o.recoverable = true;
                }
                "--timeout" => {
                    let v = value(name, inline, &mut it)?;
                    let t: u64 = v
                        .parse()
                        .map_err(|_| format!("--timeout: not a number of seconds: {v}"))?;
                    o.timeout = Some(t);
                }
                "--stdin" => {
                    o.stdin = Some(StdinRanks::parse(value(name, inline, &mut it)?)?);
                }
                "-x" => {
                    let v = value(name, inline, &mut it)?;
                    let (k, val) = match v.split_once('=') {
                        Some((k, val)) => (k, Some(val.to_owned())),
                        None => (v, None),
                    };
                    if k.is_empty() {
                        return Err(format!("-x: no variable name in {v}"));
                    }
                    o.env.push((k.to_owned(), val));
                }
                "--wdir" | "-wdir" | "--wd" => {
                    wdir = Some(PathBuf::from(value(name, inline, &mut it)?));
                }
                "--pset" => {
                    let v = value(name, inline, &mut it)?;
                    if v.is_empty() || v.contains(',') {
                        return Err(format!("--pset: not a set name: {v:?}"));
                    }
                    pset = Some(v.to_owned());
                }
                ":" => return Err("empty program context before ':'".into()),
                s if s.starts_with('-') && s.len() > 1 => {
                    return Err(format!("unknown option {s}"));
                }
                _ => argv.push(a.clone()),
            }
        }
        if argv.is_empty() {
            return Err("no program given".into());
        }
        o.contexts.push(Context {
            np: np.unwrap_or(1),
            argv,
            wdir,
            pset,
        });
        if !more {
            break;
        }
    }
    Ok(Parsed::Run(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Parsed, String> {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn contexts_and_options() {
        let Parsed::Run(o) =
            p("--tag-output -n 2 --wdir /tmp a x -n : --timeout=5 -x A=1 -x B -n 3 b").unwrap()
        else {
            panic!()
        };
        assert!(o.tag_output);
        assert_eq!(o.timeout, Some(5));
        assert_eq!(
            o.env,
            vec![("A".into(), Some("1".into())), ("B".into(), None)]
        );
        assert_eq!(o.contexts.len(), 2);
        assert_eq!(o.contexts[0].np, 2);
        assert_eq!(o.contexts[0].argv, vec!["a", "x", "-n"]);
        assert_eq!(o.contexts[0].wdir, Some(PathBuf::from("/tmp")));
        assert_eq!(o.contexts[1].np, 3);
        assert_eq!(o.contexts[1].argv, vec!["b"]);
        assert_eq!(o.contexts[1].pset, None);
    }

    #[test]
    fn pset_names_a_context() {
        let Parsed::Run(o) = p("--pset left -n 2 a : --pset=right b").unwrap() else {
            panic!()
        };
        assert_eq!(o.contexts[0].pset.as_deref(), Some("left"));
        assert_eq!(o.contexts[1].pset.as_deref(), Some("right"));
        assert!(p("--pset a,b a").is_err());
        assert!(p("--pset").is_err());
    }

    #[test]
    fn stdin_ranks() {
        let Parsed::Run(o) = p("--stdin 0,2 -n 3 a").unwrap() else {
            panic!()
        };
        assert_eq!(o.stdin, Some(StdinRanks::Ranks(vec![0, 2])));
        let Parsed::Run(o) = p("--stdin=all a").unwrap() else {
            panic!()
        };
        assert_eq!(o.stdin, Some(StdinRanks::All));
        assert!(StdinRanks::All.has(5) && !StdinRanks::None.has(0));
        assert!(p("--stdin x a").is_err());
    }

    #[test]
    fn debugger_options_apply_to_the_job() {
        let Parsed::Run(o) = p("--stop-in-init -n 2 a : --stop-on-exec b").unwrap() else {
            panic!()
        };
        assert!(o.stop_in_init && o.stop_on_exec);
        assert_eq!(o.contexts.len(), 2);
    }

    #[test]
    fn recoverable_and_system_server() {
        let Parsed::Run(o) = p("-n 2 a : --recoverable --system-server b").unwrap() else {
            panic!()
        };
        assert!(o.recoverable && o.system_server);
        let Parsed::Run(o) = p("--rtos recoverable a").unwrap() else {
            panic!()
        };
        assert!(o.recoverable && !o.system_server);
        assert!(p("--rtos=other a").is_err());
    }

    #[test]
    fn errors() {
        assert!(p("").is_err());
        assert!(p("-n 0 a").is_err());
        assert!(p("-n x a").is_err());
        assert!(p("-n 1 a :").is_err());
        assert!(p("--bogus a").is_err());
        assert!(p("-n").is_err());
        assert_eq!(p("--help"), Ok(Parsed::Help));
    }
}
