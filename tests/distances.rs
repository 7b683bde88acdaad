//! `PMIx_Compute_distances`/`_nb` (issue 26) on hand-written hwloc XML
//! topologies with GPUs and NICs (`tests/data/topo_*.xml`), run by
//! `tests/c/distances.c`: every answer checked against hand-computed
//! distances, the cases the reference answers alike side by side with
//! OpenPMIx 4.2.2 (Debian's; its algorithm is 5.0.11's), and bad input.
//!
//! The hand computation (`tests/data/topo_gpus_nics.xml`, depth 6:
//! machine 0, package 1, L3 2, L2 3, core 4, PU 5): a device sits at its
//! nearest ancestor with a cpuset; a PU sharing an object of depth `d`
//! with it is at `6 - d`, one sharing only the machine at `5 + 6 = 11`.
//! So from PU 0: eth0 (under core 0's L2, depth 3) 3, ib0 and mlx5_0
//! (package 0) 5, the GPU and cuda0 (package 1) and eth1 (machine) 11;
//! from PU 2 eth0 is 4 (they share the L3).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn data(name: &str) -> PathBuf {
    common::root().join("tests/data").join(name)
}

/// Runs the program `exe` on the library in `libdir` with `args`; its
/// standard output, after checking it exited 0.
fn run(exe: &Path, libdir: &Path, args: &[&Path], tag: &str) -> String {
    let tmp = common::scratch(&format!("distances-run-{tag}"));
    let out = common::run_with_watchdog(
        Command::new(exe)
            .args(args)
            .env("LD_LIBRARY_PATH", libdir)
            .env("TMPDIR", &tmp)
            .env("PMIX_SERVER_TMPDIR", &tmp)
            .env("PMIX_SYSTEM_TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        tag,
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{tag}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The answers from PU 0, PU 5 and PU 2 that OpenPMIx gives alike.
fn compat_lines(host: &str) -> String {
    let pu0 = format!(
        "  gpu://{host}::renderD128 renderD128 type=0x2 min=11 max=11\n\
         \x20 ipv4://00:11:22:33:44:55 eth0 type=0x4 min=3 max=3\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=5 max=5\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         \x20 fab://0c42:a103:005e:419a::0c42:a103:005e:419a mlx5_0 type=0x8 min=5 max=5\n"
    );
    format!(
        "pu0 gpu+net+fabric -> SUCCESS n=5\n{pu0}\
         pu0 gpu+net+fabric (nb) -> SUCCESS n=5\n{pu0}\
         pu5 gpu+net+fabric -> SUCCESS n=5\n\
         \x20 gpu://{host}::renderD128 renderD128 type=0x2 min=5 max=5\n\
         \x20 ipv4://00:11:22:33:44:55 eth0 type=0x4 min=11 max=11\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=11 max=11\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         \x20 fab://0c42:a103:005e:419a::0c42:a103:005e:419a mlx5_0 type=0x8 min=11 max=11\n\
         pu2 id eth1 -> SUCCESS n=1\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         pu2 id ib0's uuid -> SUCCESS n=1\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=5 max=5\n"
    )
}

fn host() -> String {
    pmix::server::local_hostname()
}

#[test]
fn distances_match_hand_computed_answers() {
    let exe = common::build_c(
        "tests/c/distances.c",
        "distances-ours",
        "distances",
        &common::include_dir(),
        &["-lhwloc", "-pthread"],
    );
    let got = run(
        &exe,
        common::ffi_lib_dir(),
        &[
            Path::new("all"),
            &data("topo_gpus_nics.xml"),
            &data("topo_unnamed_nic.xml"),
        ],
        "distances-all",
    );
    let h = host();
    let gnf_pu0_pu2 = format!(
        "  gpu://{h}::renderD128 renderD128 type=0x2 min=11 max=11\n\
         \x20 ipv4://00:11:22:33:44:55 eth0 type=0x4 min=3 max=4\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=5 max=5\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         \x20 fab://0c42:a103:005e:419a::0c42:a103:005e:419a mlx5_0 type=0x8 min=5 max=5\n"
    );
    let want = format!(
        "{compat}\
         pu0 default types -> SUCCESS n=6\n\
         \x20 gpu://{h}::renderD128 renderD128 type=0x2 min=11 max=11\n\
         \x20 ipv4://00:11:22:33:44:55 eth0 type=0x4 min=3 max=3\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=5 max=5\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         \x20 fab://0c42:a103:005e:419a::0c42:a103:005e:419a mlx5_0 type=0x8 min=5 max=5\n\
         \x20 gpu://{h}::cuda0 cuda0 type=0x20 min=11 max=11\n\
         pu0 block -> SUCCESS n=1\n\
         \x20 blk://{h}::sda sda type=0x1 min=11 max=11\n\
         pu0 coprocessor (nb) -> SUCCESS n=1\n\
         \x20 gpu://{h}::cuda0 cuda0 type=0x20 min=11 max=11\n\
         core0 -> SUCCESS n=5\n\
         \x20 gpu://{h}::renderD128 renderD128 type=0x2 min=11 max=11\n\
         \x20 ipv4://00:11:22:33:44:55 eth0 type=0x4 min=3 max=3\n\
         \x20 ipv6://00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5e:41:9a ib0 type=0x4 min=5 max=5\n\
         \x20 ipv4://aa:bb:cc:dd:ee:01 eth1 type=0x4 min=11 max=11\n\
         \x20 fab://0c42:a103:005e:419a::0c42:a103:005e:419a mlx5_0 type=0x8 min=5 max=5\n\
         pu0+pu2 -> SUCCESS n=5\n{gnf_pu0_pu2}\
         unnamed nic skipped -> SUCCESS n=1\n\
         \x20 ipv4://02:00:00:00:00:01 eth2 type=0x4 min=3 max=3\n\
         two packages -> NOT_AVAILABLE n=0\n\
         empty cpuset -> BAD-PARAM n=0\n\
         empty cpuset (nb) -> BAD-PARAM n=0\n\
         unknown device type -> BAD-PARAM n=0\n\
         device type as a string -> BAD-PARAM n=0\n\
         dma only -> NOT-FOUND n=0\n\
         unknown id -> NOT-FOUND n=0\n\
         topology without source -> BAD-PARAM n=0\n\
         topology without object -> BAD-PARAM n=0\n\
         topology of another source -> NOT-SUPPORTED n=0\n\
         cpuset without bitmap -> BAD-PARAM n=0\n\
         cpuset of another source -> NOT-SUPPORTED n=0\n\
         info NULL, ninfo 1 -> BAD-PARAM n=0\n\
         NULL distances -> BAD-PARAM n=0\n\
         NULL ndist -> BAD-PARAM n=0\n\
         nb NULL callback -> BAD-PARAM n=0\n\
         this node -> answered named=1\n\
         done\n",
        compat = compat_lines(&h)
    );
    assert_eq!(got, want, "got:\n{got}");
}

#[test]
fn distances_side_by_side_with_openpmix_4_2_2() {
    let Some((ref_inc, ref_lib)) = common::reference_pmix() else {
        return;
    };
    let exe = common::build_once("distances-reference", "distances", |exe| {
        common::compile_c(
            &[&common::root().join("tests/c/distances.c")],
            exe,
            &ref_inc,
            &ref_lib,
            &["-lhwloc", "-pthread"],
        )
    });
    let args = [Path::new("compat"), &data("topo_gpus_nics.xml")];
    let reference = run(&exe, &ref_lib, &args, "distances-reference");
    let ours = run(&exe, common::ffi_lib_dir(), &args, "distances-compat-ours");
    assert_eq!(ours, reference, "ours differs from OpenPMIx 4.2.2");
    assert_eq!(ours, format!("{}done\n", compat_lines(&host())));
}

/// The server derives `PMIX_DEVICE_DISTANCES` for a rank registered with
/// a `PMIX_CPUSET` (PU 0 of the XML topology: the default types' distances
/// above), and the rank reads it (tests/c/distances_host.c).
#[test]
fn a_bound_rank_reads_its_device_distances() {
    let exe = common::build_once("distances-host", "distances_host", |exe| {
        common::compile_c(
            &[&common::root().join("tests/c/distances_host.c")],
            exe,
            &common::include_dir(),
            common::ffi_lib_dir(),
            &["-pthread"],
        )
    });
    let tmp = common::scratch("distances-host-run");
    let out = common::run_with_watchdog(
        Command::new(&exe)
            .env("HWLOC_XMLFILE", data("topo_gpus_nics.xml"))
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        "distances_host",
    );
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{got}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        got,
        "rank 0: n=6\n\
         \x20 renderD128 type=0x2 min=11 max=11\n\
         \x20 eth0 type=0x4 min=3 max=3\n\
         \x20 ib0 type=0x4 min=5 max=5\n\
         \x20 eth1 type=0x4 min=11 max=11\n\
         \x20 mlx5_0 type=0x8 min=5 max=5\n\
         \x20 cuda0 type=0x20 min=11 max=11\n"
    );
}
