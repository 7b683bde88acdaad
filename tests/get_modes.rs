//! Copy, static and pointer gets agree and follow the data across
//! collecting fences (`tests/c/get_modes.c` under `pmixrun`): the
//! library's per-generation caches must never return a superseded value.

use std::process::{Command, Stdio};

mod common;

#[test]
fn get_modes_agree_across_fences_n3() {
    let dir = common::scratch(&format!("get_modes_{}", std::process::id()));
    let exe = dir.join("get_modes");
    let src = common::root().join("tests/c/get_modes.c");
    let lib = common::ffi_lib_dir();
    common::compile_c(&[&src], &exe, &common::include_dir(), lib, &[]);
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "120", "-n", "3"])
        .arg(&exe)
        .env("LD_LIBRARY_PATH", lib)
        .stdin(Stdio::null())
        .output()
        .expect("pmixrun starts");
    assert!(
        o.status.success(),
        "{}\n{}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
