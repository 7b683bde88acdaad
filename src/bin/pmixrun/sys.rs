//! The only place `pmixrun` calls the operating system (and the C library
//! around it) itself; starting the ranks goes through
//! `std::process::Command`. Every call that reports failure in its return
//! value (`-1`, with the reason in `errno`) checks it with [`cvt`], the one
//! helper, which turns the failure into an [`io::Error`]; the few calls
//! that cannot fail say so in the `SAFETY` comment of their `unsafe`
//! block. Everything outside this module calls the safe functions below
//! (constants such as `libc::SIGTERM` may be named anywhere).

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// The one helper (the library's: the same for every crate of this
/// package): a C call's value, or `errno` as an [`io::Error`] if the
/// value is the call's failure mark. Async-signal-safe.
pub use pmix::os_call::cvt;

/// A pipe whose two ends have `flags` (`O_CLOEXEC`, `O_NONBLOCK`):
/// `(read, write)`.
pub fn pipe(flags: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), flags) })?;
    // SAFETY: pipe2 succeeded: both descriptors are fresh and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Installs `handler` for `sig` with `flags` (`SA_RESTART`, ...) and an
/// empty mask. `handler` must only call async-signal-safe functions.
pub fn set_handler(
    sig: libc::c_int,
    handler: extern "C" fn(libc::c_int),
    flags: libc::c_int,
) -> io::Result<()> {
    // SAFETY: all-zero is a valid sigaction (no handler, no flags, an
    // empty mask).
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = handler as *const () as usize;
    sa.sa_flags = flags;
    // SAFETY: `sa.sa_mask` is a valid sigset_t to fill.
    cvt(unsafe { libc::sigemptyset(&mut sa.sa_mask) })?;
    // SAFETY: `sa` is a valid sigaction whose handler is an
    // `extern "C" fn(c_int)`, as SA_SIGINFO is not set; the old action is
    // not asked for (NULL).
    cvt(unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) })?;
    Ok(())
}

/// `read(2)` into `buf`: the number of bytes read, 0 at end of file.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes of writing.
    let n = cvt(unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) })?;
    Ok(n as usize)
}

/// `write(2)` of `buf`: the number of bytes written.
pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `buf.len()` bytes of reading.
    let n = cvt(unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) })?;
    Ok(n as usize)
}

/// [`write`] from a signal handler: async-signal-safe, and leaves `errno`
/// as it found it (the interrupted code may be about to read it).
pub fn write_in_handler(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: __errno_location returns this thread's errno, always valid.
    let saved = unsafe { *libc::__errno_location() };
    let r = write(fd, buf);
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved };
    r
}

/// Sets `O_NONBLOCK` on `fd`.
pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl(F_GETFL) takes no argument and touches no memory.
    let fl = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    // SAFETY: fcntl(F_SETFL) takes an int and touches no memory.
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) })?;
    Ok(())
}

/// Whether `fd` is a terminal.
pub fn isatty(fd: RawFd) -> bool {
    // SAFETY: isatty(3) has no memory preconditions; it cannot fail in a
    // way that matters here: 0 (errno set) means "not a terminal".
    unsafe { libc::isatty(fd) == 1 }
}

/// `kill(2)`: sends `sig` to `pid` (a negative `pid`: to that process
/// group).
pub fn kill(pid: libc::pid_t, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: kill(2) has no memory preconditions.
    cvt(unsafe { libc::kill(pid, sig) })?;
    Ok(())
}

/// `waitpid(-1, &status, WNOHANG)`: an exited child, its pid and wait
/// status; `None` if no child has exited yet; `ECHILD` when there are no
/// children.
pub fn wait_any_nohang() -> io::Result<Option<(libc::pid_t, libc::c_int)>> {
    let mut status = 0;
    // SAFETY: `status` is a valid int for waitpid to fill.
    let pid = cvt(unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) })?;
    Ok((pid != 0).then_some((pid, status)))
}

/// The exit code in a wait status, if the child exited.
pub fn exit_code(status: libc::c_int) -> Option<libc::c_int> {
    libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status))
}

/// The signal that killed the child, from a wait status, if one did.
pub fn killed_by(status: libc::c_int) -> Option<libc::c_int> {
    libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status))
}

/// The soft and hard limits on open files (`RLIMIT_NOFILE`).
pub fn nofile_limit() -> io::Result<(libc::rlim_t, libc::rlim_t)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid rlimit for getrlimit to fill.
    cvt(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) })?;
    Ok((lim.rlim_cur, lim.rlim_max))
}

/// Sets the soft and hard limits on open files (`RLIMIT_NOFILE`).
pub fn set_nofile_limit(soft: libc::rlim_t, hard: libc::rlim_t) -> io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: `lim` is a valid rlimit for setrlimit to read.
    cvt(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) })?;
    Ok(())
}

/// `poll(2)` on `fds` for up to `timeout_ms` (-1: without bound): how
/// many have events (in their `revents`).
pub fn poll(fds: &mut [libc::pollfd], timeout_ms: libc::c_int) -> io::Result<usize> {
    // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs, which
    // poll reads and writes (`revents`) only.
    let n = cvt(unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) })?;
    Ok(n as usize)
}

/// `ptrace(PTRACE_TRACEME)`: the calling process (a child between fork and
/// exec) stops with `SIGTRAP` at its next exec, its parent as tracer.
/// Async-signal-safe (for `pre_exec`).
pub fn ptrace_traceme() -> io::Result<()> {
    // SAFETY: PTRACE_TRACEME ignores its pid, address and data arguments
    // and touches no memory of ours.
    cvt(unsafe {
        libc::ptrace(
            libc::PTRACE_TRACEME,
            0,
            std::ptr::null_mut::<libc::c_void>(),
            std::ptr::null_mut::<libc::c_void>(),
        ) as libc::c_int // 0 or -1 for this request
    })?;
    Ok(())
}

/// `ptrace(PTRACE_DETACH, pid, 0, sig)`: lets the traced, stopped `pid`
/// go, delivering `sig` to it (`SIGSTOP`: it stays stopped, untraced).
pub fn ptrace_detach(pid: libc::pid_t, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: PTRACE_DETACH reads no memory: the data argument is the
    // signal number passed by value, the address is ignored.
    cvt(unsafe {
        libc::ptrace(
            libc::PTRACE_DETACH,
            pid,
            std::ptr::null_mut::<libc::c_void>(),
            sig as usize as *mut libc::c_void,
        ) as libc::c_int // 0 or -1 for this request
    })?;
    Ok(())
}

/// `waitpid(pid, &status, flags)`, retried when a signal interrupts it:
/// the next change of `pid` that `flags` asks for, as a wait status (with
/// 0: a traced child's next stop, or its exit; with `WUNTRACED`: an
/// untraced child's stop or exit).
pub fn wait_pid(pid: libc::pid_t, flags: libc::c_int) -> io::Result<libc::c_int> {
    loop {
        let mut status = 0;
        // SAFETY: `status` is a valid int for waitpid to fill.
        match cvt(unsafe { libc::waitpid(pid, &mut status, flags) }) {
            Ok(_) => return Ok(status),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The signal that stopped the child, from a wait status, if it stopped.
pub fn stopped_by(status: libc::c_int) -> Option<libc::c_int> {
    libc::WIFSTOPPED(status).then(|| libc::WSTOPSIG(status))
}
