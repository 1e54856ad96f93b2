//! What the manifest declares for one outbound event: its payload schema and whether the host shows
//! its `why`. Generated code holds one per declared webhook.

use std::fmt;

use crate::generated::schema::{Check, Lazy};

use super::PayloadError;

/// What the manifest declares for one outbound event: its name, its payload schema and whether the
/// host shows its `why` (alerts and banners). Generated code holds one per webhook, in a `static`,
/// with the validator the macro generated from the schema.
pub struct PayloadSchema {
    pub(super) event: &'static str,
    pub(super) schema: Lazy,
    pub(super) shows_why: bool,
}

impl fmt::Debug for PayloadSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadSchema")
            .field("event", &self.event)
            .field("shows_why", &self.shows_why)
            .finish_non_exhaustive()
    }
}

impl PayloadSchema {
    /// The declaration of `event`: `schema` is its payload schema as JSON text and `check` the
    /// validator generated from it (`None`: the text is compiled on first use), `shows_why` whether
    /// it is declared `as: "alert"` or `as: "banner"`.
    #[doc(hidden)]
    pub const fn new(
        event: &'static str,
        schema: &'static str,
        check: Option<Check>,
        shows_why: bool,
    ) -> Self {
        PayloadSchema {
            event,
            schema: Lazy::new(schema, check),
            shows_why,
        }
    }

    /// The event name.
    pub fn event(&self) -> &'static str {
        self.event
    }

    /// Checks `payload` as the host will: against the declared schema (draft 2020-12, `format` as an
    /// annotation), then, for alerts and banners, for a `why` that is a string with something besides
    /// white space in it (the sentence the owner reads). The first failure is returned.
    pub fn check(&self, payload: &serde_json::Value) -> Result<(), PayloadError> {
        let fail = |pointer: &str, reason: String| PayloadError {
            event: self.event,
            pointer: if pointer.is_empty() { "/" } else { pointer }.to_owned(),
            reason,
        };
        // The manifest engine compiled every embedded schema before this code was generated, so a
        // schema that cannot be checked is only possible if the generated code was altered.
        match self.schema.violation(payload) {
            Ok(None) => {}
            Ok(Some(v)) => return Err(fail(&v.pointer, v.message)),
            Err(_) => {
                return Err(fail(
                    "/",
                    "the declared payload schema cannot be compiled".into(),
                ));
            }
        }
        if self.shows_why {
            let why = payload.get("why").and_then(serde_json::Value::as_str);
            if why.is_none_or(|w| w.trim().is_empty()) {
                return Err(fail(
                    "/why",
                    "an alert or banner needs a `why` with words in it: the sentence the owner reads"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}
