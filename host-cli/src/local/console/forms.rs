//! What the console's page asks for: the forms its requests carry (a call, a delivery, an input or
//! a payload to judge, and the install each one runs as), and [`Replay`], the form a timeline entry
//! keeps so that it can be sent again.
//!
//! Both the buttons' actions and the timeline read these; neither owns them, so they sit below
//! both. Acting on a form is the actions' job; keeping entries is the timeline's.

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

/// The install a page sends with each call: every member optional, defaults as `cargo host call`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct InstallForm {
    /// The install id.
    pub id: Option<String>,
    /// The scope keys granted.
    pub scopes: Option<Vec<String>>,
    /// The `documents` object.
    pub documents: Option<Value>,
    /// The `credentials` object.
    pub credentials: Option<Value>,
    /// The call body's `context`.
    pub context: Option<Value>,
}

/// A call as the page asks for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallForm {
    /// `tool`, `action`, `mention`, `context`, `procedure`, `sync`, `work-containers`,
    /// `work-item`, `work-comment`.
    pub kind: String,
    /// The contribution's id (the procedure's name, the work item's id).
    #[serde(default)]
    pub id: Option<String>,
    /// The input; the default is `call`'s.
    #[serde(default)]
    pub input: Option<Value>,
    /// The picker text of mentions and work containers.
    #[serde(default)]
    pub query: Option<String>,
    /// The install.
    #[serde(default)]
    pub install: InstallForm,
}

/// An input to judge before it is sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckForm {
    /// As in [`CallForm`].
    pub kind: String,
    /// As in [`CallForm`].
    #[serde(default)]
    pub id: Option<String>,
    /// The input.
    pub input: Value,
}

/// A host event's payload to judge before it is delivered.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PayloadForm {
    /// The published event's name.
    pub event: String,
    /// The payload.
    pub payload: Value,
}

/// A delivery as the page asks for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct DeliverForm {
    /// The published event's name.
    pub event: String,
    /// The payload [default: the catalogue's example].
    #[serde(default)]
    pub payload: Option<Value>,
    /// Send the payload exactly as given: the same event again, as the host redelivers it. Without
    /// it, every delivery is a new event: its ids and times are made new
    /// ([`trigger::freshen`](crate::local::trigger::freshen)).
    #[serde(default)]
    pub same: bool,
    /// Replay the host's retry schedule: four attempts whatever the answers.
    #[serde(default)]
    pub retry: bool,
    /// Divide the retry waits by this [default: 1].
    #[serde(default)]
    pub time_scale: Option<f64>,
    /// The install.
    #[serde(default)]
    pub install: InstallForm,
}

/// What replaying an entry does.
#[derive(Debug, Clone)]
pub(crate) enum Replay {
    /// The same call again, with a fresh token.
    Call(CallForm),
    /// The same event again: the payload as it was sent, fresh event ids.
    Deliver(DeliverForm),
    /// The same posted request through the local host's checks again.
    Posted {
        /// Its headers.
        headers: Vec<(String, String)>,
        /// Its body as received.
        body: Bytes,
    },
}
