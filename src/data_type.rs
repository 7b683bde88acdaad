//! `pmix_data_type_t`: the tag of every PMIx datum.

use crate::Status;

macro_rules! data_types {
    ($( $(#[$doc:meta])* $name:ident = $val:expr ),* $(,)?) => {
        /// The PMIx data types (`pmix_data_type_t`, a `uint16_t` in C).
        /// Values are those of the PMIx standard / OpenPMIx 4.2 headers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum DataType {
            $( $(#[$doc])* $name = $val, )*
        }

        impl DataType {
            /// Every data type, in numeric order.
            pub const ALL: &'static [DataType] = &[$(DataType::$name),*];

            /// The type for a raw tag, or `None` if the tag is not a PMIx type.
            pub const fn from_raw(v: u16) -> Option<DataType> {
                match v {
                    $( $val => Some(DataType::$name), )*
                    _ => None,
                }
            }
        }
    };
}

data_types! {
    Undef = 0,
    Bool = 1,
    Byte = 2,
    String = 3,
    Size = 4,
    Pid = 5,
    Int = 6,
    Int8 = 7,
    Int16 = 8,
    Int32 = 9,
    Int64 = 10,
    Uint = 11,
    Uint8 = 12,
    Uint16 = 13,
    Uint32 = 14,
    Uint64 = 15,
    Float = 16,
    Double = 17,
    Timeval = 18,
    Time = 19,
    Status = 20,
    Value = 21,
    Proc = 22,
    App = 23,
    Info = 24,
    PData = 25,
    ByteObject = 27,
    /// OpenPMIx's internal key/value pair (`pmix_kval_t`).
    Kval = 28,
    Persist = 30,
    Pointer = 31,
    Scope = 32,
    DataRange = 33,
    /// OpenPMIx's internal command tag (`pmix_cmd_t`, a `uint8_t`).
    Command = 34,
    InfoDirectives = 35,
    DataType = 36,
    ProcState = 37,
    ProcInfo = 38,
    DataArray = 39,
    ProcRank = 40,
    Query = 41,
    CompressedString = 42,
    AllocDirective = 43,
    IofChannel = 45,
    Envar = 46,
    Coord = 47,
    RegAttr = 48,
    Regex = 49,
    JobState = 50,
    LinkState = 51,
    ProcCpuset = 52,
    Geometry = 53,
    DeviceDist = 54,
    Endpoint = 55,
    Topo = 56,
    DevType = 57,
    LocType = 58,
    CompressedByteObject = 59,
    ProcNspace = 60,
    ProcStats = 61,
    DiskStats = 62,
    NetStats = 63,
    NodeStats = 64,
    DataBuffer = 65,
    StorMedium = 66,
    StorAccess = 67,
    StorPersist = 68,
    StorAccessType = 69,
}

impl DataType {
    /// The raw `pmix_data_type_t`.
    pub const fn raw(self) -> u16 {
        self as u16
    }
}

impl TryFrom<u16> for DataType {
    type Error = Status;

    /// Unknown tags are `PMIX_ERR_UNKNOWN_DATA_TYPE`.
    fn try_from(v: u16) -> Result<Self, Status> {
        DataType::from_raw(v).ok_or(Status::ERR_UNKNOWN_DATA_TYPE)
    }
}
