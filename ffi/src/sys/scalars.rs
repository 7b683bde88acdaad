//! The scalar typedefs of `pmix_common.h` (status, rank, data type, ...)
//! and the `int`-sized C enums.
//!
//! Invariant: each has the width and signedness of its C typedef.

use std::ffi::c_int;

// ---------------------------------------------------------------------------
// Scalar typedefs

pub type pmix_status_t = c_int;
pub type pmix_rank_t = u32;
pub type pmix_data_type_t = u16;
pub type pmix_proc_state_t = u8;
pub type pmix_job_state_t = u8;
pub type pmix_scope_t = u8;
pub type pmix_data_range_t = u8;
pub type pmix_persistence_t = u8;
pub type pmix_info_directives_t = u32;
pub type pmix_alloc_directive_t = u8;
pub type pmix_iof_channel_t = u16;
pub type pmix_storage_medium_t = u64;
pub type pmix_storage_accessibility_t = u64;
pub type pmix_storage_persistence_t = u64;
pub type pmix_storage_access_type_t = u16;
pub type pmix_coord_view_t = u8;
pub type pmix_link_state_t = u8;
pub type pmix_bind_envelope_t = u8;
pub type pmix_locality_t = u16;
pub type pmix_device_type_t = u64;

// C enums are `int`-sized.

/// `pmix_value_cmp_t`.
pub type pmix_value_cmp_t = c_int;
pub const PMIX_EQUAL: pmix_value_cmp_t = 0;
pub const PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
pub const PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
pub const PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
pub const PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
pub const PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

/// `pmix_boolean_t`.
pub type pmix_boolean_t = c_int;
pub const PMIX_BOOL_TRUE: pmix_boolean_t = 0;
pub const PMIX_BOOL_FALSE: pmix_boolean_t = 1;
pub const PMIX_NON_BOOL: pmix_boolean_t = 2;

/// `pmix_group_opt_t`.
pub type pmix_group_opt_t = c_int;
pub const PMIX_GROUP_DECLINE: pmix_group_opt_t = 0;
pub const PMIX_GROUP_ACCEPT: pmix_group_opt_t = 1;

/// `pmix_group_operation_t`.
pub type pmix_group_operation_t = c_int;
pub const PMIX_GROUP_CONSTRUCT: pmix_group_operation_t = 0;
pub const PMIX_GROUP_DESTRUCT: pmix_group_operation_t = 1;

/// `pmix_fabric_operation_t`.
pub type pmix_fabric_operation_t = c_int;
pub const PMIX_FABRIC_REQUEST_INFO: pmix_fabric_operation_t = 0;
pub const PMIX_FABRIC_UPDATE_INFO: pmix_fabric_operation_t = 1;
