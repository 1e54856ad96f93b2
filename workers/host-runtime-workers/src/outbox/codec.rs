//! Events, settlements and puts as the JSON a [`DurableOutbox`](crate::DurableOutbox) and its
//! `HostOutbox` object exchange, and as the object stores them.

use host_runtime::outbox::{Entry, Put, Settlement, StoreError, StoreErrorKind};
use host_runtime::serde_json::{Value, json};

/// How a put ended, on the wire.
pub(super) fn put_name<T>(put: &Put<T>) -> &'static str {
    match put {
        Put::Stored(_) => "stored",
        Put::AlreadyPending => "pending",
        Put::AlreadyDelivered => "delivered",
        Put::Conflict => "conflict",
    }
}

/// How a put ended, from the wire; `stored` is the value stored (none: the answer cannot be
/// `stored`).
pub(super) fn put_of<T>(name: &Value, stored: Option<T>) -> Option<Put<T>> {
    Some(match name.as_str()? {
        "stored" => Put::Stored(stored?),
        "pending" => Put::AlreadyPending,
        "delivered" => Put::AlreadyDelivered,
        "conflict" => Put::Conflict,
        _ => return None,
    })
}

/// An entry as JSON. The body is an event envelope, which is JSON and so UTF-8.
pub(super) fn entry_json(entry: &Entry) -> std::result::Result<Value, StoreError> {
    let body = std::str::from_utf8(&entry.body).map_err(|_| {
        StoreError::new(
            "durable object",
            StoreErrorKind::Refused,
            format!(
                "event {} has a body that is not UTF-8 text; only JSON envelopes are stored",
                entry.id
            ),
        )
    })?;
    Ok(json!({
        "id": entry.id,
        "body": body,
        "attempts": entry.attempts,
        "due": entry.due,
        "accepted": entry.accepted,
        "last_error": entry.last_error,
    }))
}

pub(super) fn entry_of(value: &Value) -> Option<Entry> {
    Some(Entry {
        id: value["id"].as_str()?.to_owned(),
        body: value["body"].as_str()?.as_bytes().to_vec(),
        attempts: u32::try_from(value["attempts"].as_u64()?).ok()?,
        due: value["due"].as_i64()?,
        accepted: value["accepted"].as_i64()?,
        last_error: value["last_error"].as_str().map(str::to_owned),
    })
}

pub(super) fn entries(value: &Value) -> Option<Vec<Entry>> {
    value.as_array()?.iter().map(entry_of).collect()
}

pub(super) fn settlement_json(settlement: &Settlement) -> Value {
    match settlement {
        Settlement::Delivered => json!({ "kind": "delivered" }),
        Settlement::Retry {
            attempts,
            due,
            error,
        } => json!({ "kind": "retry", "attempts": attempts, "due": due, "error": error }),
        Settlement::Dead {
            attempts,
            at,
            reason,
        } => json!({ "kind": "dead", "attempts": attempts, "at": at, "reason": reason }),
    }
}

pub(super) fn settlement_of(value: &Value) -> Option<Settlement> {
    let attempts = || u32::try_from(value["attempts"].as_u64()?).ok();
    Some(match value["kind"].as_str()? {
        "delivered" => Settlement::Delivered,
        "retry" => Settlement::Retry {
            attempts: attempts()?,
            due: value["due"].as_i64()?,
            error: value["error"].as_str()?.to_owned(),
        },
        "dead" => Settlement::Dead {
            attempts: attempts()?,
            at: value["at"].as_i64()?,
            reason: value["reason"].as_str()?.to_owned(),
        },
        _ => return None,
    })
}
