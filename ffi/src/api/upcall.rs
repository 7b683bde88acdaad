//! The upcall protocol: how the library calls a function of the host's
//! `pmix_server_module_t` and takes its answer, the same for every
//! upcall (the bridges [`super::server_module`], [`super::host_rm`],
//! [`super::server_pubsub`] and [`super::spawn_host`] only build the C
//! arguments and read the host's results).
//!
//! An upcall hands the host one of our callbacks and, as its `cbdata`, a
//! leaked cell holding a [`HostCall`]: the core's [`Completion`] and every
//! C argument that must stay valid until the host answers. The host's
//! return value means, as in OpenPMIx's server ([`Answer`]):
//! `PMIX_SUCCESS`, the callback will come; `PMIX_OPERATION_SUCCEEDED`,
//! done at once and successfully, with no data (a spawn's namespace is
//! then empty, a query's or lookup's results none) and no callback; any
//! other status, refused at once (`PMIX_ERR_NOT_SUPPORTED` among them,
//! passed to the core as it is), no callback.
//!
//! The host may call back from any thread, before or after its function
//! returns, so the cell records which of the two sides is done with it:
//! the operation is taken out exactly once (by the callback, or by the
//! caller when the host will not call back), and the cell is freed by
//! whichever side finishes last. A host that calls back and then returns
//! an error or `PMIX_OPERATION_SUCCEEDED` has answered through the
//! callback: its return value is ignored (OpenPMIx would release its
//! caddy twice). A host that answers at once and calls back later anyway
//! breaks the standard's contract, as it would with OpenPMIx.
//!
//! Invariants: every operation handed to the host is completed (or, when
//! refused, dropped) exactly once; every cell is freed exactly once, after
//! both the upcall returned and, if the host called back, the callback
//! took the operation.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use pmix_core::server::{Completion, OpOutput};
use pmix_core::Status;

use crate::sys::pmix_status_t;

/// An operation in the host's hands: the core's completion and the C
/// arguments `A` that must outlive the upcall (freed when it drops, after
/// the completion).
pub(crate) struct HostCall<T: OpOutput, A> {
    pub(crate) done: Completion<T>,
    pub(crate) args: A,
}

impl<T: OpOutput, A> HostCall<T, A> {
    pub(crate) fn new(done: Completion<T>, args: A) -> Self {
        HostCall { done, args }
    }

    /// Reports the result to the core; the C arguments are freed after.
    pub(crate) fn complete(self, result: Result<T, Status>) {
        let HostCall { done, args } = self;
        done.complete(result);
        drop(args);
    }
}

/// An operation the host can answer at once with
/// `PMIX_OPERATION_SUCCEEDED`.
pub(crate) trait HostOp {
    /// Completes it successfully, with no data.
    fn succeeded(self);
}

impl<T: OpOutput + Default, A> HostOp for HostCall<T, A> {
    fn succeeded(self) {
        self.complete(Ok(T::default()));
    }
}

/// What a host function's return value says about its upcall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `PMIX_SUCCESS`: the host took the operation; its callback will
    /// come.
    Later,
    /// `PMIX_OPERATION_SUCCEEDED`: done at once, successfully, with no
    /// data; no callback.
    Done,
    /// Any other status: refused at once; no callback.
    Refused(Status),
}

impl Answer {
    pub(crate) fn of(rc: pmix_status_t) -> Answer {
        match Status(rc) {
            Status::SUCCESS => Answer::Later,
            Status::OPERATION_SUCCEEDED => Answer::Done,
            s => Answer::Refused(s),
        }
    }
}

/// The host function returned (the cell's stage).
const RETURNED: u8 = 1;
/// The host called back.
const CALLED_BACK: u8 = 2;

/// What `cbdata` points to: the operation until one side takes it, and
/// which side is done with the cell.
struct Cell<O> {
    /// 0 while the upcall runs and no callback came, else the stage of
    /// the side that finished first.
    stage: AtomicU8,
    op: Mutex<Option<O>>,
}

impl<O> Cell<O> {
    fn take(&self) -> Option<O> {
        self.op.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Marks this side (`stage`) done with the cell; true if the other
    /// side is done too, so that this one must free it.
    fn leave(&self, stage: u8) -> bool {
        self.stage.swap(stage, Ordering::AcqRel) != 0
    }
}

/// Runs one upcall: leaks `op` as the `cbdata` that `f` passes the host
/// with one of our callbacks (which takes it back with [`answered`]),
/// and acts on the host's return value (see the module doc). `Ok` when
/// the operation is completed or will be; `Err` when the host refused it.
pub(crate) fn call<O: HostOp>(
    op: O,
    f: impl FnOnce(*mut c_void) -> pmix_status_t,
) -> Result<(), Status> {
    let cell = Box::into_raw(Box::new(Cell {
        stage: AtomicU8::new(0),
        op: Mutex::new(Some(op)),
    }));
    let answer = Answer::of(f(cell.cast()));
    // SAFETY: the cell is freed only by the side that leaves it last, and
    // this side has not left it yet.
    let c = unsafe { &*cell };
    let op = match answer {
        Answer::Later => None,
        Answer::Done | Answer::Refused(_) => c.take(),
    };
    // A host that answers at once (done or refused) never calls back:
    // with the operation still here, the cell is ours alone.
    if c.leave(RETURNED) || op.is_some() {
        // SAFETY: both sides are done with the cell (see above); it came
        // from Box::into_raw and is freed once, here.
        drop(unsafe { Box::from_raw(cell) });
    }
    match (answer, op) {
        (Answer::Done, Some(op)) => {
            op.succeeded();
            Ok(())
        }
        (Answer::Refused(s), Some(op)) => {
            drop(op);
            Err(s)
        }
        // Pending, or answered through the callback already.
        _ => Ok(()),
    }
}

/// In one of our callbacks: takes the operation behind `cbdata` (a cell
/// leaked by [`call`] for an `O`); `None` if `cbdata` is NULL or the
/// operation was answered already.
///
/// # Safety
/// `cbdata` is NULL or the `cbdata` that [`call`] gave the host with an
/// `O`, and the host calls back at most once, and not after answering
/// the upcall at once (`PMIX_OPERATION_SUCCEEDED` or an error returned
/// without having called back).
pub(crate) unsafe fn answered<O>(cbdata: *mut c_void) -> Option<O> {
    if cbdata.is_null() {
        return None;
    }
    let cell = cbdata.cast::<Cell<O>>();
    // SAFETY: a live cell of this type (the contract): the caller side
    // frees it only after this side has left.
    let c = unsafe { &*cell };
    let op = c.take();
    if c.leave(CALLED_BACK) {
        // SAFETY: both sides are done with the cell; freed once, here.
        drop(unsafe { Box::from_raw(cell) });
    }
    op
}

#[cfg(test)]
mod tests {
    //! The protocol against hosts answering every way, with an operation
    //! that records its result and the freeing of its arguments.

    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    type Got = Arc<Mutex<Vec<Result<u8, Status>>>>;

    /// Records its result; counts its drops (the C arguments' freeing).
    struct Op(Got, Arc<AtomicUsize>);

    impl Op {
        fn complete(self, r: Result<u8, Status>) {
            self.0.lock().unwrap().push(r);
        }
    }

    impl HostOp for Op {
        fn succeeded(self) {
            self.complete(Ok(0));
        }
    }

    impl Drop for Op {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn callback(cbdata: *mut c_void, status: Status) {
        // SAFETY: cbdata from `call` with an Op, called back once.
        if let Some(op) = unsafe { answered::<Op>(cbdata) } {
            op.complete(status.into_result().map(|_| 7));
        }
    }

    fn run(rc: Status, call_back: Option<Status>) -> (Result<(), Status>, Got, usize) {
        let got = Got::default();
        let freed = Arc::new(AtomicUsize::new(0));
        let r = call(Op(got.clone(), freed.clone()), |cb| {
            if let Some(s) = call_back {
                callback(cb, s);
            }
            rc.0
        });
        (r, got, freed.load(Ordering::SeqCst))
    }

    #[test]
    fn operation_succeeded_completes_with_no_data() {
        let (r, got, freed) = run(Status::OPERATION_SUCCEEDED, None);
        assert_eq!(r, Ok(()));
        assert_eq!(*got.lock().unwrap(), vec![Ok(0)]);
        assert_eq!(freed, 1);
    }

    #[test]
    fn a_refusal_is_returned_and_nothing_completes() {
        let (r, got, freed) = run(Status::ERR_NOT_SUPPORTED, None);
        assert_eq!(r, Err(Status::ERR_NOT_SUPPORTED));
        assert!(got.lock().unwrap().is_empty());
        assert_eq!(freed, 1);
    }

    #[test]
    fn a_callback_inside_the_call_counts_once_whatever_is_returned() {
        for rc in [
            Status::SUCCESS,
            Status::OPERATION_SUCCEEDED,
            Status::ERR_BAD_PARAM,
        ] {
            let (r, got, freed) = run(rc, Some(Status::SUCCESS));
            assert_eq!(r, Ok(()), "{rc:?}");
            assert_eq!(*got.lock().unwrap(), vec![Ok(7)], "{rc:?}");
            assert_eq!(freed, 1, "{rc:?}");
        }
    }

    #[test]
    fn a_callback_from_another_thread_after_the_return() {
        let got = Got::default();
        let freed = Arc::new(AtomicUsize::new(0));
        let mut pending = None;
        let r = call(Op(got.clone(), freed.clone()), |cb| {
            pending = Some(crate::boundary::SendPtr(cb));
            Status::SUCCESS.0
        });
        assert_eq!(r, Ok(()));
        assert!(got.lock().unwrap().is_empty());
        assert_eq!(freed.load(Ordering::SeqCst), 0);
        let p = pending.unwrap();
        std::thread::spawn(move || {
            let p = p;
            callback(p.0, Status::ERR_TIMEOUT)
        })
        .join()
        .unwrap();
        assert_eq!(*got.lock().unwrap(), vec![Err(Status::ERR_TIMEOUT)]);
        assert_eq!(freed.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn answers_of_return_values() {
        assert_eq!(Answer::of(Status::SUCCESS.0), Answer::Later);
        assert_eq!(Answer::of(Status::OPERATION_SUCCEEDED.0), Answer::Done);
        assert_eq!(
            Answer::of(Status::ERR_NOT_SUPPORTED.0),
            Answer::Refused(Status::ERR_NOT_SUPPORTED)
        );
    }
}
