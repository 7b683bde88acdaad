//! `PMIx_Spawn` on the server: the request is decoded and handed to the
//! host's [`HostModule::spawn`](super::HostModule::spawn) with the
//! requestor; the host's namespace is the answer. Without the callback the
//! client's spawn fails with `PMIX_ERR_NOT_SUPPORTED`.

use super::event_loop::EventLoop;
use super::services::Caller;
use crate::wire::process_mgmt;
use crate::Proc;

impl EventLoop {
    /// Handles a [`crate::wire::Op::SPAWN`] request from `proc`.
    pub(super) fn spawn_request(&mut self, caller: Caller, proc: &Proc, body: &[u8]) {
        let (infos, apps) = match process_mgmt::decode_spawn(body) {
            Ok(x) => x,
            Err(s) => return self.respond(caller, Err(s)),
        };
        let (op, done) =
            self.host_op::<crate::Nspace>(caller, |ns| process_mgmt::encode_nspace(&ns));
        let host = self.host_module();
        if let Err(s) = host.spawn(proc, &infos, &apps, done) {
            self.refuse_op(op, s);
        }
    }
}
