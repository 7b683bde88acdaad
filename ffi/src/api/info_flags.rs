//! The directive flags of an info: `PMIx_Info_required/_optional/
//! _processed/_set_end/_qualifier/_persistent` set or clear one bit of
//! `flags`, `PMIx_Info_is_*`/`_was_processed` test it, as the header's
//! `PMIX_INFO_*` macros do.
//!
//! Invariant: each function touches its own bit and no other; "optional"
//! is the absence of `PMIX_INFO_REQD`. A NULL info (which OpenPMIx
//! dereferences) is left alone and tests false.

use crate::boundary::guard_or;
use crate::sys::{
    pmix_info_directives_t, pmix_info_t, PMIX_INFO_ARRAY_END, PMIX_INFO_PERSISTENT,
    PMIX_INFO_QUALIFIER, PMIX_INFO_REQD, PMIX_INFO_REQD_PROCESSED,
};

/// Sets (`on`) or clears `bit` in the flags of `p`.
///
/// # Safety
/// `p` is NULL or a writable info.
unsafe fn mark(p: *mut pmix_info_t, bit: pmix_info_directives_t, on: bool) {
    // SAFETY: the caller's contract.
    if let Some(i) = unsafe { p.as_mut() } {
        if on {
            i.flags |= bit;
        } else {
            i.flags &= !bit;
        }
    }
}

/// True if `bit` is set in the flags of `p`.
///
/// # Safety
/// `p` is NULL or a valid info.
unsafe fn has(p: *const pmix_info_t, bit: pmix_info_directives_t) -> bool {
    // SAFETY: the caller's contract.
    unsafe { p.as_ref() }.is_some_and(|i| i.flags & bit != 0)
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident, $bit:expr, $on:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `p` is NULL or a writable info.
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut pmix_info_t) {
            // SAFETY: the C contract.
            guard_or((), || unsafe { mark(p, $bit, $on) })
        }
    };
}

macro_rules! test {
    ($(#[$doc:meta])* $name:ident, $bit:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `p` is NULL or a valid info.
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *const pmix_info_t) -> bool {
            // SAFETY: the C contract.
            guard_or(false, || unsafe { has(p, $bit) })
        }
    };
}

setter!(
    /// `void PMIx_Info_required(pmix_info_t *p)`.
    PMIx_Info_required, PMIX_INFO_REQD, true
);
setter!(
    /// `void PMIx_Info_optional(pmix_info_t *p)`: clears the required bit.
    PMIx_Info_optional, PMIX_INFO_REQD, false
);
setter!(
    /// `void PMIx_Info_processed(pmix_info_t *p)`.
    PMIx_Info_processed, PMIX_INFO_REQD_PROCESSED, true
);
setter!(
    /// `void PMIx_Info_set_end(pmix_info_t *p)`.
    PMIx_Info_set_end, PMIX_INFO_ARRAY_END, true
);
setter!(
    /// `void PMIx_Info_qualifier(pmix_info_t *p)`.
    PMIx_Info_qualifier, PMIX_INFO_QUALIFIER, true
);
setter!(
    /// `void PMIx_Info_persistent(pmix_info_t *p)`.
    PMIx_Info_persistent, PMIX_INFO_PERSISTENT, true
);
test!(
    /// `bool PMIx_Info_is_required(const pmix_info_t *p)`.
    PMIx_Info_is_required, PMIX_INFO_REQD
);
test!(
    /// `bool PMIx_Info_was_processed(const pmix_info_t *p)`.
    PMIx_Info_was_processed, PMIX_INFO_REQD_PROCESSED
);
test!(
    /// `bool PMIx_Info_is_end(const pmix_info_t *p)`.
    PMIx_Info_is_end, PMIX_INFO_ARRAY_END
);
test!(
    /// `bool PMIx_Info_is_qualifier(const pmix_info_t *p)`.
    PMIx_Info_is_qualifier, PMIX_INFO_QUALIFIER
);
test!(
    /// `bool PMIx_Info_is_persistent(const pmix_info_t *p)`.
    PMIx_Info_is_persistent, PMIX_INFO_PERSISTENT
);

/// `bool PMIx_Info_is_optional(const pmix_info_t *p)`: the required bit is
/// clear.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_optional(p: *const pmix_info_t) -> bool {
    // SAFETY: the C contract.
    guard_or(false, || !p.is_null() && !unsafe { has(p, PMIX_INFO_REQD) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setter_touches_only_its_own_bit() {
        let mut i = pmix_info_t {
            flags: PMIX_INFO_QUALIFIER,
            ..Default::default()
        };
        // SAFETY: a valid info.
        unsafe {
            PMIx_Info_required(&mut i);
            assert!(PMIx_Info_is_required(&i) && !PMIx_Info_is_optional(&i));
            PMIx_Info_optional(&mut i);
            assert!(PMIx_Info_is_optional(&i) && PMIx_Info_is_qualifier(&i));
            PMIx_Info_set_end(&mut i);
            assert_eq!(i.flags, PMIX_INFO_QUALIFIER | PMIX_INFO_ARRAY_END);
            assert!(!PMIx_Info_is_end(std::ptr::null()));
        }
    }
}
