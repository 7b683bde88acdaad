//! Signals as bytes on a self-pipe: the handlers of `SIGCHLD` and of the
//! signals forwarded to the job (`SIGINT`, `SIGTERM`, `SIGHUP`, `SIGUSR1`,
//! `SIGUSR2`) write the signal's number to a non-blocking pipe that the
//! main poll loop reads. [`wake`] writes a 0 byte: the host module's way to
//! tell the loop that something happened (an abort, a finalize).

use std::io;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};

use crate::sys;

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
        // A full pipe drops the byte, which is fine: the loop drains the
        // pipe and reaps every exited child at each wake-up anyway.
        let _ = sys::write_in_handler(fd, &[sig as u8]);
    }
}

/// The read end of the self-pipe.
pub struct SignalPipe {
    read: OwnedFd,
}

impl SignalPipe {
    /// Creates the pipe and installs the handlers (once per process).
    pub fn install() -> io::Result<SignalPipe> {
        let (read, write) = sys::pipe(libc::O_CLOEXEC | libc::O_NONBLOCK)?;
        // The write end lives as long as the process (handlers use it).
        WRITE_FD.store(write.into_raw_fd(), Ordering::Relaxed);
        for sig in FORWARDED.iter().chain(&[libc::SIGCHLD]) {
            // `on_signal` only calls async-signal-safe functions.
            sys::set_handler(*sig, on_signal, libc::SA_RESTART | libc::SA_NOCLDSTOP)?;
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
            match sys::read(self.fd(), &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
        out
    }
}

/// Wakes the main loop (from any thread).
pub fn wake() {
    let fd = WRITE_FD.load(Ordering::Relaxed);
    if fd >= 0 {
        let _ = sys::write(fd, &[0]);
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
    // `pid` is an unreaped child of ours, so its group id cannot have
    // been reused.
    if sys::kill(-pid, sig).is_err() {
        // The rank left its group (setsid/setpgid): signal it alone.
        let _ = sys::kill(pid, sig);
    }
}
