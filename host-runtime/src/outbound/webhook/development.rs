//! The published development secret, kept out of a production server.
//!
//! Every copy of the SDK holds the development signing secret
//! ([`DEVELOPMENT_WEBHOOK_SECRET`](crate::testing::DEVELOPMENT_WEBHOOK_SECRET)), so an event signed
//! with it proves nothing. A server that trusts a deployed host's key set (a key set URL that is
//! not on this machine) is a production server, and its events must be signed with the install's
//! own secret. The two are built apart (a [`Handler`](crate::Handler) and an
//! [`EventSender`](crate::EventSender)), so the process remembers each: whichever comes second is
//! refused, naming the other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// The development secret (`testing::DEVELOPMENT_WEBHOOK_SECRET` gives it to vendors): the
/// bytes of "host-sdk development secret!", base64.
pub(crate) const SECRET: &str = "whsec_aG9zdC1zZGsgZGV2ZWxvcG1lbnQgc2VjcmV0IQ==";

/// Whether an `EventSender` of this process signs with the development secret.
static SIGNING_WITH_IT: AtomicBool = AtomicBool::new(false);
/// The deployed key set a handler of this process started with, if one did.
static DEPLOYED_KEYS: Mutex<Option<String>> = Mutex::new(None);

/// Whether `secret` is the published development secret.
pub(crate) fn is_development_secret(secret: &str) -> bool {
    secret.trim() == SECRET
}

/// A sender is about to sign with the development secret: refused when a handler of this process
/// trusts a deployed key set; noted otherwise.
pub(crate) fn sender_signs_with_it() -> Result<(), super::WebhookError> {
    let deployed = DEPLOYED_KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(key_set) = &*deployed {
        return Err(super::WebhookError::DevelopmentSecret {
            key_set: key_set.clone(),
        });
    }
    SIGNING_WITH_IT.store(true, Ordering::SeqCst);
    Ok(())
}

/// A handler trusting the key set at `url` starts: refused (with the key set, for the message)
/// when the URL is a deployed host's and a sender of this process signs with the development
/// secret; noted otherwise.
pub(crate) fn handler_trusts(url: &str) -> Result<(), String> {
    if crate::auth::on_this_machine(url) {
        return Ok(());
    }
    let mut deployed = DEPLOYED_KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    if SIGNING_WITH_IT.load(Ordering::SeqCst) {
        return Err(url.to_owned());
    }
    *deployed = Some(url.to_owned());
    Ok(())
}
