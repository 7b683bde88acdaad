//! Arbitrary bytes fed to `PMIx_Data_decompress`'s core: a 4-byte length
//! and a zlib stream. It must return, never panic, and never produce more
//! than the length it announces.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix::codec;

fuzz_target!(|data: &[u8]| {
    if let Some(out) = codec::decompress(data) {
        let claimed = u32::from_ne_bytes(data[..4].try_into().unwrap()) as usize;
        assert_eq!(out.len(), claimed);
        // What decompresses also round-trips through our framing.
        let z = codec::zlib_frame(&out).unwrap();
        assert_eq!(codec::decompress(&z).unwrap(), out);
    }
});
