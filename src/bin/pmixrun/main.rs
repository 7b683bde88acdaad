//! `pmixrun`: single-node launcher hosting a PMIx server.
fn main() {
    eprintln!("pmixrun: the launcher is not implemented yet (see docs/FEATURES.md)");
    std::process::exit(1);
}
