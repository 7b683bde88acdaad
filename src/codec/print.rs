//! `PMIx_Data_print`: the text OpenPMIx prints for a value (being written).

use crate::{DataType, Status, Value};

/// Placeholder.
pub fn print_type(_prefix: Option<&str>, _ty: DataType, _v: &Value) -> Result<String, Status> {
    Err(Status::ERR_NOT_SUPPORTED)
}
