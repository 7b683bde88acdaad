//! Gives the shared object the SONAME of the library it replaces.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpmix.so.2");
    println!("cargo:rerun-if-changed=build.rs");
}
