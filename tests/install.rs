//! The install script puts the library, its SONAME link, the headers and a
//! pkg-config file under a prefix, and a C program builds against them with
//! nothing but `pkg-config --cflags --libs pmix` and runs on our library.

mod common;

use std::process::Command;

#[test]
fn installed_prefix_builds_and_runs_a_c_program_via_pkg_config() {
    let dir = common::scratch("install");
    let prefix = dir.join("prefix");
    let status = Command::new("bash")
        .arg(common::root().join("scripts/install.sh"))
        .args(["--debug", "--prefix"])
        .arg(&prefix)
        .status()
        .expect("run install.sh");
    assert!(status.success(), "install.sh failed");

    let lib = prefix.join("lib");
    assert!(lib.join("libpmix.so.2").is_file());
    assert_eq!(
        std::fs::read_link(lib.join("libpmix.so")).unwrap(),
        std::path::Path::new("libpmix.so.2")
    );
    for h in [
        "pmix.h",
        "pmix_common.h",
        "pmix_server.h",
        "pmix_tool.h",
        "pmix_version.h",
    ] {
        assert!(
            prefix.join("include").join(h).is_file(),
            "{h} not installed"
        );
    }

    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "pmix"])
        .env("PKG_CONFIG_PATH", lib.join("pkgconfig"))
        .env_remove("PKG_CONFIG_LIBDIR")
        .output()
        .expect("run pkg-config");
    assert!(flags.status.success(), "pkg-config does not know pmix");
    let flags = String::from_utf8(flags.stdout).unwrap();
    assert!(flags.contains(&format!("-I{}", prefix.join("include").display())));
    // A consumer's configure compares the version with the OpenPMIx API
    // it needs: the headers' level.
    let version = Command::new("pkg-config")
        .args(["--modversion", "pmix"])
        .env("PKG_CONFIG_PATH", lib.join("pkgconfig"))
        .env_remove("PKG_CONFIG_LIBDIR")
        .output()
        .expect("run pkg-config");
    assert_eq!(String::from_utf8_lossy(&version.stdout).trim(), "5.0.11");

    let src = dir.join("prog.c");
    std::fs::write(
        &src,
        r#"#include <pmix.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    const char *v = PMIx_Get_version();
    if (v == NULL || strstr(v, "OpenPMIx 5.0") == NULL) { return 2; }
    printf("%s\n", PMIx_Error_string(PMIX_ERR_NOT_FOUND));
    return 0;
}
"#,
    )
    .unwrap();
    let exe = dir.join("prog");
    let cc = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(flags.split_whitespace())
        .output()
        .expect("run cc");
    assert!(
        cc.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&cc.stderr)
    );

    // The rpath from pmix.pc must find our library without LD_LIBRARY_PATH.
    let run = Command::new(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    assert!(run.status.success(), "program failed: {:?}", run);
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "NOT-FOUND");
}
