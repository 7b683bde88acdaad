//! Stage timings of the segment of a first collecting fence (issue 10's
//! `modex32k_first`): 4 ranks posted 32 values of 1 KiB each. Prints the
//! median over many repetitions of each stage a server and a client pay:
//! collect, build, seal (memfd), map (client open), first get (lazy
//! validation of the block touched), a warm get.
//!
//! `cargo run --release -p pmix-shmem --example first_fence [REPS]`

use std::hint::black_box;
use std::time::Instant;

use pmix_shmem::*;

const RANKS: u32 = 4;
const KEYS: usize = 32;
const LEN: usize = 1024;

fn values() -> Vec<Vec<Vec<u8>>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..RANKS)
        .map(|_| {
            (0..KEYS)
                .map(|_| {
                    (0..LEN)
                        .map(|_| {
                            x ^= x >> 12;
                            x ^= x << 25;
                            x ^= x >> 27;
                            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Minor page faults of this process so far.
fn minflt() -> i64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is valid for writes of a `rusage`.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
    // SAFETY: zero-initialized and possibly filled by getrusage.
    unsafe { ru.assume_init() }.ru_minflt
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let vals = values();
    let keys: Vec<String> = (0..KEYS).map(|k| format!("bench.k32.{k:02}")).collect();
    let names = [
        "collect",
        "build",
        "seal",
        "map",
        "first get",
        "warm get",
        "drop",
    ];
    let mut t: Vec<Vec<f64>> = vec![Vec::with_capacity(reps); names.len()];
    let mut size = 0;
    let mut faults: Vec<Vec<i64>> = Vec::new();
    for rep in 0..reps {
        let f0 = minflt();
        let a = Instant::now();
        let mut b = SegmentBuilder::new("pmixrun-1234@0").unwrap();
        for (r, rv) in vals.iter().enumerate() {
            for (k, v) in rv.iter().enumerate() {
                b.posted(
                    r as u32,
                    Scope::Global,
                    &keys[k],
                    StoredValue::ByteObject(v.clone()),
                )
                .unwrap();
            }
        }
        let t1 = Instant::now();
        let f1 = minflt();
        let img = b.build().unwrap();
        let t2 = Instant::now();
        let f2 = minflt();
        let sealed = img.seal().unwrap();
        size = img.len();
        drop(img);
        let t3 = Instant::now();
        let f3 = minflt();
        let seg = Segment::from_fd(sealed.fd()).unwrap();
        let t4 = Instant::now();
        let f4 = minflt();
        let v = seg
            .posted_value(1, Scopes::ALL, &"bench.k32.17".into())
            .unwrap()
            .unwrap();
        black_box(&v);
        let t5 = Instant::now();
        let f5 = minflt();
        let v = seg
            .posted_value(2, Scopes::ALL, &"bench.k32.18".into())
            .unwrap()
            .unwrap();
        black_box(&v);
        let t6 = Instant::now();
        let f6 = minflt();
        drop(seg);
        drop(sealed);
        let t7 = Instant::now();
        let f7 = minflt();
        for (i, (x, y)) in [
            (a, t1),
            (t1, t2),
            (t2, t3),
            (t3, t4),
            (t4, t5),
            (t5, t6),
            (t6, t7),
        ]
        .into_iter()
        .enumerate()
        {
            t[i].push((y - x).as_secs_f64() * 1e6);
        }
        if rep < 2 {
            faults.push(vec![
                f1 - f0,
                f2 - f1,
                f3 - f2,
                f4 - f3,
                f5 - f4,
                f6 - f5,
                f7 - f6,
            ]);
        }
    }
    println!("segment {size} B, {reps} repetitions: median us, first us, page faults first/second");
    for (i, (n, v)) in names.iter().zip(&mut t).enumerate() {
        let first = v[0];
        println!(
            "  {n:10} {:8.1} {:8.1} {:4} {:4}",
            median(v),
            first,
            faults[0][i],
            faults.get(1).and_then(|f| f.get(i)).unwrap_or(&0)
        );
    }
}
