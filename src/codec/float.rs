//! Floating-point numbers travel as text: OpenPMIx packs a `float` or a
//! `double` as the string C's `printf("%f")` makes of it and unpacks it
//! with `strtof`/`strtod`. This module reproduces both conversions exactly
//! (six decimals, round-half-even on the exact binary value, `inf`, `nan`
//! and `-nan` spelled as glibc spells them; the longest numeric prefix
//! parsed, anything else read as zero).

/// The text `printf("%f", v)` produces.
pub fn format_f(v: f64) -> String {
    c_float(v, 6, 0)
}

/// The text `printf("%W.Pf", v)` produces, for precision `P` and width
/// `W` (right-aligned, padded with spaces).
pub fn c_float(v: f64, precision: usize, width: usize) -> String {
    let s = if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        // Rust's fixed-precision formatting is exact and rounds ties to
        // even, as glibc does, and keeps the sign of negative zero.
        format!("{v:.precision$}")
    };
    format!("{s:>width$}")
}

/// `strtod` on the bytes of a C string: the value of the longest prefix
/// that is a number, 0.0 if there is none.
pub fn parse_f64(s: &[u8]) -> f64 {
    parse_prefix(s, |t| t.parse::<f64>().ok(), hex_value)
}

/// `strtof` on the bytes of a C string.
pub fn parse_f32(s: &[u8]) -> f32 {
    parse_prefix(s, |t| t.parse::<f32>().ok(), |m, e| hex_value(m, e) as f32)
}

/// Where the C `strto*` functions start reading a number in `s`: after
/// leading white space and an optional sign. Returns that offset and
/// whether the sign was `-`.
pub(crate) fn number_start(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    (i, neg)
}

fn hex_value(mantissa: u64, exp2: i64) -> f64 {
    let e = exp2.clamp(-2000, 2000) as i32;
    // Split the scaling so intermediate results neither overflow nor
    // flush to zero early.
    (mantissa as f64) * 2f64.powi(e / 2) * 2f64.powi(e - e / 2)
}

fn parse_prefix<T>(s: &[u8], dec: impl Fn(&str) -> Option<T>, hex: impl Fn(u64, i64) -> T) -> T
where
    T: std::ops::Neg<Output = T> + Default + From<u8> + Copy + Special,
{
    let (i, neg) = number_start(s);
    let rest = &s[i..];
    let lower = |n: usize| -> Vec<u8> { rest.iter().take(n).map(u8::to_ascii_lowercase).collect() };
    let value = if lower(3) == b"inf" {
        T::INFINITY
    } else if lower(3) == b"nan" {
        T::NAN
    } else if lower(2) == b"0x" && rest.len() > 2 && is_hex_start(&rest[2..]) {
        let (m, e) = scan_hex(&rest[2..]);
        hex(m, e)
    } else {
        let n = scan_decimal(rest);
        if n == 0 {
            return T::default();
        }
        // The scanned prefix is ASCII digits, '.', 'e' and a sign.
        let text = std::str::from_utf8(&rest[..n]).unwrap_or("0");
        dec(text).unwrap_or_default()
    };
    if neg {
        -value
    } else {
        value
    }
}

/// The special values of a float type.
pub trait Special {
    const INFINITY: Self;
    const NAN: Self;
}
impl Special for f64 {
    const INFINITY: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
}
impl Special for f32 {
    const INFINITY: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;
}

/// Length of the longest decimal floating-point literal at the start of
/// `s` (digits, optional fraction, optional exponent); 0 if none.
fn scan_decimal(s: &[u8]) -> usize {
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(0);
    let mut n = int;
    let mut frac = 0;
    if n < s.len() && s[n] == b'.' {
        frac = digits(n + 1);
        if int + frac > 0 {
            n += 1 + frac;
        }
    }
    if int + frac == 0 {
        return 0;
    }
    if n < s.len() && (s[n] == b'e' || s[n] == b'E') {
        let mut m = n + 1;
        if m < s.len() && (s[m] == b'+' || s[m] == b'-') {
            m += 1;
        }
        let e = digits(m);
        if e > 0 {
            n = m + e;
        }
    }
    n
}

fn is_hex_start(s: &[u8]) -> bool {
    s[0].is_ascii_hexdigit() || (s[0] == b'.' && s.len() > 1 && s[1].is_ascii_hexdigit())
}

/// Mantissa (first 15 significant hex digits) and binary exponent of a hex
/// float body (after `0x`).
fn scan_hex(s: &[u8]) -> (u64, i64) {
    let mut m: u64 = 0;
    let mut exp: i64 = 0;
    let mut i = 0;
    let mut seen_point = false;
    let mut sig = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'.' && !seen_point {
            seen_point = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            if sig < 15 {
                if m != 0 || d != 0 {
                    sig += 1;
                }
                m = m * 16 + u64::from(d);
                if seen_point {
                    exp -= 4;
                }
            } else if !seen_point {
                exp += 4;
            }
        } else {
            break;
        }
        i += 1;
    }
    if i < s.len() && (s[i] == b'p' || s[i] == b'P') {
        let mut j = i + 1;
        let mut neg = false;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            neg = s[j] == b'-';
            j += 1;
        }
        let start = j;
        let mut e: i64 = 0;
        while j < s.len() && s[j].is_ascii_digit() {
            e = (e * 10 + i64::from(s[j] - b'0')).min(1 << 20);
            j += 1;
        }
        if j > start {
            exp += if neg { -e } else { e };
        }
    }
    (m, exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_compatible() {
        assert_eq!(format_f(0.0078125), "0.007812");
        assert_eq!(format_f(2.5), "2.500000");
        assert_eq!(format_f(-0.0), "-0.000000");
        assert_eq!(format_f(f64::from(std::f32::consts::PI)), "3.141593");
        assert_eq!(
            format_f(f64::from(1e38_f32)),
            "99999996802856924650656260769173209088.000000"
        );
        assert_eq!(format_f(f64::INFINITY), "inf");
        assert_eq!(format_f(-f64::NAN), "-nan");
        assert_eq!(format_f(0.0000015), "0.000002");
    }

    #[test]
    fn strtod_compatible() {
        assert_eq!(parse_f64(b"1.234567"), 1.234567);
        assert_eq!(parse_f64(b"  -2.5xyz"), -2.5);
        assert_eq!(parse_f64(b"1e3"), 1000.0);
        assert_eq!(parse_f64(b"1e"), 1.0);
        assert_eq!(parse_f64(b"."), 0.0);
        assert_eq!(parse_f64(b"abc"), 0.0);
        assert_eq!(parse_f64(b"0x1p3"), 8.0);
        assert_eq!(parse_f64(b"0x"), 0.0);
        assert!(parse_f64(b"-nan").is_nan());
        assert!(parse_f64(b"-nan").is_sign_negative());
        assert_eq!(parse_f32(b"INFINITY"), f32::INFINITY);
        assert_eq!(parse_f32(b"1.234567"), 1.234567_f32);
    }

    /// Compares with the C library on many values.
    #[test]
    fn matches_libc() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = match x % 4 {
                0 => f64::from_bits(x),
                1 => (x % 10_000_000) as f64 / 1e7,
                2 => f64::from(f32::from_bits(x as u32)),
                _ => (x % 1000) as f64 / 128.0,
            };
            let c = crate::sys::c_text::format_f(v).expect("snprintf");
            if c.len() < 500 {
                assert_eq!(format_f(v), c, "value bits {:#x}", v.to_bits());
            }
            let back = crate::sys::c_text::strtod(&c);
            let ours = parse_f64(c.as_bytes());
            assert!(
                back.to_bits() == ours.to_bits() || (back.is_nan() && ours.is_nan()),
                "{c}"
            );
        }
    }
}
