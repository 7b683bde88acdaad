//! The value, info and string programs of `tests/c/compat/`, compiled
//! against *our* headers and run on our library, print exactly what they
//! print compiled against the reference headers and run on the reference.
//! This checks that software rebuilt against our `include/` sees the same
//! macros, layouts and constants as software built against OpenPMIx.

mod common;

use std::path::Path;
use std::process::Command;

const PROGRAMS: &[&str] = &["strings.c", "values.c", "values_hwloc.c"];

fn run(exe: &Path, libdir: &Path) -> String {
    let out = Command::new(exe)
        .env("LD_LIBRARY_PATH", libdir)
        .output()
        .expect("run test program");
    assert!(
        out.status.success(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn programs_built_on_our_headers_match_the_reference() {
    let Some((ref_inc, ref_lib)) = common::reference_pmix() else {
        eprintln!("reference OpenPMIx not installed; skipped");
        return;
    };
    if !common::include_dir().join("pmix.h").exists() {
        eprintln!("include/pmix.h not written yet; skipped");
        return;
    }
    let ours = common::ffi_lib_dir();
    let dir = common::scratch("values_own_headers");
    let mut failures = Vec::new();
    for name in PROGRAMS {
        let src = common::root().join("tests/c/compat").join(name);
        let stem = name.trim_end_matches(".c");
        // Same file name in both builds: a topology prints the program name.
        std::fs::create_dir_all(dir.join("reference")).unwrap();
        std::fs::create_dir_all(dir.join("own")).unwrap();
        let reference_exe = dir.join("reference").join(stem);
        let own_exe = dir.join("own").join(stem);
        common::compile_c(&[&src], &reference_exe, &ref_inc, &ref_lib, &["-lhwloc"]);
        common::compile_c(
            &[&src],
            &own_exe,
            &common::include_dir(),
            ours,
            &["-lhwloc"],
        );
        let expected = run(&reference_exe, &ref_lib);
        let got = run(&own_exe, ours);
        if expected != got {
            let line = expected
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            failures.push(format!(
                "{name}: first difference at line {}:\n  reference: {:?}\n  ours:      {:?}",
                line + 1,
                expected.lines().nth(line),
                got.lines().nth(line)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
