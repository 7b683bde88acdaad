//! Guards that a published segment cannot be changed by anyone holding its
//! descriptor or mapping, and that a reader refuses an unsealed descriptor.

mod common;

use std::io::Error;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use common::*;
use pmix_shmem::*;

fn sealed() -> SealedSegment {
    small_job("wp", 16, 1).build().unwrap().seal().unwrap()
}

#[test]
fn descriptor_carries_every_seal_and_exact_size() {
    let img = small_job("wp", 16, 1).build().unwrap();
    let s = img.seal().unwrap();
    // SAFETY: fcntl on a valid descriptor.
    let seals = unsafe { libc::fcntl(s.fd().as_raw_fd(), libc::F_GET_SEALS) };
    assert_eq!(seals as u32 & REQUIRED_SEALS, REQUIRED_SEALS);
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: valid descriptor and buffer.
    let rc = unsafe { libc::fstat(s.fd().as_raw_fd(), st.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: fstat succeeded.
    assert_eq!(unsafe { st.assume_init() }.st_size as usize, img.len());
    assert_eq!(s.len() as usize, img.len());
}

#[test]
fn writable_shared_mapping_is_refused() {
    let s = sealed();
    // SAFETY: a new mapping request; checked for failure, unmapped if it
    // (wrongly) succeeded.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            s.len() as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            s.fd().as_raw_fd(),
            0,
        )
    };
    let err = Error::last_os_error();
    if p != libc::MAP_FAILED {
        // SAFETY: unmapping what was just mapped.
        unsafe { libc::munmap(p, s.len() as usize) };
        panic!("PROT_WRITE shared mapping of a sealed segment succeeded");
    }
    assert_eq!(err.raw_os_error(), Some(libc::EPERM));
}

#[test]
fn reader_mapping_cannot_be_made_writable() {
    let s = sealed();
    let seg = Segment::from_fd(s.fd()).unwrap();
    let p = seg.as_bytes().as_ptr();
    assert_eq!(p as usize % 4096, 0, "the segment starts its mapping");
    // SAFETY: mprotect on the reader's own mapping; expected to fail. If it
    // succeeded no write is made through it.
    let rc = unsafe { libc::mprotect(p as *mut _, seg.len(), libc::PROT_READ | libc::PROT_WRITE) };
    assert_eq!(
        rc, -1,
        "mprotect(PROT_WRITE) on a sealed segment's mapping succeeded"
    );
    assert_eq!(Error::last_os_error().raw_os_error(), Some(libc::EACCES));
}

#[test]
fn write_resize_and_unseal_fail() {
    let s = sealed();
    let fd = s.fd().as_raw_fd();
    // SAFETY: write of a valid buffer to a valid descriptor.
    let n = unsafe { libc::pwrite(fd, b"x".as_ptr().cast(), 1, 0) };
    assert_eq!(n, -1);
    assert_eq!(Error::last_os_error().raw_os_error(), Some(libc::EPERM));
    for len in [0, s.len() as i64 - 1, s.len() as i64 + 4096] {
        // SAFETY: plain syscall.
        let rc = unsafe { libc::ftruncate(fd, len) };
        assert_eq!(rc, -1, "ftruncate to {len}");
    }
    // SAFETY: plain syscall.
    let rc = unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, 0) };
    assert_eq!(rc, -1, "seals are sealed");
}

#[test]
fn unsealed_descriptor_is_refused() {
    let img = small_job("wp", 4, 1).build().unwrap();
    // SAFETY: valid name and flags.
    let fd = unsafe {
        libc::memfd_create(
            c"unsealed".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        )
    };
    assert!(fd >= 0);
    // SAFETY: fresh descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: valid buffer.
    let n = unsafe { libc::write(fd.as_raw_fd(), img.as_bytes().as_ptr().cast(), img.len()) };
    assert_eq!(n as usize, img.len());
    let e = Segment::from_fd(std::os::fd::AsFd::as_fd(&fd)).unwrap_err();
    assert!(matches!(e, SegmentError::NotSealed { found: 0, .. }), "{e}");
    // Partially sealed (no F_SEAL_WRITE) is refused too.
    let partial = (libc::F_SEAL_SHRINK | libc::F_SEAL_GROW) as libc::c_int;
    // SAFETY: plain syscall.
    let rc = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, partial) };
    assert_eq!(rc, 0);
    assert!(matches!(
        Segment::from_fd(std::os::fd::AsFd::as_fd(&fd)),
        Err(SegmentError::NotSealed { .. })
    ));
}

#[test]
fn a_plain_file_is_refused() {
    let f = std::fs::File::open("/proc/self/exe").unwrap();
    let e = Segment::from_fd(std::os::fd::AsFd::as_fd(&f)).unwrap_err();
    assert!(
        matches!(e, SegmentError::Os { .. } | SegmentError::NotSealed { .. }),
        "{e}"
    );
}
