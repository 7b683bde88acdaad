//! `pmix_framework_names`: the one data symbol of OpenPMIx that its
//! consumers resolve besides the `PMIx_*` functions.
//!
//! Open MPI 5's `libopen-pal` reads it (`char *pmix_framework_names[]`,
//! NULL-terminated) to tell which MCA parameters of a parameter file or
//! of the environment belong to PMIx (`pmix_<framework>_...`) and are to
//! be handed on as `PMIX_MCA_...`; PRRTE reads it for its command line's
//! `--pmixmca`. The names are OpenPMIx 5.0's frameworks, in its order,
//! and `mca`: a parameter naming one of them keeps meaning what it meant
//! to OpenPMIx, even though this library has no MCA frameworks.

use std::ffi::c_char;

/// A pointer to a static NUL-terminated name, shareable between threads.
#[repr(transparent)]
pub struct FrameworkName(*const c_char);

// SAFETY: every pointer is to a static, immutable string literal.
unsafe impl Sync for FrameworkName {}

macro_rules! names {
    ($($n:literal),* $(,)?) => {
        [$(FrameworkName(concat!($n, "\0").as_ptr().cast()),)* FrameworkName(std::ptr::null())]
    };
}

/// `char *pmix_framework_names[]`: OpenPMIx 5.0.11's framework names, then
/// NULL.
#[no_mangle]
#[used]
pub static pmix_framework_names: [FrameworkName; 17] = names![
    "bfrops",
    "gds",
    "pcompress",
    "pdl",
    "pif",
    "pinstalldirs",
    "plog",
    "pmdl",
    "pnet",
    "preg",
    "psec",
    "psensor",
    "psquash",
    "pstat",
    "ptl",
    "mca",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn the_names_end_with_null() {
        let n = pmix_framework_names.len();
        assert!(pmix_framework_names[n - 1].0.is_null());
        for name in &pmix_framework_names[..n - 1] {
            // SAFETY: each non-terminal entry is a static C string literal.
            let s = unsafe { CStr::from_ptr(name.0) };
            assert!(!s.to_bytes().is_empty());
        }
    }
}
