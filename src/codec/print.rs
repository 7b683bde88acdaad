//! `PMIx_Data_print`: the text OpenPMIx prints for a value (being written).

use crate::{DataType, Value};

/// Placeholder.
pub fn print(_prefix: Option<&str>, _ty: DataType, _v: &Value) -> Option<String> {
    None
}
