//! `PMIx_server_collect_inventory` and `PMIx_server_deliver_inventory`
//! (issue 26): `tests/c/inventory_host.c`, a server with no host module,
//! on the hand-written topology `tests/data/topo_gpus_nics.xml` (given to
//! hwloc with `HWLOC_XMLFILE`): the inventory's keys and what they hold,
//! the deliveries and the bad input; then a rank of a job registered
//! afterwards reads the delivered node's memory and fabric devices as
//! that node's data (`PMIX_NODE_INFO` with `PMIX_HOSTNAME`). (OpenPMIx 4.2.2 and 5.0.11 collect
//! an empty inventory: their only inventory plugin reports nothing, so
//! there is no key list to compare with.)

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn inventory_of_a_node_with_gpus_and_nics_reaches_a_later_job() {
    let exe = common::build_c(
        "tests/c/inventory_host.c",
        "inventory-host",
        "inventory_host",
        &common::include_dir(),
        &["-lhwloc", "-pthread"],
    );
    let tmp = common::scratch("inventory-run");
    let out = common::run_with_watchdog(
        Command::new(&exe)
            .env(
                "HWLOC_XMLFILE",
                common::root().join("tests/data/topo_gpus_nics.xml"),
            )
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        Duration::from_secs(60),
        "inventory_host",
    );
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{got}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The synthetic XML gives no memory size: no PMIX_AVAIL_PHYS_MEMORY.
    // The XML export keeps hwloc's important I/O objects (not the block
    // device).
    let want = "collect -> SUCCESS\n\
        collected -> SUCCESS n=3\n\
        key pmix.hname this-host=1\n\
        key pmix.hwlocxml2 pus=8 osdevs=8\n\
        key pmix.fab.devs\n\
        \x20 pmix.fabdev: pmix.dev.id=ipv4://00:11:22:33:44:55 pmix.fabdev.nm=eth0\n\
        \x20 pmix.fabdev: pmix.dev.id=ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a pmix.fabdev.nm=ib0\n\
        \x20 pmix.fabdev: pmix.dev.id=ipv4://aa:bb:cc:dd:ee:01 pmix.fabdev.nm=eth1\n\
        \x20 pmix.fabdev: pmix.dev.id=fab://0c42:a103:005e:419a::0c42:a103:005e:419a pmix.fabdev.nm=mlx5_0\n\
        deliver -> SUCCESS\n\
        delivered -> SUCCESS\n\
        deliver blocking -> OPERATION-SUCCEEDED\n\
        deliver without hostname -> BAD-PARAM\n\
        collect NULL callback -> BAD-PARAM\n\
        collect NULL directives, ndirs 1 -> BAD-PARAM\n\
        register job -> SUCCESS\n\
        othernode memory=1024 fabric devices=4\n\
        client exit -> 0\n\
        done\n";
    assert_eq!(got, want);
}
