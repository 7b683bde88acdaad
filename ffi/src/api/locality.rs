//! Topology, cpuset and locality helpers: `PMIx_Load_topology`,
//! `PMIx_Get_cpuset`, `PMIx_Parse_cpuset_string`,
//! `PMIx_Get_relative_locality`, `PMIx_server_generate_cpuset_string` and
//! `PMIx_server_generate_locality_string`.
//!
//! None of them needs a server, so none needs initialization (OpenPMIx 4.2
//! refuses all but the two `server_generate` calls with `PMIX_ERR_INIT`
//! before an init). Cpusets and topologies are hwloc objects, as in
//! OpenPMIx; the library links the system's `libhwloc.so.15` dynamically,
//! as OpenPMIx does, so bitmaps and topologies pass freely between the
//! caller's hwloc and ours. The node topology is discovered once, on first
//! need, with OpenPMIx's settings (important I/O objects kept, no flags).
//!
//! Output formats are OpenPMIx 4.2.2's: `hwloc:<list>` for cpuset strings
//! and the bare token list described in [`pmix_core::locality`] for
//! locality strings. Where OpenPMIx leaks its internal "try the next
//! plugin" status for a source other than hwloc, these return
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_uint, CStr, CString};
use std::sync::OnceLock;

use pmix_core::locality::IndexList;
use pmix_core::Status;

use crate::boundary::{guard, malloc_cstr, opt_cstr};
use crate::nonnull;
use crate::sys::hwloc::{
    self as hw, hwloc_bitmap_alloc, hwloc_bitmap_free, hwloc_bitmap_list_asprintf,
    hwloc_bitmap_list_sscanf, hwloc_bitmap_t, hwloc_topology_destroy, hwloc_topology_dup,
    hwloc_topology_init, hwloc_topology_load, hwloc_topology_set_flags,
    hwloc_topology_set_io_types_filter, hwloc_topology_t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT,
};
use crate::sys::{pmix_cpuset_t, pmix_topology_t, PMIX_CPUBIND_PROCESS, PMIX_CPUBIND_THREAD};

/// The node's topology, discovered once and never destroyed (callers of
/// `PMIx_Load_topology` get their own copy).
struct NodeTopology(hwloc_topology_t);

// SAFETY: the topology is fully loaded before it is shared and is only
// read afterwards; hwloc documents concurrent read-only use of a loaded
// topology as safe.
unsafe impl Send for NodeTopology {}
// SAFETY: as above: shared read-only after loading.
unsafe impl Sync for NodeTopology {}

/// The node topology, discovering it on first use.
pub(crate) fn node_topology() -> Result<hwloc_topology_t, Status> {
    static TOPO: OnceLock<Result<NodeTopology, Status>> = OnceLock::new();
    TOPO.get_or_init(|| {
        let mut t: hwloc_topology_t = std::ptr::null_mut();
        // SAFETY: t receives a new topology handle.
        if unsafe { hwloc_topology_init(&mut t) } != 0 {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        // SAFETY: t is an initialized, not yet loaded topology, destroyed
        // on every failure path and otherwise kept for the process's life.
        unsafe {
            if hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0
                || hwloc_topology_set_flags(t, 0) != 0
                || hwloc_topology_load(t) != 0
            {
                hwloc_topology_destroy(t);
                return Err(Status::ERR_NOT_SUPPORTED);
            }
        }
        Ok(NodeTopology(t))
    })
    .as_ref()
    .map(|t| t.0)
    .map_err(|s| *s)
}

/// True if `source` names hwloc (`strncasecmp(source, "hwloc", 5) == 0`).
fn is_hwloc(source: &CStr) -> bool {
    let b = source.to_bytes();
    b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"hwloc")
}

/// The cpuset's source: `Err(BAD_PARAM)` for NULL, `Err(NOT_SUPPORTED)`
/// for a source other than hwloc.
///
/// # Safety
/// `cpuset.source` must be NULL or a valid C string.
unsafe fn require_hwloc_source(cpuset: &pmix_cpuset_t) -> Result<(), Status> {
    // SAFETY: per the contract above.
    let source = unsafe { opt_cstr(cpuset.source) }.ok_or(Status::ERR_BAD_PARAM)?;
    if is_hwloc(source) {
        Ok(())
    } else {
        Err(Status::ERR_NOT_SUPPORTED)
    }
}

/// The hwloc list form of a bitmap (`0-3,8`).
///
/// # Safety
/// `bitmap` must be a valid hwloc bitmap.
unsafe fn bitmap_list(bitmap: hwloc_bitmap_t) -> Result<CString, Status> {
    let mut s: *mut c_char = std::ptr::null_mut();
    // SAFETY: bitmap is valid; s receives a malloc'ed string.
    if unsafe { hwloc_bitmap_list_asprintf(&mut s, bitmap) } < 0 || s.is_null() {
        return Err(Status::ERR_NOMEM);
    }
    // SAFETY: s is the NUL-terminated string hwloc just allocated.
    let owned = unsafe { CStr::from_ptr(s) }.to_owned();
    // SAFETY: s came from malloc (hwloc's asprintf) and is freed once.
    unsafe { libc::free(s.cast()) };
    Ok(owned)
}

/// `PMIx_server_generate_cpuset_string`: `hwloc:<list>`, `malloc`ed.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset_string(
    cpuset: *const pmix_cpuset_t,
    cpuset_string: *mut *mut c_char,
) -> c_int {
    guard(|| {
        nonnull!(cpuset, cpuset_string);
        // SAFETY: both non-NULL; the caller owns them.
        let (cpuset, out) = unsafe { (&*cpuset, &mut *cpuset_string) };
        *out = std::ptr::null_mut();
        nonnull!(cpuset.bitmap);
        // SAFETY: source is NULL or a C string per the C API.
        unsafe { require_hwloc_source(cpuset) }?;
        // SAFETY: an hwloc source means an hwloc bitmap.
        let list = unsafe { bitmap_list(cpuset.bitmap) }?;
        let mut s = b"hwloc:".to_vec();
        s.extend_from_slice(list.to_bytes());
        let s = CString::new(s).map_err(|_| Status::ERROR)?;
        *out = malloc_cstr(&s)?;
        Ok(())
    })
}

/// `PMIx_Parse_cpuset_string`: loads `cpuset` (source `hwloc`, a new
/// bitmap) from `hwloc:<list>`. The caller releases it with
/// `PMIx_Cpuset_destruct`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(
    cpuset_string: *const c_char,
    cpuset: *mut pmix_cpuset_t,
) -> c_int {
    guard(|| {
        nonnull!(cpuset_string, cpuset);
        // SAFETY: a non-NULL C string per the C API.
        let s = unsafe { CStr::from_ptr(cpuset_string) }.to_bytes();
        let colon = s
            .iter()
            .position(|&b| b == b':')
            .ok_or(Status::ERR_BAD_PARAM)?;
        let (source, list) = (&s[..colon], &s[colon + 1..]);
        if source.len() < 5 || !source[..5].eq_ignore_ascii_case(b"hwloc") {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        let list = CString::new(list).map_err(|_| Status::ERR_BAD_PARAM)?;
        // SAFETY: no preconditions; checked for NULL.
        let bitmap = unsafe { hwloc_bitmap_alloc() };
        if bitmap.is_null() {
            return Err(Status::ERR_NOMEM);
        }
        // SAFETY: bitmap is valid, list a C string.
        if unsafe { hwloc_bitmap_list_sscanf(bitmap, list.as_ptr()) } != 0 {
            // SAFETY: allocated above, not handed out.
            unsafe { hwloc_bitmap_free(bitmap) };
            return Err(Status::ERR_BAD_PARAM);
        }
        let source = match malloc_cstr(c"hwloc") {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: allocated above, not handed out.
                unsafe { hwloc_bitmap_free(bitmap) };
                return Err(e);
            }
        };
        // SAFETY: cpuset is non-NULL and the caller's to fill.
        unsafe {
            (*cpuset).source = source;
            (*cpuset).bitmap = bitmap;
        }
        Ok(())
    })
}

/// The locality string of `bitmap` on `topo`: for each level of packages,
/// caches, cores and PUs (top down), then the NUMA nodes, the code and
/// logical indexes of the objects the bitmap touches; `None` if it touches
/// nothing.
///
/// # Safety
/// `topo` must be a loaded topology and `bitmap` a valid hwloc bitmap.
unsafe fn locality_string(topo: hwloc_topology_t, bitmap: hwloc_bitmap_t) -> Option<String> {
    // Logical indexes of the objects at `depth` whose cpuset meets bitmap.
    let touched = |depth: c_int| -> IndexList {
        // SAFETY: topo is loaded; depth is a level of it (or the NUMA
        // virtual depth); objects and their cpusets belong to topo.
        unsafe {
            let width = hw::hwloc_get_nbobjs_by_depth(topo, depth);
            IndexList::from_indexes((0..width).filter_map(|w: c_uint| {
                let obj = hw::hwloc_get_obj_by_depth(topo, depth, w);
                (!obj.is_null()
                    && !(*obj).cpuset.is_null()
                    && hw::hwloc_bitmap_intersects((*obj).cpuset, bitmap) != 0)
                    .then_some(u64::from(w))
            }))
        }
    };
    let mut tokens: Vec<String> = Vec::new();
    // SAFETY: topo is loaded.
    let depth = unsafe { hw::hwloc_topology_get_depth(topo) };
    for d in 1..depth {
        // SAFETY: d is a level of topo.
        let code = match unsafe { hw::hwloc_get_depth_type(topo, d) } {
            hw::HWLOC_OBJ_NUMANODE => "NM",
            hw::HWLOC_OBJ_PACKAGE => "SK",
            hw::HWLOC_OBJ_L3CACHE => "L3",
            hw::HWLOC_OBJ_L2CACHE => "L2",
            hw::HWLOC_OBJ_L1CACHE => "L1",
            hw::HWLOC_OBJ_CORE => "CR",
            hw::HWLOC_OBJ_PU => "HT",
            _ => continue,
        };
        let set = touched(d);
        if !set.is_empty() {
            tokens.push(format!("{code}{set}"));
        }
    }
    let numa = touched(hw::HWLOC_TYPE_DEPTH_NUMANODE);
    if !numa.is_empty() {
        tokens.push(format!("NM{numa}"));
    }
    (!tokens.is_empty()).then(|| tokens.join(":"))
}

/// `PMIx_server_generate_locality_string`: the locality string of the PUs
/// in `cpuset` on this node, `malloc`ed; NULL (and success) for a process
/// that is not bound (no bitmap, or all PUs).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_locality_string(
    cpuset: *const pmix_cpuset_t,
    locality: *mut *mut c_char,
) -> c_int {
    guard(|| {
        nonnull!(cpuset, locality);
        // SAFETY: both non-NULL; the caller owns them.
        let (cpuset, out) = unsafe { (&*cpuset, &mut *locality) };
        // SAFETY: source is NULL or a C string per the C API.
        unsafe { require_hwloc_source(cpuset) }?;
        // SAFETY: an hwloc source means an hwloc bitmap (or NULL).
        if cpuset.bitmap.is_null() || unsafe { hw::hwloc_bitmap_isfull(cpuset.bitmap) } != 0 {
            *out = std::ptr::null_mut();
            return Ok(());
        }
        let topo = node_topology()?;
        // SAFETY: topo is loaded, the bitmap valid.
        *out = match unsafe { locality_string(topo, cpuset.bitmap) } {
            Some(s) => malloc_cstr(&CString::new(s).map_err(|_| Status::ERROR)?)?,
            None => std::ptr::null_mut(),
        };
        Ok(())
    })
}

/// The locality string of the PUs in `list` (hwloc list syntax) on this
/// node's topology, for the server's registration
/// ([`pmix_core::server::ServerConfig::locality`]); `None` for a process
/// that is not bound (the full set, as `PMIx_server_generate_locality_string`
/// has it), an unreadable list or no topology.
pub(crate) fn locality_of_list(list: &str) -> Option<String> {
    let list = CString::new(list).ok()?;
    let topo = node_topology().ok()?;
    // SAFETY: no preconditions; checked for NULL.
    let bitmap = unsafe { hwloc_bitmap_alloc() };
    if bitmap.is_null() {
        return None;
    }
    // SAFETY: bitmap is valid and ours, list a C string, topo loaded; the
    // bitmap is freed once, here.
    unsafe {
        let s = (hwloc_bitmap_list_sscanf(bitmap, list.as_ptr()) == 0
            && hw::hwloc_bitmap_isfull(bitmap) == 0)
            .then(|| locality_string(topo, bitmap))
            .flatten();
        hwloc_bitmap_free(bitmap);
        s
    }
}

/// `PMIx_Get_relative_locality`: accepts OpenPMIx's bare locality strings
/// and the standard's `hwloc:`-prefixed form, and returns success (OpenPMIx
/// 4.2.2 demands the prefix its own generator omits, and returns an
/// internal status even when it computes the answer).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(
    locality1: *const c_char,
    locality2: *const c_char,
    locality: *mut u16,
) -> c_int {
    guard(|| {
        nonnull!(locality1, locality2, locality);
        // SAFETY: non-NULL C strings per the C API.
        let (a, b) = unsafe { (CStr::from_ptr(locality1), CStr::from_ptr(locality2)) };
        let a = a.to_str().map_err(|_| Status::ERR_BAD_PARAM)?;
        let b = b.to_str().map_err(|_| Status::ERR_BAD_PARAM)?;
        let loc = pmix_core::locality::relative_locality(a, b)?;
        // SAFETY: locality is non-NULL and the caller's.
        unsafe { *locality = loc };
        Ok(())
    })
}

/// `PMIx_Load_topology`: fills `topo` with a copy of this node's topology
/// (source `hwloc`), which the caller owns and may release with
/// `PMIx_Topology_destruct`. A topology asking for another source is
/// `PMIX_ERR_NOT_SUPPORTED`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(topo: *mut pmix_topology_t) -> c_int {
    guard(|| {
        nonnull!(topo);
        // SAFETY: non-NULL, the caller's.
        let topo = unsafe { &mut *topo };
        // SAFETY: source is NULL or a C string per the C API.
        let wanted = unsafe { opt_cstr(topo.source) };
        if let Some(w) = wanted {
            if !is_hwloc(w) {
                return Err(Status::ERR_NOT_SUPPORTED);
            }
        }
        let node = node_topology()?;
        let mut copy: hwloc_topology_t = std::ptr::null_mut();
        // SAFETY: node is loaded; copy receives a new loaded topology.
        if unsafe { hwloc_topology_dup(&mut copy, node) } != 0 {
            return Err(Status::ERR_NOMEM);
        }
        if wanted.is_none() {
            topo.source = match malloc_cstr(c"hwloc") {
                Ok(p) => p,
                Err(e) => {
                    // SAFETY: duplicated above, not handed out.
                    unsafe { hwloc_topology_destroy(copy) };
                    return Err(e);
                }
            };
        }
        topo.topology = copy;
        Ok(())
    })
}

/// A new bitmap (the caller's to free) of the PUs this process (or, with
/// `HWLOC_CPUBIND_THREAD`, the calling thread) is bound to.
pub(crate) fn bound_pus(flags: c_int) -> Result<hwloc_bitmap_t, Status> {
    let topo = node_topology()?;
    // SAFETY: no preconditions; checked for NULL.
    let bitmap = unsafe { hwloc_bitmap_alloc() };
    if bitmap.is_null() {
        return Err(Status::ERR_NOMEM);
    }
    // SAFETY: topo is loaded, bitmap valid.
    if unsafe { hw::hwloc_get_cpubind(topo, bitmap, flags) } != 0 {
        // SAFETY: allocated above, not handed out.
        unsafe { hwloc_bitmap_free(bitmap) };
        return Err(Status::ERR_NOT_SUPPORTED);
    }
    Ok(bitmap)
}

/// `PMIx_Get_cpuset`: the PUs the process (or calling thread) is bound to.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: u8) -> c_int {
    guard(|| {
        nonnull!(cpuset);
        // SAFETY: non-NULL, the caller's.
        let cpuset = unsafe { &mut *cpuset };
        // SAFETY: source is NULL or a C string per the C API.
        if let Some(s) = unsafe { opt_cstr(cpuset.source) } {
            if !is_hwloc(s) {
                return Err(Status::ERR_NOT_SUPPORTED);
            }
        }
        let flags = match ref_ {
            PMIX_CPUBIND_PROCESS => hw::HWLOC_CPUBIND_PROCESS,
            PMIX_CPUBIND_THREAD => hw::HWLOC_CPUBIND_THREAD,
            _ => return Err(Status::ERR_BAD_PARAM),
        };
        let bitmap = bound_pus(flags)?;
        if cpuset.source.is_null() {
            cpuset.source = match malloc_cstr(c"hwloc") {
                Ok(p) => p,
                Err(e) => {
                    // SAFETY: allocated above, not handed out.
                    unsafe { hwloc_bitmap_free(bitmap) };
                    return Err(e);
                }
            };
        }
        cpuset.bitmap = bitmap;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::sys::hwloc as hw;

    /// The server's generator for registered cpusets: a bound process gets
    /// the locality of its PUs, an unbound one (the full set, `0-`) none,
    /// as `PMIx_server_generate_locality_string`.
    #[test]
    fn registration_localities() {
        let one = super::locality_of_list("0").expect("PU 0 has a locality");
        assert!(one.split(':').any(|t| t == "HT0"), "{one}");
        assert_eq!(
            super::locality_of_list("0-"),
            None,
            "the full set is unbound"
        );
        assert_eq!(super::locality_of_list("not a list"), None);
    }

    /// Our view of `struct hwloc_obj` and of the hwloc constants matches
    /// the installed hwloc header.
    #[test]
    fn hwloc_layout_matches_header() {
        let got = match crate::sys::c_program::try_output(
            "hwloc-layout",
            None,
            "#include <stdio.h>\n#include <stddef.h>\n#include <hwloc.h>\n\
             int main(void) {\n\
             printf(\"%zu %zu %zu %d %d %d %d %d %d %d %d %d %d\\n\",\n\
               offsetof(struct hwloc_obj, cpuset), offsetof(struct hwloc_obj, logical_index),\n\
               offsetof(struct hwloc_obj, misc_first_child),\n\
               (int) HWLOC_OBJ_PACKAGE, (int) HWLOC_OBJ_CORE, (int) HWLOC_OBJ_PU,\n\
               (int) HWLOC_OBJ_L1CACHE, (int) HWLOC_OBJ_L2CACHE, (int) HWLOC_OBJ_L3CACHE,\n\
               (int) HWLOC_OBJ_NUMANODE, (int) HWLOC_TYPE_DEPTH_NUMANODE,\n\
               (int) HWLOC_CPUBIND_PROCESS, (int) HWLOC_CPUBIND_THREAD);\n\
             printf(\"%zu %zu %zu %zu %d %d %d %d %d %d %d\\n\",\n\
               offsetof(struct hwloc_obj, infos), offsetof(struct hwloc_obj, infos_count),\n\
               offsetof(struct hwloc_obj, gp_index), sizeof(struct hwloc_obj),\n\
               (int) HWLOC_OBJ_OSDEV_BLOCK, (int) HWLOC_OBJ_OSDEV_GPU,\n\
               (int) HWLOC_OBJ_OSDEV_NETWORK, (int) HWLOC_OBJ_OSDEV_OPENFABRICS,\n\
               (int) HWLOC_OBJ_OSDEV_DMA, (int) HWLOC_OBJ_OSDEV_COPROC,\n\
               (int) HWLOC_TYPE_DEPTH_OS_DEVICE);\n\
             return 0; }\n",
        ) {
            Ok(got) => got,
            Err(_) => {
                println!("SKIPPED: cannot compile against hwloc.h (apt-get install libhwloc-dev)");
                return;
            }
        };
        let want = format!(
            "{} {} {} {} {} {} {} {} {} {} {} {} {}\n",
            std::mem::offset_of!(hw::hwloc_obj, cpuset),
            std::mem::offset_of!(hw::hwloc_obj, logical_index),
            std::mem::offset_of!(hw::hwloc_obj, misc_first_child),
            hw::HWLOC_OBJ_PACKAGE,
            hw::HWLOC_OBJ_CORE,
            hw::HWLOC_OBJ_PU,
            hw::HWLOC_OBJ_L1CACHE,
            hw::HWLOC_OBJ_L2CACHE,
            hw::HWLOC_OBJ_L3CACHE,
            hw::HWLOC_OBJ_NUMANODE,
            hw::HWLOC_TYPE_DEPTH_NUMANODE,
            hw::HWLOC_CPUBIND_PROCESS,
            hw::HWLOC_CPUBIND_THREAD,
        ) + &format!(
            "{} {} {} {} {} {} {} {} {} {} {}\n",
            std::mem::offset_of!(hw::hwloc_obj, infos),
            std::mem::offset_of!(hw::hwloc_obj, infos_count),
            std::mem::offset_of!(hw::hwloc_obj, gp_index),
            std::mem::size_of::<hw::hwloc_obj>(),
            hw::HWLOC_OBJ_OSDEV_BLOCK,
            hw::HWLOC_OBJ_OSDEV_GPU,
            hw::HWLOC_OBJ_OSDEV_NETWORK,
            hw::HWLOC_OBJ_OSDEV_OPENFABRICS,
            hw::HWLOC_OBJ_OSDEV_DMA,
            hw::HWLOC_OBJ_OSDEV_COPROC,
            hw::HWLOC_TYPE_DEPTH_OS_DEVICE,
        );
        assert_eq!(got, want);
    }
}
