//! OpenPMIx's wire protocol (placeholder for the merge).

pub mod job_info;
