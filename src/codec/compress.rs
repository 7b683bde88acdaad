//! `PMIx_Data_compress` / `PMIx_Data_decompress`.
//!
//! Framing (OpenPMIx's zlib component): the uncompressed length as a
//! 32-bit integer in host byte order (little-endian here), then a zlib
//! stream (deflate level 9).
//!
//! The reference declines to compress input shorter than 4096 bytes
//! (`pcompress_base_limit`), input of 4 GiB or more, and input for which
//! zlib's worst-case bound (`deflateBound`) is not smaller than the input.
//! That bound always exceeds the input length, so OpenPMIx 4.2.2 never
//! compresses: [`compress`] applies the same rules and therefore returns
//! `None` for every input, exactly as the reference returns `false`.
//! [`zlib_frame`] builds the framed form unconditionally; the reference's
//! decompressor accepts it (tested).

use std::io::Write;

use flate2::{write::ZlibEncoder, Compression, Decompress, FlushDecompress, Status};

/// Inputs shorter than this are never compressed.
pub const COMPRESS_LIMIT: usize = 4096;

/// zlib's `deflateBound` for the default window and memory level.
pub const fn deflate_bound(n: usize) -> usize {
    n + (n >> 12) + (n >> 14) + (n >> 25) + 13
}

/// Compresses `data` under the reference's rules; `None` means "not
/// compressed" (which, with those rules, is every input).
pub fn compress(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < COMPRESS_LIMIT || data.len() >= u32::MAX as usize {
        return None;
    }
    if deflate_bound(data.len()) >= data.len() {
        return None;
    }
    zlib_frame(data)
}

/// The length header and zlib stream of `data`, whatever its size; `None`
/// only if `data` is 4 GiB or longer.
pub fn zlib_frame(data: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(data.len()).ok()?;
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    out.extend_from_slice(&len.to_ne_bytes());
    let mut enc = ZlibEncoder::new(out, Compression::new(9));
    enc.write_all(data).ok()?;
    enc.finish().ok()
}

/// Decompresses a framed block; `None` if it is not a complete zlib stream
/// of exactly the length its header announces.
pub fn decompress(data: &[u8]) -> Option<Vec<u8>> {
    let header: [u8; 4] = data.get(..4)?.try_into().ok()?;
    let expected = u32::from_ne_bytes(header) as usize;
    let input = &data[4..];
    let mut z = Decompress::new(true);
    // Grow the output as the stream yields it, never past the announced
    // length (plus one byte to detect a longer stream).
    let mut out: Vec<u8> = Vec::with_capacity(expected.min(input.len().saturating_mul(4) + 64));
    loop {
        if out.len() == out.capacity() {
            if out.len() > expected {
                return None;
            }
            let more = out.len().max(4096).min(expected + 1 - out.len());
            out.reserve_exact(more);
        }
        let consumed = z.total_in() as usize;
        let produced = out.len();
        let status = z
            .decompress_vec(&input[consumed..], &mut out, FlushDecompress::None)
            .ok()?;
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                let progressed = z.total_in() as usize != consumed || out.len() != produced;
                if !progressed {
                    return None;
                }
            }
        }
    }
    (out.len() == expected).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_compresses_like_the_reference() {
        for n in [0, 10, 4095, 4096, 100_000] {
            assert!(compress(&vec![b'a'; n]).is_none());
        }
    }

    #[test]
    fn frame_round_trip() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 7) as u8).collect();
        let z = zlib_frame(&data).unwrap();
        assert_eq!(&z[..4], &(data.len() as u32).to_le_bytes());
        assert!(z.len() < data.len());
        assert_eq!(decompress(&z).unwrap(), data);
        assert_eq!(decompress(&zlib_frame(b"").unwrap()).unwrap(), b"");
    }

    #[test]
    fn rejects_bad_frames() {
        let z = zlib_frame(b"hello hello hello").unwrap();
        for cut in 0..z.len() {
            assert!(decompress(&z[..cut]).is_none(), "cut {cut}");
        }
        let mut wrong = z.clone();
        wrong[0] += 1;
        assert!(decompress(&wrong).is_none());
        let mut huge = z;
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decompress(&huge).is_none());
    }
}
