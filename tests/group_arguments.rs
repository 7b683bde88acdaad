//! The argument checks of the `PMIx_Group_*` entry points, which need no
//! group support in the server:
//! - `tests/c/group_args.c`, a client connected to `pmixrun`, gets
//!   `PMIX_ERR_BAD_PARAM` for every bad argument of every group call
//!   (blocking and non-blocking), and no callback of a refused call;
//! - before any init they return `PMIX_ERR_INIT` (`tests/c/stubs_smoke.c`,
//!   in `tests/exports.rs`), in a singleton `PMIX_ERR_UNREACH` before
//!   looking at their arguments (`tests/c/singleton.c`, in
//!   `tests/leftovers.rs`, also on the reference OpenPMIx).
//!
//! Every job runs under `pmixrun --timeout`; nothing sleeps to
//! synchronize.

mod common;

const LIMIT: &str = "120";

#[test]
fn connected_client_group_calls_refuse_bad_arguments() {
    let exe = common::build_c(
        "tests/c/group_args.c",
        &format!("group_arguments_{}", std::process::id()),
        "group_args",
        &common::include_dir(),
        &[],
    );
    for n in [1, 2] {
        let (ok, out, err) = common::pmixrun_job(n, &[exe.display().to_string()], &[], LIMIT);
        common::assert_ranks_ok(n, ok, &out, &err, "group_args");
    }
}
