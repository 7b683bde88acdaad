//! `PMIX_TCP_REPORT_URI`: the server tells its URI once it listens, for a
//! launcher or a tool that reads it: `-` to this process's stdout, `+` to
//! its stderr, anything else names a file, written with the URI on its
//! first line and, on its second, `v` and the OpenPMIx version whose API
//! we provide, as OpenPMIx writes its own.
//!
//! The URI is ours (`<nspace>.<rank>;unix://<socket>`), not OpenPMIx's
//! `tcp4://` one: our tools connect to it. OpenPMIx also takes a number
//! (a pipe's descriptor to write `<variable>;<uri>` to); we treat it as a
//! file name.

use std::io::Write;

/// Writes `uri` where `target` says.
pub(in crate::server) fn report(target: &str, uri: &str) -> std::io::Result<()> {
    match target {
        "-" => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{uri}")?;
            out.flush()
        }
        "+" => writeln!(std::io::stderr().lock(), "{uri}"),
        path => {
            // The OpenPMIx release whose API we provide ("5.0.11").
            let api = crate::strings::API_LEVEL
                .rsplit(' ')
                .next()
                .unwrap_or_default();
            std::fs::write(path, format!("{uri}\nv{api}\n"))
        }
    }
}
