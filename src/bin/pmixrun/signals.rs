//! Signals as bytes on a self-pipe: the handlers of `SIGCHLD` and of the
//! signals forwarded to the job (`SIGINT`, `SIGTERM`, `SIGHUP`, `SIGUSR1`,
//! `SIGUSR2`) write the signal's number to a non-blocking pipe that the
//! main poll loop reads. [`wake`] writes a 0 byte: the host module's way to
//! tell the loop that something happened (an abort, a finalize).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};

/// The signals forwarded to every running rank.
pub const FORWARDED: [libc::c_int; 5] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Write end of the self-pipe (-1 before [`install`]).
static WRITE_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = WRITE_FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = sig as u8;
        // SAFETY: write(2) is async-signal-safe; `b` lives for the call.
        // A full pipe drops the byte, which is fine: the loop drains the
        // pipe and reaps every exited child at each wake-up anyway.
        unsafe {
            let saved = *libc::__errno_location();
            libc::write(fd, (&b as *const u8).cast(), 1);
            *libc::__errno_location() = saved;
        }
    }
}

/// The read end of the self-pipe.
pub struct SignalPipe {
    read: OwnedFd,
}

impl SignalPipe {
    /// Creates the pipe and installs the handlers (once per process).
    pub fn install() -> io::Result<SignalPipe> {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded: fds[0] is a fresh descriptor we own.
        let read = unsafe { OwnedFd::from_raw_fd(fds[0]) };
        // The write end lives as long as the process (handlers use it).
        WRITE_FD.store(fds[1], Ordering::Relaxed);
        for sig in FORWARDED.iter().chain(&[libc::SIGCHLD]) {
            // SAFETY: a zeroed sigaction is a valid starting value; the
            // handler is an `extern "C" fn(c_int)` that only calls
            // async-signal-safe functions.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as usize;
                sa.sa_flags = libc::SA_RESTART | libc::SA_NOCLDSTOP;
                libc::sigemptyset(&mut sa.sa_mask);
                if libc::sigaction(*sig, &sa, std::ptr::null_mut()) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(SignalPipe { read })
    }

    /// The descriptor to poll for reading.
    pub fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// Every byte written since the last call (signal numbers; 0 = wake).
    pub fn drain(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: `buf` is valid for `buf.len()` bytes of writing.
            let n = unsafe { libc::read(self.fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
        out
    }
}

/// Wakes the main loop (from any thread).
pub fn wake() {
    let fd = WRITE_FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let b = 0u8;
        // SAFETY: write(2) of one byte from a live local.
        unsafe {
            libc::write(fd, (&b as *const u8).cast(), 1);
        }
    }
}

/// The signal's name for messages.
pub fn name(sig: i32) -> String {
    let n = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    format!("{n} ({sig})")
}

/// Sends `sig` to the process group led by `pid` (each rank leads one).
pub fn send_group(pid: i32, sig: i32) {
    // SAFETY: kill(2) has no memory preconditions; `pid` is an unreaped
    // child of ours, so its group id cannot have been reused.
    let r = unsafe { libc::kill(-pid, sig) };
    if r != 0 {
        // The rank left its group (setsid/setpgid): signal it alone.
        // SAFETY: as above.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}
