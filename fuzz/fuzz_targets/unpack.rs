//! Arbitrary bytes fed to the data-buffer unpacker as every data type.
//!
//! The first input byte picks the declared type and the room the caller
//! offers; the rest is the buffer. Unpacking must return, never panic or
//! overflow the stack, and allocate in proportion to the input only. What
//! it accepts must pack back and unpack to the same values, and must print.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix::codec::{self, unpack, Reader};
use pmix::DataType;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let types = DataType::ALL;
    let ty = types[usize::from(sel) % types.len()];
    let room = 1 + usize::from(sel >> 6);

    let mut r = Reader::new(bytes);
    let Ok(u) = unpack::unpack_counted(&mut r, ty, room) else {
        return;
    };
    assert!(r.pos() <= bytes.len());
    assert!(u.values.len() <= room);

    for v in &u.values {
        let _ = pmix::print::print_full(None, ty, v);
    }

    // Whatever was accepted is a set of valid values: it packs, and what it
    // packs to unpacks to the same values. (Floats are compared through
    // their packed text, so NaN payloads do not matter.)
    let mut once = Vec::new();
    if codec::pack::pack_counted(&mut once, ty, &u.values).is_err() {
        return;
    }
    let mut r2 = Reader::new(&once);
    let again = unpack::unpack_counted(&mut r2, ty, u.values.len().max(1))
        .expect("re-unpacking our own packing");
    assert_eq!(r2.pos(), once.len());
    let mut twice = Vec::new();
    codec::pack::pack_counted(&mut twice, ty, &again.values).expect("re-pack");
    assert_eq!(once, twice);
});
