//! Helpers shared by the integration tests: building the C library and
//! compiling C programs against our headers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Our C headers.
pub fn include_dir() -> PathBuf {
    root().join("include")
}

/// Builds `libpmix.so` (crate `pmix-ffi`) once per test binary and returns a
/// directory holding it under its SONAME `libpmix.so.2` and as `libpmix.so`,
/// ready for `-L` and `LD_LIBRARY_PATH`.
pub fn ffi_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let release = !cfg!(debug_assertions);
        let mut cmd = Command::new(cargo);
        cmd.current_dir(root()).args(["build", "-p", "pmix-ffi"]);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build -p pmix-ffi");
        assert!(status.success(), "cargo build -p pmix-ffi failed");
        let target = std::env::var("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root().join("target"));
        let built = target
            .join(if release { "release" } else { "debug" })
            .join("libpmix.so");
        let dir = target
            .join("pmix-lib")
            .join(if release { "release" } else { "debug" });
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["libpmix.so.2", "libpmix.so"] {
            let dst = dir.join(name);
            let _ = std::fs::remove_file(&dst);
            std::os::unix::fs::symlink(&built, &dst).unwrap();
        }
        dir
    })
}

/// Where the reference OpenPMIx 4.2 (Debian `libpmix-dev`) is installed, if
/// it is: `(include dir, lib dir)`. When it is missing this prints why the
/// caller will skip, or panics if `PMIX_REQUIRE_REFERENCE=1` (as in CI),
/// so that CI never silently skips a comparison.
pub fn reference_pmix() -> Option<(PathBuf, PathBuf)> {
    let base = Path::new("/usr/lib/x86_64-linux-gnu/pmix2");
    let inc = base.join("include");
    let lib = base.join("lib");
    if inc.join("pmix.h").exists() && lib.join("libpmix.so.2").exists() {
        return Some((inc, lib));
    }
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but the reference OpenPMIx is not installed"
    );
    eprintln!("SKIPPED: reference OpenPMIx not installed (apt-get install libpmix-dev)");
    None
}

/// A scratch directory for one test, emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles C sources into `out` against the given include and library
/// directories (linking `-lpmix`), panicking with the compiler's output on
/// failure.
pub fn compile_c(sources: &[&Path], out: &Path, include: &Path, libdir: &Path, extra: &[&str]) {
    let output = Command::new("cc")
        .args(["-std=gnu11", "-Wall", "-Werror", "-g", "-O0"])
        .arg("-I")
        .arg(include)
        .args(sources)
        .arg("-o")
        .arg(out)
        .arg("-L")
        .arg(libdir)
        .arg("-lpmix")
        .args(extra)
        .output()
        .expect("run cc");
    assert!(
        output.status.success(),
        "cc failed for {:?}:\n{}",
        sources,
        String::from_utf8_lossy(&output.stderr)
    );
}
