//! Test support: a small C program compiled with the system's `cc` and
//! run, for the tests that compare a Rust mirror with the C compiler's
//! view of a header (ours, the reference's, hwloc's).

use std::path::Path;
use std::process::Command;

/// Compiles `source` (`-std=gnu11 -w`, `include` on the include path
/// when given) in a scratch directory named after `tag`, runs it and
/// returns its standard output; `Err` with the compiler's messages when
/// it does not compile. Fails the test if the program fails.
pub(crate) fn try_output(
    tag: &str,
    include: Option<&Path>,
    source: &str,
) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("pmix-ffi-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, exe) = (dir.join(format!("{tag}.c")), dir.join(tag));
    std::fs::write(&src, source).unwrap();
    let mut cc = Command::new("cc");
    cc.args(["-std=gnu11", "-w"]);
    if let Some(include) = include {
        cc.arg("-I").arg(include);
    }
    let built = cc.arg(&src).arg("-o").arg(&exe).output().expect("run cc");
    let out = built
        .status
        .success()
        .then(|| Command::new(&exe).output().expect("run the C program"));
    let _ = std::fs::remove_dir_all(&dir);
    let Some(out) = out else {
        return Err(String::from_utf8_lossy(&built.stderr).into_owned());
    };
    assert!(
        out.status.success(),
        "the {tag} program failed: {}",
        out.status
    );
    Ok(String::from_utf8(out.stdout).expect("ASCII output"))
}

/// [`try_output`], failing the test when the program does not compile.
pub(crate) fn output(tag: &str, include: Option<&Path>, source: &str) -> String {
    try_output(tag, include, source).unwrap_or_else(|e| panic!("cc failed on {tag}:\n{e}"))
}
