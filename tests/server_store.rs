//! A server process's own store: `PMIx_Store_internal` and `PMIx_Get`
//! after `PMIx_server_init` without `PMIx_Init` (Open MPI's `mpirun`
//! stores its contact URI so and aborts when that fails: "store uri
//! failed", docs/INTEROP.md). Runs tests/c/server_store.c on our library.

mod common;

use std::process::Command;

#[test]
fn host_process_stores_and_gets_its_own_values() {
    let dir = common::scratch("server_store");
    let bin = dir.join("server_store");
    common::compile_c(
        &[&common::root().join("tests/c/server_store.c")],
        &bin,
        &common::include_dir(),
        common::ffi_lib_dir(),
        &[],
    );
    let out = Command::new(&bin)
        .arg(&dir)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .output()
        .expect("run server_store");
    assert!(
        out.status.success(),
        "server_store failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("server_store ok"));
}
