//! `PMIx_App_string`: an application description as OpenPMIx 5.0 prints
//! it, one line per field (command, argv, environment, working directory,
//! process count, infos), joined by newlines.
//!
//! Invariant: a NULL string prints as glibc prints `%s` of NULL
//! ("(null)"), except where OpenPMIx prints its own words (`NONE`, `CWD:
//! NULL`); each info is printed by `PMIx_Info_string`'s text
//! (`info::info_text`). The result is `malloc`ed: the caller frees it.

use std::ffi::{c_char, CStr};
use std::ptr::null_mut;

use crate::api::argv;
use crate::api::info::info_text;
use crate::api::value::malloc_text;
use crate::boundary::guard_or;
use crate::sys::pmix_app_t;

/// The bytes of a C string, `(null)` for NULL.
///
/// # Safety
/// `s` is NULL or a C string.
unsafe fn text(s: *const c_char) -> Vec<u8> {
    if s.is_null() {
        b"(null)".to_vec()
    } else {
        // SAFETY: a C string (contract).
        unsafe { CStr::from_ptr(s) }.to_bytes().to_vec()
    }
}

/// The lines of an argv-like field: `NONE` for NULL, else one per entry.
///
/// # Safety
/// `list` is NULL or a valid argv.
unsafe fn list_lines(lines: &mut Vec<Vec<u8>>, title: &str, list: *mut *mut c_char) {
    lines.push(format!("    {title}:").into_bytes());
    if list.is_null() {
        lines.push(b"        NONE".to_vec());
        return;
    }
    // SAFETY: a valid argv (contract).
    for k in 0..unsafe { argv::count(list) } {
        let mut l = format!("        {title}[{k}]: ").into_bytes();
        // SAFETY: k is before the terminator.
        l.extend(unsafe { text(*list.add(k)) });
        lines.push(l);
    }
}

/// The text of an app.
///
/// # Safety
/// `app` is a valid app.
unsafe fn app_text(app: &pmix_app_t) -> Vec<u8> {
    let mut lines = Vec::new();
    // SAFETY: the app's strings and arrays are valid (contract).
    unsafe {
        lines.push([b"CMD: ".to_vec(), text(app.cmd)].concat());
        list_lines(&mut lines, "ARGV", app.argv);
        list_lines(&mut lines, "ENV", app.env);
        lines.push(match app.cwd.is_null() {
            true => b"    CWD: NULL".to_vec(),
            false => [b"    CWD: ".to_vec(), text(app.cwd)].concat(),
        });
    }
    lines.push(format!("    MAXPROCS: {}", app.maxprocs).into_bytes());
    if app.info.is_null() {
        lines.push(b"    INFO: NONE".to_vec());
    } else {
        lines.push(b"    INFO:".to_vec());
        for n in 0..app.ninfo {
            let mut l = format!("        INFO[{n}]: ").into_bytes();
            // SAFETY: the app holds ninfo valid infos (contract).
            l.extend(unsafe { info_text(app.info.add(n), None) });
            lines.push(l);
        }
    }
    lines.join(&b'\n')
}

/// `char* PMIx_App_string(const pmix_app_t *app)`: `malloc`ed (NULL for
/// a NULL app).
///
/// # Safety
/// `app` is NULL or a valid app.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_string(app: *const pmix_app_t) -> *mut c_char {
    guard_or(null_mut(), || {
        // SAFETY: a valid app (C contract).
        unsafe { app.as_ref() }.map_or(null_mut(), |a| malloc_text(unsafe { app_text(a) }))
    })
}
