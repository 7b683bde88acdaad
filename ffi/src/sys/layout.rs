//! Compiles a C program against the reference headers (and against ours
//! in `include/` once they exist) that prints the size, alignment and
//! offsets of every type above and the value of every constant, and
//! requires the Rust side to print exactly the same.
use super::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::mem::{align_of, offset_of, size_of, MaybeUninit};
use std::path::Path;

include!("layout_tables.rs");

fn size_of_pointee<T>(_: *const T) -> usize {
    size_of::<T>()
}

struct Struct {
    name: &'static str,
    size: usize,
    align: usize,
    fields: Vec<(&'static str, usize, usize)>,
}

macro_rules! struct_layout {
    ($t:ident; $(($c:literal, $f:ident)),* $(,)?) => {{
        let u = MaybeUninit::<$t>::uninit();
        let p = u.as_ptr();
        Struct {
            name: stringify!($t),
            size: size_of::<$t>(),
            align: align_of::<$t>(),
            fields: vec![$((
                $c,
                offset_of!($t, $f),
                // SAFETY: addr_of! only computes the address of a field
                // of the (uninitialised but allocated) place; nothing is
                // read.
                size_of_pointee(unsafe { std::ptr::addr_of!((*p).$f) }),
            )),*],
        }
    }};
}

macro_rules! union_member {
    (($c:literal, $f:ident)) => {{
        let u = MaybeUninit::<pmix_value_t>::uninit();
        let p = u.as_ptr();
        (
            $c,
            offset_of!(pmix_value_t, data) + offset_of!(pmix_value_data_t, $f),
            // SAFETY: as above, only the address of a member is taken.
            size_of_pointee(unsafe { std::ptr::addr_of!((*p).data.$f) }),
        )
    }};
}

macro_rules! typedefs {
    ($($t:ident),* $(,)?) => {
        [$((stringify!($t), size_of::<$t>(), align_of::<$t>())),*]
    };
}

fn typedef_table() -> Vec<(&'static str, usize, usize)> {
    typedefs!(
        pmix_status_t,
        pmix_rank_t,
        pmix_data_type_t,
        pmix_proc_state_t,
        pmix_job_state_t,
        pmix_scope_t,
        pmix_data_range_t,
        pmix_persistence_t,
        pmix_info_directives_t,
        pmix_alloc_directive_t,
        pmix_iof_channel_t,
        pmix_storage_medium_t,
        pmix_storage_accessibility_t,
        pmix_storage_persistence_t,
        pmix_storage_access_type_t,
        pmix_coord_view_t,
        pmix_link_state_t,
        pmix_bind_envelope_t,
        pmix_locality_t,
        pmix_device_type_t,
        pmix_nspace_t,
        pmix_key_t,
        pmix_value_cmp_t,
        pmix_boolean_t,
        pmix_group_opt_t,
        pmix_group_operation_t,
        pmix_fabric_operation_t,
        pmix_release_cbfunc_t,
        pmix_modex_cbfunc_t,
        pmix_spawn_cbfunc_t,
        pmix_op_cbfunc_t,
        pmix_lookup_cbfunc_t,
        pmix_event_notification_cbfunc_fn_t,
        pmix_notification_fn_t,
        pmix_hdlr_reg_cbfunc_t,
        pmix_evhdlr_reg_cbfunc_t,
        pmix_value_cbfunc_t,
        pmix_info_cbfunc_t,
        pmix_credential_cbfunc_t,
        pmix_validation_cbfunc_t,
        pmix_device_dist_cbfunc_t,
    )
    .to_vec()
}

/// The lines the C program must print, computed from the Rust side.
fn rust_lines() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in layout_table!() {
        out.insert(format!("S {} {} {}", s.name, s.size, s.align));
        for (f, off, size) in s.fields {
            out.insert(format!("F {}.{} {} {}", s.name, f, off, size));
        }
    }
    for (f, off, size) in union_table!() {
        out.insert(format!("F pmix_value_t.data.{} {} {}", f, off, size));
    }
    for (t, size, align) in typedef_table() {
        out.insert(format!("T {} {} {}", t, size, align));
    }
    for (name, v) in const_table!() {
        out.insert(format!("C {} {}", name, v));
    }
    out
}

/// The C program printing the same lines from the headers.
fn c_program() -> String {
    let mut c = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <stdalign.h>\n\
         #include <pmix_common.h>\n#include <pmix_deprecated.h>\n\
         #define S(t) printf(\"S %s %zu %zu\\n\", #t, sizeof(t), alignof(t))\n\
         #define T(t) printf(\"T %s %zu %zu\\n\", #t, sizeof(t), alignof(t))\n\
         #define F(t, f) printf(\"F %s.%s %zu %zu\\n\", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))\n\
         #define C(n) printf(\"C %s %lld\\n\", #n, (long long)(n))\n\
         int main(void) {\n",
    );
    for s in layout_table!() {
        writeln!(c, "S({});", s.name).unwrap();
        for (f, _, _) in s.fields {
            writeln!(c, "F({}, {});", s.name, f).unwrap();
        }
    }
    for (f, _, _) in union_table!() {
        writeln!(c, "F(pmix_value_t, data.{});", f).unwrap();
    }
    for (t, _, _) in typedef_table() {
        writeln!(c, "T({});", t).unwrap();
    }
    for (name, _) in const_table!() {
        writeln!(c, "C({});", name).unwrap();
    }
    c.push_str("return 0;\n}\n");
    c
}

fn c_lines(include: &Path, tag: &str) -> BTreeSet<String> {
    super::c_program::output(&format!("layout-{tag}"), Some(include), &c_program())
        .lines()
        .map(str::to_owned)
        .collect()
}

fn compare(include: &Path, tag: &str) {
    let c = c_lines(include, tag);
    let r = rust_lines();
    let only_c: Vec<_> = c.difference(&r).collect();
    let only_r: Vec<_> = r.difference(&c).collect();
    assert!(
        only_c.is_empty() && only_r.is_empty(),
        "layout differs from {}:\nC says:\n{:#?}\nRust says:\n{:#?}",
        include.display(),
        only_c,
        only_r
    );
    assert!(r.len() > 500, "tables unexpectedly small: {}", r.len());
}

#[test]
fn matches_reference_headers() {
    let inc = Path::new("/usr/lib/x86_64-linux-gnu/pmix2/include");
    if !inc.join("pmix_common.h").exists() {
        assert!(
            std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
            "PMIX_REQUIRE_REFERENCE=1 but the reference headers are not installed"
        );
        eprintln!("reference headers not installed; skipping");
        return;
    }
    compare(inc, "reference");
}

#[test]
fn matches_our_headers() {
    let inc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
    if !inc.join("pmix_common.h").exists() || !inc.join("pmix_deprecated.h").exists() {
        eprintln!("include/pmix_common.h not written yet; skipping");
        return;
    }
    compare(&inc, "ours");
}

/// The partial `struct hwloc_obj` and the support struct match the
/// installed hwloc headers.
#[test]
fn hwloc_structs_match_header() {
    use super::hwloc::{hwloc_obj, hwloc_topology_support};
    if !Path::new("/usr/include/hwloc.h").exists() {
        eprintln!("hwloc headers not installed; skipping");
        return;
    }
    let c = super::c_program::output(
        "hwloc",
        None,
        "#include <hwloc.h>\n#include <stdio.h>\n#include <stddef.h>\n\
         int main(void) { printf(\"%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %d\\n\",\
         offsetof(struct hwloc_obj, type), offsetof(struct hwloc_obj, name),\
         offsetof(struct hwloc_obj, arity), offsetof(struct hwloc_obj, children),\
         offsetof(struct hwloc_obj, cpuset),\
         offsetof(struct hwloc_topology_support, cpubind),\
         offsetof(struct hwloc_topology_support, membind),\
         offsetof(struct hwloc_topology_cpubind_support, set_thisproc_cpubind),\
         offsetof(struct hwloc_topology_cpubind_support, set_thisthread_cpubind),\
         offsetof(struct hwloc_topology_membind_support, set_thisthread_membind),\
         (int) HWLOC_OBJ_MACHINE); return 0; }\n",
    );
    let rust = format!(
        "{} {} {} {} {} {} {} {} {} {} {}\n",
        offset_of!(hwloc_obj, type_),
        offset_of!(hwloc_obj, name),
        offset_of!(hwloc_obj, arity),
        offset_of!(hwloc_obj, children),
        offset_of!(hwloc_obj, cpuset),
        offset_of!(hwloc_topology_support, cpubind),
        offset_of!(hwloc_topology_support, membind),
        super::hwloc::SUPPORT_SET_THISPROC,
        super::hwloc::SUPPORT_SET_THISTHREAD,
        super::hwloc::SUPPORT_SET_THISTHREAD,
        super::hwloc::HWLOC_OBJ_MACHINE,
    );
    assert_eq!(c, rust);
}
