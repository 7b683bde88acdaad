//! Which level of `pmix_server_module_t` a host handed us: OpenPMIx 4.2.2's
//! 28 slots, or 5.0's 29 (`session_control` appended).
//!
//! Nothing in the call says which headers the host was built with: a
//! 4.2.2 host's module ends where a 5.0 host's `session_control` begins,
//! and the bytes there belong to whatever the host placed next (another
//! variable, or an unmapped page). The library therefore copies the 28
//! slots every host has and takes the 29th only when all of these hold:
//!
//! - its 8 bytes are mapped readable (read with `process_vm_readv`, which
//!   fails instead of faulting);
//! - the value is NULL (no session control), or it points into an
//!   executable mapping of the same loaded object as the module's other
//!   functions (hosts define their module functions together): a leftover
//!   integer, string or data pointer fails this;
//! - `PMIX_RS_HOST_MODULE_LEVEL` is not `4` (a host that knows it passes
//!   4.2.2's struct and wants no guessing); `5` trusts the slot without
//!   the checks above (a host whose functions live in several objects).
//!
//! Invariant: the slot is read once, at `PMIx_server_init` (or
//! `PMIx_tool_set_server_module`), never through a plain dereference past
//! the 4.2.2 struct.

use crate::os;
use crate::sys::{pmix_server_module_t, SessionControlFn};

/// The environment variable that overrides the probe (`4` or `5`).
pub(crate) const LEVEL_ENV: &str = "PMIX_RS_HOST_MODULE_LEVEL";

/// Every function pointer of the 4.2.2 part of `module`, as addresses.
fn slots(module: &pmix_server_module_t) -> impl Iterator<Item = usize> + '_ {
    let n = std::mem::size_of::<pmix_server_module_t>() / std::mem::size_of::<usize>();
    let base: *const usize = (module as *const pmix_server_module_t).cast();
    (0..n).map(move |i| {
        // SAFETY: module is a whole pmix_server_module_t: n pointer-sized
        // slots, each readable as an address.
        unsafe { base.add(i).read() }
    })
}

/// The host's `session_control`, if `module` (a copy of which the caller
/// already holds as `copied`) is a 5.0 module that has one.
///
/// # Safety
/// `module` points to at least a 4.2.2 `pmix_server_module_t` (the bytes
/// after it are only read through [`os::read_own_memory`]).
pub(crate) unsafe fn session_control_slot(
    module: *const pmix_server_module_t,
    copied: &pmix_server_module_t,
) -> SessionControlFn {
    let level = std::env::var(LEVEL_ENV).ok();
    if level.as_deref() == Some("4") || module.is_null() {
        return None;
    }
    let at = module as usize + std::mem::size_of::<pmix_server_module_t>();
    let mut raw = [0u8; std::mem::size_of::<usize>()];
    if !os::read_own_memory(at, &mut raw) {
        return None;
    }
    let f = usize::from_ne_bytes(raw);
    if f == 0 {
        return None;
    }
    if level.as_deref() != Some("5") && !plausible(f, copied) {
        return None;
    }
    // SAFETY: f is non-zero and, by the checks above (or the host's own
    // word through the environment), the host's session_control function;
    // Option<fn> is a nullable function pointer, as the slot is.
    unsafe { std::mem::transmute::<usize, SessionControlFn>(f) }
}

/// Whether `f` looks like one of the host's functions: executable, and
/// in the object that holds the module's other functions.
fn plausible(f: usize, module: &pmix_server_module_t) -> bool {
    if !os::executable(f) {
        return false;
    }
    let Some(object) = os::object_base(f) else {
        return false;
    };
    let mut others = slots(module).filter(|&p| p != 0).peekable();
    others.peek().is_some() && others.all(|p| os::object_base(p) == Some(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::{pmix_info_cbfunc_t, pmix_info_t, pmix_proc_t, pmix_status_t};
    use std::ffi::c_void;

    unsafe extern "C" fn ours(
        _: *const pmix_proc_t,
        _: u32,
        _: *const pmix_info_t,
        _: usize,
        _: pmix_info_cbfunc_t,
        _: *mut c_void,
    ) -> pmix_status_t {
        0
    }

    unsafe extern "C" fn finalized(
        _: *const pmix_proc_t,
        _: *mut c_void,
        _: crate::sys::pmix_op_cbfunc_t,
        _: *mut c_void,
    ) -> pmix_status_t {
        0
    }

    /// A 5.0 module: the 4.2.2 struct and the slot after it.
    #[repr(C)]
    struct V5 {
        old: pmix_server_module_t,
        session_control: SessionControlFn,
    }

    fn v4_module() -> pmix_server_module_t {
        pmix_server_module_t {
            client_finalized: Some(finalized),
            ..Default::default()
        }
    }

    #[test]
    fn a_5_0_module_gives_its_slot() {
        let m = V5 {
            old: v4_module(),
            session_control: Some(ours),
        };
        // SAFETY: m is a whole 5.0 module.
        let got = unsafe { session_control_slot(&m.old, &m.old) };
        assert_eq!(
            got.map(|f| f as *const () as usize),
            Some(ours as *const () as usize)
        );
    }

    #[test]
    fn what_follows_a_4_2_module_is_not_taken_for_a_function() {
        // Data after the struct: an integer, a data pointer, a string.
        let data = 42u64;
        for after in [
            0x2a_usize,
            &data as *const u64 as usize,
            c"text".as_ptr() as usize,
        ] {
            #[repr(C)]
            struct Followed {
                old: pmix_server_module_t,
                next: usize,
            }
            let m = Followed {
                old: v4_module(),
                next: after,
            };
            // SAFETY: m.old is a whole 4.2.2 module.
            assert!(unsafe { session_control_slot(&m.old, &m.old) }.is_none());
        }
    }

    #[test]
    fn a_4_2_module_at_the_end_of_its_mapping_is_not_read_past() {
        let page = 4096;
        // SAFETY: an anonymous two-page mapping; the second page is made
        // inaccessible, so the module ends where readable memory ends.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            assert_eq!(
                libc::mprotect(p.cast::<u8>().add(page).cast(), page, libc::PROT_NONE),
                0
            );
            let size = std::mem::size_of::<pmix_server_module_t>();
            let at = p
                .cast::<u8>()
                .add(page - size)
                .cast::<pmix_server_module_t>();
            at.write(v4_module());
            assert!(session_control_slot(at, &*at).is_none());
            libc::munmap(p, 2 * page);
        }
    }
}
