//! The readers of what a stranger sends that no public function reaches on its own, for the fuzz
//! targets under `fuzz/` (feature `fuzzing`). Not an API: names and shapes change with the
//! pipeline they come from. Everything else the targets drive (routes, tokens, key sets, webhook
//! signatures, whole requests) is public already.

use bytes::Bytes;
use serde_json::{Map, Value as Json};

use crate::calls::call::Claims;
use crate::calls::error::HostError;
use crate::generated::dispatch::{self, RawCall};
use crate::stores::outbox::{Entry, codec};

/// A call body as the pipeline reads it: JSON, an object, each member named once.
pub fn strict_body(bytes: &[u8]) -> Result<Map<String, Json>, HostError> {
    crate::serving::pipeline::parse_body(&Bytes::copy_from_slice(bytes))
}

/// The `q` of a mention's or container list's query string, as handlers receive it.
pub fn mention_query(query: &str) -> Option<String> {
    crate::serving::pipeline::query_q(Some(query))
}

/// A call body read as every kind of call the generated dispatcher decodes (tool, action, event,
/// mention, context), with untyped inputs, for the claims given; the first error, if any.
pub fn call_envelope(
    body: Map<String, Json>,
    claims: &Claims,
    query: Option<&str>,
) -> Result<(), HostError> {
    let raw = |body: Map<String, Json>| {
        let mut raw = RawCall::new(body, claims.clone(), "fuzz-extension".to_owned());
        raw.query = query.map(str::to_owned);
        raw
    };
    let call = dispatch::call::<Json, Json, Json>(raw(body.clone()));
    let approved = dispatch::approved::<Json, Json, Json>(raw(body.clone()));
    let event = dispatch::event::<Json, Json, Json>(raw(body.clone()));
    let mention = dispatch::mention(raw(body.clone()));
    let context = dispatch::context(raw(body));
    call?;
    approved?;
    event?;
    mention?;
    context?;
    Ok(())
}

/// An outbox record read back, as the file and Redis stores read it: the entry and the owner of
/// its claim, or why it cannot be read.
pub fn outbox_decode(bytes: &[u8]) -> Result<(Entry, String), String> {
    codec::decode(bytes).map_err(|e| e.to_string())
}

/// An outbox record as the file and Redis stores write it.
pub fn outbox_encode(entry: &Entry, owner: &str) -> Vec<u8> {
    codec::encode(entry, owner)
}
