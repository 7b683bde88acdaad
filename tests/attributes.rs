//! Attribute support (issue 12, item 5): what `PMIX_QUERY_ATTRIBUTE_SUPPORT`
//! answers is what the code reads, and it reaches C clients, C hosts,
//! python3-pmix and `pmix-info`.
//!
//! - `attribute_tables_match_the_code`: the generated table
//!   (`src/attributes/table.rs`) against the `// attrs begin:` regions of
//!   the code and the declarations of our headers (the drift test; see
//!   `pmix::attributes`).
//! - A C client under `pmixrun` (on our headers and Debian's) reads the
//!   regattr arrays of client functions and the server's functions.
//! - A C host registers its module's attributes (`PMIx_Register_attributes`,
//!   with its statuses), and its client reads them back as
//!   `PMIX_HOST_ATTRIBUTES`; so does the host itself.
//! - `pmix-info`: output, exit codes, and the host part through a running
//!   `pmixrun`.
//!
//! Every wait is bounded (`common::run_with_watchdog`, `--timeout`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use pmix::attributes::{table, Honoured};

use common::pmixrun_job::PmixrunJob;

const LIMIT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// The drift test

/// The Rust sources of the library: `src/` without the binaries (hosts
/// and tools, not the library) and `ffi/src/`.
fn library_sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "bin") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&common::root().join("src"), &mut out);
    walk(&common::root().join("ffi/src"), &mut out);
    out
}

/// The `keys::NAME` / `k::NAME` reads of a line of code (comments
/// excluded), as macro names.
fn reads(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for prefix in ["keys::", "k::"] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + prefix.len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            let boundary = before.map_or(true, |c| !(c.is_alphanumeric() || c == '_'));
            if boundary && name.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push(format!("PMIX_{name}"));
            }
            rest = &after[name.len()..];
        }
    }
    out
}

/// Function -> attributes read in the marked regions of the library.
fn marked_reads() -> BTreeMap<String, BTreeSet<String>> {
    let known: BTreeSet<&str> = pmix::keys::ATTRIBUTES.iter().map(|a| a.name).collect();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in library_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut open: Option<(usize, Vec<String>)> = None;
        for (no, line) in text.lines().enumerate() {
            let t = line.trim();
            if let Some(fns) = t.strip_prefix("// attrs begin:") {
                assert!(
                    open.is_none(),
                    "{}:{}: nested attrs region",
                    path.display(),
                    no + 1
                );
                let fns: Vec<String> = fns.split_whitespace().map(str::to_owned).collect();
                assert!(
                    !fns.is_empty(),
                    "{}:{}: no function",
                    path.display(),
                    no + 1
                );
                for f in &fns {
                    found.entry(f.clone()).or_default();
                }
                open = Some((no + 1, fns));
                continue;
            }
            if t == "// attrs end" {
                assert!(
                    open.take().is_some(),
                    "{}:{}: attrs end without begin",
                    path.display(),
                    no + 1
                );
                continue;
            }
            let Some((_, fns)) = &open else {
                continue;
            };
            for name in reads(line) {
                if known.contains(name.as_str()) {
                    for f in fns {
                        found.get_mut(f).unwrap().insert(name.clone());
                    }
                }
            }
        }
        if let Some((line, _)) = open {
            panic!("{}:{line}: attrs region never closed", path.display());
        }
    }
    found
}

/// The `PMIx_*` functions our header `file` declares (`PMIX_EXPORT`), in
/// order.
fn declared(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(common::include_dir().join(file)).unwrap();
    let mut out: Vec<String> = Vec::new();
    for part in text.split("PMIX_EXPORT").skip(1) {
        let head = part.split('(').next().unwrap_or("");
        if let Some(name) = head.split_whitespace().last() {
            let name = name.trim_start_matches('*');
            if name.starts_with("PMIx_") && !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
            }
        }
    }
    out
}

#[test]
fn attribute_tables_match_the_code() {
    let marked = marked_reads();
    let levels: [(&str, &[Honoured]); 3] = [
        ("pmix.h", table::CLIENT),
        ("pmix_server.h", table::SERVER),
        ("pmix_tool.h", table::TOOL),
    ];
    let mut problems = Vec::new();
    let mut listed = BTreeSet::new();
    for (header, entries) in levels {
        let names: Vec<String> = entries.iter().map(|h| h.function.to_owned()).collect();
        if names != declared(header) {
            problems.push(format!("the functions of {header} changed"));
        }
        for h in entries {
            listed.insert(h.function);
            let table: BTreeSet<String> = h.attrs.iter().map(|s| (*s).to_owned()).collect();
            let code = marked.get(h.function).cloned().unwrap_or_default();
            for a in code.difference(&table) {
                problems.push(format!("{} reads {a}, which its table omits", h.function));
            }
            for a in table.difference(&code) {
                problems.push(format!(
                    "{}'s table lists {a}, which no marked region reads",
                    h.function
                ));
            }
        }
    }
    for f in marked.keys() {
        if !listed.contains(f.as_str()) {
            problems.push(format!("a region names {f}, which no header declares"));
        }
    }
    assert!(
        problems.is_empty(),
        "src/attributes/table.rs disagrees with the code (rerun \
         tools/gen_attrs.py > src/attributes/table.rs):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_drift_scanner_reads_what_a_region_holds() {
    assert_eq!(
        reads("if i.key_is(keys::TIMEOUT) || is(k::NODE_MAP) { // keys::WAIT"),
        vec!["PMIX_TIMEOUT".to_owned(), "PMIX_NODE_MAP".to_owned()]
    );
    assert!(reads("let x = mykeys::TIMEOUT;").is_empty());
    // Every function honours at least what OpenPMIx's fence does.
    let fence = table::CLIENT
        .iter()
        .find(|h| h.function == "PMIx_Fence")
        .unwrap();
    assert!(fence.attrs.contains(&"PMIX_COLLECT_DATA"));
    assert!(fence.attrs.contains(&"PMIX_TIMEOUT"));
}

// ---------------------------------------------------------------------------
// C clients and hosts

/// The header sets to build C programs on: ours, and Debian's when
/// installed.
fn header_sets() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("ours", common::include_dir())];
    if let Some((inc, _)) = common::reference_pmix() {
        v.push(("debian", inc));
    }
    v
}

#[test]
fn a_c_client_under_pmixrun_reads_the_attributes_of_client_and_server_functions() {
    for (tag, inc) in header_sets() {
        let exe = common::build_c(
            "tests/c/attrs_client.c",
            &format!("attrs_client_{tag}"),
            "attrs_client",
            &inc,
            &[],
        );
        let (ok, out, err) =
            common::pmixrun_job(2, &[exe.to_string_lossy().into_owned()], &[], "60");
        common::assert_ranks_ok(2, ok, &out, &err, "attrs client");
    }
}

#[test]
fn a_c_host_registers_its_attributes_and_its_client_reads_them() {
    for (tag, inc) in header_sets() {
        let client = common::build_c(
            "tests/c/attrs_client.c",
            &format!("attrs_hclient_{tag}"),
            "attrs_client",
            &inc,
            &[],
        );
        let host = common::build_c(
            "tests/c/attrs_host.c",
            &format!("attrs_host_{tag}"),
            "attrs_host",
            &inc,
            &["-pthread"],
        );
        let tmp = common::scratch(&format!("attrs_host_tmp_{tag}"));
        let out = common::run_c_host(&host, &[client.as_os_str()], &tmp, LIMIT, "attrs host ok");
        assert!(out.contains("attrs client 0 ok"), "{out}");
    }
}

// ---------------------------------------------------------------------------
// python3-pmix

/// python3-pmix (OpenPMIx 4.2's own bindings) asks for the client and
/// server function lists.
#[test]
fn python_bindings_query_the_function_lists() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let script = common::root().join("tests/python/attrs_client.py");
    let program = [
        python.to_owned(),
        "-W".to_owned(),
        "ignore".to_owned(),
        script.to_string_lossy().into_owned(),
    ];
    let (ok, out, err) = common::pmixrun_job(2, &program, &[], "60");
    common::assert_ranks_ok(2, ok, &out, &err, "py attrs");
}

// ---------------------------------------------------------------------------
// pmix-info

/// Runs `pmix-info` with `args` (`TMPDIR` set to `tmp` when given);
/// returns (exit code, stdout, stderr).
fn pmix_info(args: &[&str], tmp: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmix-info"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(t) = tmp {
        cmd.env("TMPDIR", t);
    }
    let out = common::run_with_watchdog(&mut cmd, LIMIT, "pmix-info");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pmix_info_describes_the_library_and_its_functions() {
    let (code, out, _) = pmix_info(&[], None);
    assert_eq!(code, 0);
    assert!(
        out.contains("API level:          OpenPMIx 5.0.11") && out.contains("pmix-rs"),
        "{out}"
    );
    assert!(
        out.contains("Segments:") && out.contains("layout id"),
        "{out}"
    );
    let (code, out, _) = pmix_info(&["--version"], None);
    assert_eq!(
        (code, out.trim()),
        (0, pmix::strings::text(pmix::strings::VERSION))
    );

    let (code, out, _) = pmix_info(&["--attrs", "PMIx_Fence,PMIx_tool_init"], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("PMIx_Fence:") && out.contains("PMIx_tool_init:"),
        "{out}"
    );
    let timeout = out
        .lines()
        .find(|l| l.trim_start().starts_with("PMIX_TIMEOUT "))
        .unwrap_or_else(|| panic!("no PMIX_TIMEOUT line in\n{out}"));
    assert!(
        timeout.contains("pmix.timeout") && timeout.contains("PMIX_INT"),
        "{timeout}"
    );

    let (code, out, _) = pmix_info(&["--client"], None);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("CLIENT FUNCTIONS AND THE ATTRIBUTES THEY HONOUR:"),
        "{out}"
    );
    // A function honouring nothing says so.
    assert!(out.contains("PMIx_Commit:\n    NONE"), "{out}");
    let (code, out, _) = pmix_info(&["--server", "--functions"], None);
    assert_eq!(code, 0);
    assert!(out.contains("SERVER functions: PMIx_server_init,"), "{out}");
}

#[test]
fn pmix_info_says_what_is_wrong() {
    for args in [
        &["--bogus"][..],
        &["--attrs"],
        &["--functions"],
        &["--pid", "x", "--host"],
    ] {
        let (code, _, err) = pmix_info(args, None);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("usage: pmix-info"), "{args:?}: {err}");
    }
    let (code, out, _) = pmix_info(&["--help"], None);
    assert_eq!(code, 0);
    assert!(out.starts_with("usage: pmix-info"));
    let (code, _, err) = pmix_info(&["--attrs", "PMIx_Fence,PMIx_Nothing"], None);
    assert_eq!(code, 1);
    assert!(err.contains("no function PMIx_Nothing"), "{err}");
    let empty = common::scratch("pmix_info_no_server");
    let (code, _, err) = pmix_info(&["--host"], Some(&empty));
    assert_eq!(code, 1);
    assert!(err.contains("no PMIx server with tool support"), "{err}");
    assert!(err.contains("start one (pmixrun)"), "{err}");
}

/// `pmix-info --host` attaches to a running `pmixrun` and lists what its
/// host functions honour (spawn, job control, query); `--host
/// --functions` names them.
#[test]
fn pmix_info_asks_a_running_server_about_its_host() {
    let mut job = PmixrunJob::start(
        "attrs",
        &["-n", "1", "sh", "-c", "echo ready; exec sleep 60"],
    );
    job.out.wait_for("ready");
    let (code, out, err) = pmix_info(&["--host"], Some(job.tmp()));
    let (code2, out2, err2) = pmix_info(
        &["--host", "--functions", "--pid", &job.pid().to_string()],
        Some(job.tmp()),
    );
    job.end();
    drop(job);
    // pmixrun registers what its spawn, job control and query honour.
    assert_eq!(code, 0, "{out}{err}");
    for want in [
        "spawn:",
        "PMIX_WDIR",
        "PMIX_DEBUG_STOP_IN_INIT",
        "job_control:",
        "PMIX_JOB_CTRL_KILL",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert_eq!(code2, 0, "{out2}{err2}");
    assert!(out2.contains("job_control"), "{out2}");
}
