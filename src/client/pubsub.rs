//! Publish / lookup / unpublish on the client (`PMIx_Publish`,
//! `PMIx_Lookup`, `PMIx_Unpublish` and their non-blocking forms): each is
//! one service request ([`Op::PUBLISH`], [`Op::LOOKUP`],
//! [`Op::UNPUBLISH`]) to the local server, which hands it to its host's
//! datastore. Directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`, `PMIX_WAIT`,
//! `PMIX_TIMEOUT`, ...) travel with the infos; the server adds the
//! caller's uid and gid.

use crate::wire::pubsub::{self, PublishedValue};
use crate::wire::Op;
use crate::{Info, Key, Status};

use super::{Client, StatusCallback};

/// Callback of [`Client::lookup_published_nb`]; runs on the progress
/// thread.
pub type LookupCallback = Box<dyn FnOnce(Result<Vec<PublishedValue>, Status>) + Send + 'static>;

fn lookup_result(r: Result<Vec<u8>, Status>) -> Result<Vec<PublishedValue>, Status> {
    pubsub::decode_lookup_reply(&r?)
        .map(|(_, found)| found)
        .map_err(|e| e.status())
}

fn unit(r: Result<Vec<u8>, Status>) -> Status {
    match r {
        Ok(_) => Status::SUCCESS,
        Err(s) => s,
    }
}

impl Client {
    /// Publishes the data among `infos` (`PMIx_Publish`); returns once the
    /// datastore has it (or refused it: `PMIX_ERR_DUPLICATE_KEY`, ...).
    pub fn publish(&self, infos: &[Info]) -> Result<(), Status> {
        self.request(Op::PUBLISH, pubsub::encode_publish(infos)?)
            .map(|_| ())
    }

    /// `PMIx_Publish_nb`: `cb` gets the outcome.
    pub fn publish_nb(&self, infos: &[Info], cb: StatusCallback) -> Result<(), Status> {
        let body = pubsub::encode_publish(infos)?;
        self.request_nb(Op::PUBLISH, body, Box::new(move |r| cb(unit(r))))
    }

    /// Looks `keys` up (`PMIx_Lookup`): the values found, one per key
    /// found (at least one; fewer than the keys when the lookup was
    /// partial), or `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_TIMEOUT`, ...
    pub fn lookup_published(
        &self,
        keys: &[Key],
        infos: &[Info],
    ) -> Result<Vec<PublishedValue>, Status> {
        if keys.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        lookup_result(self.request(Op::LOOKUP, pubsub::encode_lookup(keys, infos)?))
    }

    /// `PMIx_Lookup_nb`: `cb` gets what [`Client::lookup_published`]
    /// returns.
    pub fn lookup_published_nb(
        &self,
        keys: &[Key],
        infos: &[Info],
        cb: LookupCallback,
    ) -> Result<(), Status> {
        if keys.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let body = pubsub::encode_lookup(keys, infos)?;
        self.request_nb(Op::LOOKUP, body, Box::new(move |r| cb(lookup_result(r))))
    }

    /// Removes what this process published under `keys` (everything with
    /// `None`) (`PMIx_Unpublish`).
    pub fn unpublish(&self, keys: Option<&[Key]>, infos: &[Info]) -> Result<(), Status> {
        self.request(Op::UNPUBLISH, pubsub::encode_unpublish(keys, infos)?)
            .map(|_| ())
    }

    /// `PMIx_Unpublish_nb`: `cb` gets the outcome.
    pub fn unpublish_nb(
        &self,
        keys: Option<&[Key]>,
        infos: &[Info],
        cb: StatusCallback,
    ) -> Result<(), Status> {
        let body = pubsub::encode_unpublish(keys, infos)?;
        self.request_nb(Op::UNPUBLISH, body, Box::new(move |r| cb(unit(r))))
    }
}
