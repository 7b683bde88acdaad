//! `PMIx_Argv_*` and `PMIx_Setenv`: NULL-terminated `char **` arrays
//! ("argv") and environment arrays, as OpenPMIx 5.0 keeps them.
//!
//! Invariants: an argv this module builds or grows is one `malloc`ed
//! array of `malloc`ed strings ending with a NULL slot, so the caller's
//! `free()`, the header's `pmix_argv_free` and `PMIx_Argv_free` all
//! release it; an argv handed in is grown in place with `realloc` (the
//! caller's pointer is replaced). Splitting and joining work on bytes and
//! compare a byte with the `int` delimiter as C compares a `char` with an
//! `int` (a signed byte, so a delimiter above 127 never matches).
//!
//! Where OpenPMIx dereferences a NULL argument (a NULL `char ***`, a NULL
//! string to add, a NULL variable name) we return `PMIX_ERR_BAD_PARAM` or
//! do nothing.

use std::ffi::{c_char, c_int, CStr};
use std::ptr::null_mut;

use pmix_core::Status;

use crate::boundary::{guard, guard_or, malloc_bytes, malloc_cstr, opt_cstr};
use crate::convert;
use crate::sys::pmix_status_t;

/// A C argv: NULL or a NULL-terminated array of strings.
type Argv = *mut *mut c_char;

/// The number of strings before the NULL slot (0 for NULL).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array.
pub(crate) unsafe fn count(argv: *const *mut c_char) -> usize {
    if argv.is_null() {
        return 0;
    }
    let mut n = 0;
    // SAFETY: every slot up to the terminator is readable (contract).
    while !unsafe { *argv.add(n) }.is_null() {
        n += 1;
    }
    n
}

/// The strings of an argv, borrowed.
///
/// # Safety
/// As [`count`], with valid strings that outlive `'a`.
unsafe fn entries<'a>(argv: *const *mut c_char) -> impl Iterator<Item = &'a CStr> {
    // SAFETY: the caller's contract.
    let n = unsafe { count(argv) };
    // SAFETY: k < n slots, each a valid string (contract).
    (0..n).map(move |k| unsafe { CStr::from_ptr(*argv.add(k)) })
}

/// A `malloc`ed NUL-terminated copy of `b`.
fn malloc_field(b: &[u8]) -> Result<*mut c_char, Status> {
    let p = malloc_bytes(b.len() + 1)?;
    // SAFETY: p holds b.len() + 1 fresh bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        *p.add(b.len()) = 0;
    }
    Ok(p.cast())
}

/// Grows `*argv` (NULL or `n` strings) to `n + 2` slots.
///
/// # Safety
/// `*argv` is NULL or a `malloc`ed argv of `n` strings.
unsafe fn grow(argv: &mut Argv, n: usize) -> Result<(), Status> {
    let bytes = (n + 2) * std::mem::size_of::<*mut c_char>();
    // SAFETY: *argv is NULL or malloc'd (contract); realloc(NULL) mallocs.
    let p = unsafe { libc::realloc((*argv).cast(), bytes) } as Argv;
    if p.is_null() {
        return Err(Status::ERR_OUT_OF_RESOURCE);
    }
    *argv = p;
    Ok(())
}

/// Appends a copy of `arg` to `*argv`, creating the array if it is NULL.
///
/// # Safety
/// `*argv` is NULL or a `malloc`ed argv of `malloc`ed strings.
pub(crate) unsafe fn append(argv: &mut Argv, arg: &CStr) -> Result<(), Status> {
    // SAFETY: the caller's contract.
    unsafe { insert(argv, arg, false) }
}

/// Adds a copy of `arg` at the end of `*argv`, or in front when
/// `in_front`, creating the array if it is NULL.
///
/// # Safety
/// As [`append`].
unsafe fn insert(argv: &mut Argv, arg: &CStr, in_front: bool) -> Result<(), Status> {
    let copy = malloc_cstr(arg).map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
    // SAFETY: the caller's contract.
    let n = unsafe { count(*argv) };
    // SAFETY: as above.
    if let Err(e) = unsafe { grow(argv, n) } {
        // SAFETY: copy is malloc'd and unused.
        unsafe { libc::free(copy.cast()) };
        return Err(e);
    }
    // SAFETY: *argv holds n + 2 slots; in front, the n strings move up one.
    unsafe {
        if in_front {
            std::ptr::copy(*argv, (*argv).add(1), n);
            *(*argv).add(0) = copy;
        } else {
            *(*argv).add(n) = copy;
        }
        *(*argv).add(n + 1) = null_mut();
    }
    Ok(())
}

/// The fields of `s` between delimiters: empty fields only when
/// `include_empty`, and never one after a final delimiter.
fn fields(s: &[u8], delimiter: c_int, include_empty: bool) -> Vec<&[u8]> {
    // C compares the (signed) char with the int.
    let is_delim = |b: &u8| c_int::from(*b as c_char) == delimiter;
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = rest.iter().position(is_delim).unwrap_or(rest.len());
        if end > 0 || include_empty {
            out.push(&rest[..end]);
        }
        rest = rest.get(end + 1..).unwrap_or(&[]);
    }
    out
}

/// A new argv of `items` (NULL when there are none).
fn argv_of<'a>(items: impl ExactSizeIterator<Item = &'a [u8]>) -> Result<Argv, Status> {
    let n = items.len();
    if n == 0 {
        return Ok(null_mut());
    }
    let arr = malloc_bytes((n + 1) * std::mem::size_of::<*mut c_char>())? as Argv;
    // SAFETY: arr holds n + 1 slots; NULL them so a partial argv is valid.
    unsafe { std::ptr::write_bytes(arr, 0, n + 1) };
    for (k, b) in items.enumerate() {
        match malloc_field(b) {
            // SAFETY: k < n.
            Ok(p) => unsafe { *arr.add(k) = p },
            Err(e) => {
                // SAFETY: a malloc'd argv of malloc'd strings.
                unsafe { convert::argv_free(arr) };
                return Err(e);
            }
        }
    }
    Ok(arr)
}

/// `pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg)`.
///
/// # Safety
/// `argv` is NULL or points to NULL or a `malloc`ed argv; `arg` is NULL or
/// a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_nosize(
    argv: *mut Argv,
    arg: *const c_char,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(argv, arg);
        // SAFETY: valid pointers (C contract).
        unsafe { append(&mut *argv, CStr::from_ptr(arg)) }
    })
}

/// `pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg)`.
///
/// # Safety
/// As `PMIx_Argv_append_nosize`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_prepend_nosize(
    argv: *mut Argv,
    arg: *const c_char,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(argv, arg);
        // SAFETY: valid pointers (C contract).
        unsafe { insert(&mut *argv, CStr::from_ptr(arg), true) }
    })
}

/// `pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char
/// *arg)`: appends unless an equal string is present.
///
/// # Safety
/// As `PMIx_Argv_append_nosize`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_unique_nosize(
    argv: *mut Argv,
    arg: *const c_char,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(argv, arg);
        // SAFETY: valid pointers (C contract).
        let (argv, arg) = unsafe { (&mut *argv, CStr::from_ptr(arg)) };
        // SAFETY: a valid argv (C contract).
        if unsafe { entries(*argv) }.any(|s| s == arg) {
            return Ok(());
        }
        // SAFETY: as above.
        unsafe { append(argv, arg) }
    })
}

/// `char **PMIx_Argv_copy(char **argv)`: NULL for NULL, an empty argv for
/// an empty one.
///
/// # Safety
/// `argv` is NULL or a valid argv.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_copy(argv: Argv) -> Argv {
    guard_or(null_mut(), || {
        if argv.is_null() {
            return null_mut();
        }
        // SAFETY: a valid argv (C contract).
        let items: Vec<&[u8]> = unsafe { entries(argv) }.map(CStr::to_bytes).collect();
        if items.is_empty() {
            return malloc_bytes(std::mem::size_of::<*mut c_char>()).map_or(null_mut(), |p| {
                let p = p as Argv;
                // SAFETY: one slot.
                unsafe { *p = null_mut() };
                p
            });
        }
        argv_of(items.into_iter()).unwrap_or(null_mut())
    })
}

/// `int PMIx_Argv_count(char **argv)`.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_count(argv: Argv) -> c_int {
    // SAFETY: the C contract.
    guard_or(0, || unsafe { count(argv) } as c_int)
}

/// `void PMIx_Argv_free(char **argv)`.
///
/// # Safety
/// `argv` is NULL or a `malloc`ed argv of `malloc`ed strings, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_free(argv: Argv) {
    // SAFETY: the C contract.
    guard_or((), || unsafe { convert::argv_free(argv) })
}

/// `char *PMIx_Argv_join(char **argv, int delimiter)`: the strings joined
/// by the delimiter's byte; a `malloc`ed "" for NULL or an empty argv.
///
/// # Safety
/// `argv` is NULL or a valid argv.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_join(argv: Argv, delimiter: c_int) -> *mut c_char {
    guard_or(null_mut(), || {
        let mut out = Vec::new();
        // SAFETY: a valid argv (C contract).
        for (k, s) in unsafe { entries(argv) }.enumerate() {
            if k > 0 {
                out.push(delimiter as u8);
            }
            out.extend_from_slice(s.to_bytes());
        }
        malloc_field(&out).unwrap_or(null_mut())
    })
}

/// `char **PMIx_Argv_split_inter(const char *src_string, int delimiter,
/// bool include_empty)`: NULL when there is no field.
///
/// # Safety
/// `src_string` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_inter(
    src_string: *const c_char,
    delimiter: c_int,
    include_empty: bool,
) -> Argv {
    guard_or(null_mut(), || {
        // SAFETY: NULL or a C string (C contract).
        let Some(s) = (unsafe { opt_cstr(src_string) }) else {
            return null_mut();
        };
        let parts = fields(s.to_bytes(), delimiter, include_empty);
        argv_of(parts.into_iter()).unwrap_or(null_mut())
    })
}

/// `char **PMIx_Argv_split_with_empty(const char *src_string, int
/// delimiter)`.
///
/// # Safety
/// As `PMIx_Argv_split_inter`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_with_empty(
    src_string: *const c_char,
    delimiter: c_int,
) -> Argv {
    // SAFETY: the C contract.
    guard_or(null_mut(), || unsafe {
        PMIx_Argv_split_inter(src_string, delimiter, true)
    })
}

/// `char **PMIx_Argv_split(const char *src_string, int delimiter)`: empty
/// fields dropped.
///
/// # Safety
/// As `PMIx_Argv_split_inter`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split(src_string: *const c_char, delimiter: c_int) -> Argv {
    // SAFETY: the C contract.
    guard_or(null_mut(), || unsafe {
        PMIx_Argv_split_inter(src_string, delimiter, false)
    })
}

/// Sets `name=value` (`name=` for no value) in the environment array
/// `*env`. The process's own `environ` goes through `setenv`/`unsetenv`
/// (no value unsets), whose refusals are ignored as OpenPMIx ignores them;
/// another array has the first entry starting with `name=` replaced when
/// `overwrite` (`PMIX_ERR_EXISTS` otherwise), or the entry appended.
///
/// # Safety
/// `*env` is NULL, `environ`, or a `malloc`ed argv of `malloc`ed strings.
pub(crate) unsafe fn setenv_in(
    env: &mut Argv,
    name: &CStr,
    value: Option<&CStr>,
    overwrite: bool,
) -> Result<(), Status> {
    if !env.is_null() && *env == crate::os::environ_ptr() {
        let _ = match value {
            None => crate::os::unsetenv(name),
            Some(v) => crate::os::setenv(name, v, overwrite),
        };
        return Ok(());
    }
    let mut entry = name.to_bytes().to_vec();
    entry.push(b'=');
    let prefix_len = entry.len();
    entry.extend_from_slice(value.map_or(&[][..], CStr::to_bytes));
    // SAFETY: the caller's contract.
    let n = unsafe { count(*env) };
    for k in 0..n {
        // SAFETY: k < n, each a valid malloc'd string (contract).
        let slot = unsafe { &mut *(*env).add(k) };
        // SAFETY: as above.
        if unsafe { CStr::from_ptr(*slot) }
            .to_bytes()
            .starts_with(&entry[..prefix_len])
        {
            if !overwrite {
                return Err(Status::ERR_EXISTS);
            }
            let new = malloc_field(&entry).map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
            // SAFETY: the old entry is malloc'd and replaced.
            unsafe { libc::free((*slot).cast()) };
            *slot = new;
            return Ok(());
        }
    }
    let entry = std::ffi::CString::new(entry).map_err(|_| Status::ERR_BAD_PARAM)?;
    // SAFETY: the caller's contract. OpenPMIx ignores a failed append.
    let _ = unsafe { append(env, &entry) };
    Ok(())
}

/// `pmix_status_t PMIx_Setenv(const char *name, const char *value, bool
/// overwrite, char ***env)`.
///
/// # Safety
/// `env` is NULL or points to NULL, `environ` or a `malloc`ed argv;
/// `name` is NULL or a C string; `value` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Setenv(
    name: *const c_char,
    value: *const c_char,
    overwrite: bool,
    env: *mut Argv,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(env, name);
        // SAFETY: valid pointers (C contract).
        unsafe { setenv_in(&mut *env, CStr::from_ptr(name), opt_cstr(value), overwrite) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str, d: u8, empty: bool) -> Vec<String> {
        fields(s.as_bytes(), c_int::from(d), empty)
            .into_iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn split_drops_empty_fields_unless_asked_and_never_adds_a_trailing_one() {
        assert_eq!(split("a::b:", b':', false), ["a", "b"]);
        assert_eq!(split("a::b:", b':', true), ["a", "", "b"]);
        assert_eq!(split(":a", b':', true), ["", "a"]);
        assert_eq!(split("::", b':', true), ["", ""]);
        assert!(split("", b':', true).is_empty());
        assert_eq!(split("abc", 0, false), ["abc"]);
    }

    #[test]
    fn a_delimiter_above_127_matches_no_byte_as_in_c() {
        assert_eq!(fields("a\u{e9}b".as_bytes(), 0xc3, false).len(), 1);
        assert_eq!(fields("a\u{e9}b".as_bytes(), -61, false).len(), 2);
    }

    #[test]
    fn setenv_replaces_appends_and_refuses_without_overwrite() {
        let mut env: Argv = null_mut();
        // SAFETY: env is NULL, then an argv this module built.
        unsafe {
            setenv_in(&mut env, c"A", Some(c"1"), false).unwrap();
            setenv_in(&mut env, c"AB", None, false).unwrap();
            assert_eq!(
                setenv_in(&mut env, c"A", Some(c"2"), false),
                Err(Status::ERR_EXISTS)
            );
            setenv_in(&mut env, c"A", Some(c"3"), true).unwrap();
            let got: Vec<_> = entries(env)
                .map(|s| s.to_str().unwrap().to_owned())
                .collect();
            assert_eq!(got, ["A=3", "AB="]);
            convert::argv_free(env);
        }
    }
}
