//! From a verified host call to a vendor's trait method and back: the call body made typed
//! ([`RawCall`] and the `call`, `approved`, `event`, ... helpers), the [`Dispatch`] trait the generated
//! dispatcher implements, and the typed answers turned into checked JSON ([`Reply`]).
//!
//! Generated code reaches these through the private support module.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value as Json};

use crate::calls::answer::{ContextBlock, MentionItems, ToolAnswer};
use crate::calls::call::{Approved, Call, CallContext, Claims, ContextCall, Install, MentionCall};
use crate::calls::error::{ErrorCode, HostError};

use crate::calls::route::Route;
use crate::platform::BoxFuture;

/// What a dispatched call answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// 200 with a JSON body the pipeline still checks (procedure outputs, metrics, work links).
    Json(Json),
    /// 200 with a JSON body already encoded and checked (tool answers, context blocks): sent as is.
    Encoded(bytes::Bytes),
    /// 204 (event deliveries).
    NoContent,
}

/// A host call after verification, before it is typed. Only the runtime makes one.
#[derive(Debug, Clone)]
pub struct RawCall {
    pub(crate) body: Map<String, Json>,
    pub(crate) claims: Claims,
    pub(crate) extension_id: String,
    pub(crate) query: Option<String>,
    pub(crate) event_id: Option<String>,
    pub(crate) request: crate::calls::call::RequestParts,
}

impl RawCall {
    pub(crate) fn new(body: Map<String, Json>, claims: Claims, extension_id: String) -> Self {
        RawCall {
            body,
            claims,
            extension_id,
            query: None,
            event_id: None,
            request: Default::default(),
        }
    }

    fn install(&mut self) -> Result<Install, HostError> {
        match self.body.remove("install") {
            Some(v) => serde_json::from_value(v)
                .map_err(|e| HostError::bad_request(format!("`install`: {e}"))),
            None => Ok(Install {
                id: self.claims.sub.clone(),
                extension_id: self.extension_id.clone(),
                project_id: self.claims.project_id.clone(),
                organization_id: self.claims.organization_id.clone(),
            }),
        }
    }

    fn member<T: DeserializeOwned>(&mut self, name: &str, missing: Json) -> Result<T, HostError> {
        let mut v = self.body.remove(name).unwrap_or(missing);
        // Only what the manifest's schemas type: the input and the stored documents.
        if matches!(name, "input" | "documents") {
            whole_numbers_as_integers(&mut v);
        }
        serde_json::from_value(v).map_err(|e| {
            if name == "input" {
                HostError::input_invalid(format!("`input`: {e}"))
            } else {
                HostError::bad_request(format!("`{name}`: {e}"))
            }
        })
    }

    fn into_call<I: DeserializeOwned, C: DeserializeOwned, D: DeserializeOwned>(
        mut self,
        input: Option<Json>,
    ) -> Result<Call<I, C, D>, HostError> {
        let install = self.install()?;
        let context = CallContext::lenient(self.body.remove("context").unwrap_or(Json::Null));
        let input = match input {
            Some(mut v) => {
                whole_numbers_as_integers(&mut v);
                serde_json::from_value(v)
                    .map_err(|e| HostError::input_invalid(format!("payload: {e}")))?
            }
            None => self.member("input", Json::Object(Map::new()))?,
        };
        let credentials = self.member("credentials", Json::Object(Map::new()))?;
        let documents = self.member("documents", Json::Object(Map::new()))?;
        Ok(Call {
            input,
            credentials,
            documents,
            install,
            context,
            claims: self.claims,
            event_id: self.event_id,
            request: self.request,
        })
    }
}

/// JSON Schema counts `1.0` as the integer 1, serde does not: whole numbers written with a fraction
/// (and small enough to be exact) become integers before typed decoding, so a value valid against an
/// `integer` schema always decodes. Numbers with a fraction are left as they are.
fn whole_numbers_as_integers(v: &mut Json) {
    match v {
        Json::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0
            {
                *v = Json::from(f as i64);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Json::Object(map) => map.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// Implemented by the dispatcher `host_extension!` generates around the vendor's value.
pub trait Dispatch: Send + Sync + 'static {
    /// Routes one verified call to the vendor's trait method and encodes its answer.
    fn dispatch<'a>(
        &'a self,
        route: Route<'a>,
        call: RawCall,
    ) -> BoxFuture<'a, Result<Reply, HostError>>;
}

/// A tool, procedure or work call.
pub fn call<I: DeserializeOwned, C: DeserializeOwned, D: DeserializeOwned>(
    raw: RawCall,
) -> Result<Call<I, C, D>, HostError> {
    raw.into_call(None)
}

/// An action call: the host sends it only after the owner approved.
pub fn approved<I: DeserializeOwned, C: DeserializeOwned, D: DeserializeOwned>(
    raw: RawCall,
) -> Result<Approved<I, C, D>, HostError> {
    raw.into_call(None).map(Approved::new)
}

/// An event delivery: the payload at `event.payload` becomes the call's input.
pub fn event<P: DeserializeOwned, C: DeserializeOwned, D: DeserializeOwned>(
    mut raw: RawCall,
) -> Result<Call<P, C, D>, HostError> {
    let payload = raw
        .body
        .get_mut("event")
        .and_then(|e| e.get_mut("payload"))
        .map(Json::take)
        .ok_or_else(|| HostError::bad_request("the event body has no `event.payload`"))?;
    raw.body.remove("event");
    raw.into_call(Some(payload))
}

/// A mention picker call.
pub fn mention(mut raw: RawCall) -> Result<MentionCall, HostError> {
    let install = raw.install()?;
    Ok(MentionCall {
        q: raw.query.take().unwrap_or_default(),
        install,
        claims: raw.claims,
        request: raw.request,
    })
}

/// A context provider call.
pub fn context(mut raw: RawCall) -> Result<ContextCall, HostError> {
    let install = raw.install()?;
    Ok(ContextCall {
        install,
        claims: raw.claims,
        request: raw.request,
    })
}

/// A comment call: the item id from the route, the comment from the body's `input`.
pub fn work_comment<C: DeserializeOwned, D: DeserializeOwned>(
    item: String,
    raw: RawCall,
) -> Result<Call<(String, crate::calls::work::NewComment), C, D>, HostError> {
    let call: Call<crate::calls::work::NewComment, C, D> = raw.into_call(None)?;
    Ok(Call {
        input: (item, call.input),
        credentials: call.credentials,
        documents: call.documents,
        install: call.install,
        context: call.context,
        claims: call.claims,
        event_id: call.event_id,
        request: call.request,
    })
}

use host_interface::limits::{MENTION_ITEMS_KEPT, MENTION_LABEL_CHARS};

/// Checks and encodes a tool answer (its card shape and size limit).
pub fn tool_answer<A: ToolAnswer>(answer: A) -> Result<Reply, HostError> {
    answer.check()?;
    let bytes = serde_json::to_vec(&answer).map_err(|e| {
        HostError::from_code(
            ErrorCode::ToolResponseInvalid,
            format!("the tool's answer cannot be encoded: {e}"),
        )
    })?;
    crate::calls::check::tool_answer_size(bytes.len())?;
    Ok(Reply::Encoded(bytes.into()))
}

/// Checks, trims and encodes a mention answer (first 20 items, labels cut to 80 characters). An
/// item with an empty `id` (nothing for the host to insert) or an empty `label` (nothing to show) is
/// not a mention item.
pub fn mention_answer(mut answer: MentionItems) -> Result<Reply, HostError> {
    answer.items.truncate(MENTION_ITEMS_KEPT);
    crate::calls::check::mention_items(&answer)?;
    for item in &mut answer.items {
        if let Some((cut, _)) = item.label.char_indices().nth(MENTION_LABEL_CHARS) {
            item.label.truncate(cut);
        }
    }
    encode(&answer, ErrorCode::Internal)
}

/// Checks and encodes a context block (at most 2,048 bytes of compact JSON).
pub fn context_answer(answer: ContextBlock) -> Result<Reply, HostError> {
    let bytes = serde_json::to_vec(&answer).map_err(|e| HostError::internal(e.to_string()))?;
    crate::calls::check::context_size(bytes.len())?;
    Ok(Reply::Encoded(bytes.into()))
}

/// Encodes a procedure's typed output.
pub fn procedure_answer<O: Serialize>(answer: O) -> Result<Reply, HostError> {
    encode(&answer, ErrorCode::ProcedureResponseInvalid)
}

/// Encodes any other answer (actions, metrics, work).
pub fn json_answer<T: Serialize>(answer: T) -> Result<Reply, HostError> {
    encode(&answer, ErrorCode::Internal)
}

/// An event handler's success: 204.
pub fn event_answer(_: ()) -> Result<Reply, HostError> {
    Ok(Reply::NoContent)
}

fn encode<T: Serialize>(answer: &T, code: ErrorCode) -> Result<Reply, HostError> {
    serde_json::to_value(answer)
        .map(Reply::Json)
        .map_err(|e| HostError::from_code(code, format!("the answer cannot be encoded: {e}")))
}

/// No route of the manifest matches.
pub fn not_found(route: Route<'_>) -> HostError {
    let what = match route {
        Route::Tool(id) => format!("no tool `{id}`"),
        Route::Action(id) => format!("no action `{id}`"),
        Route::Mention(id) => format!("no mention `{id}`"),
        Route::Context(id) => format!("no context provider `{id}`"),
        Route::Procedure(name) => format!("no procedure `{name}`"),
        Route::Event(name) => {
            return HostError::from_code(
                ErrorCode::EventNotSubscribed,
                format!(
                    "the server does not subscribe to `{}`",
                    name.unwrap_or_default()
                ),
            );
        }
        Route::Metrics => "no connector metrics".to_owned(),
        Route::WorkContainers | Route::WorkItems | Route::WorkComment(_) => {
            "no work destination".to_owned()
        }
        Route::Health => "no such route".to_owned(),
    };
    HostError::not_found(format!("{what} in this extension"))
}

/// The boxed future of one handler method's answer: the decoded `call` handed to `method`, whose
/// result `reply` encodes; a call that did not decode is answered with its error.
///
/// The method's future is stored once: an `async` block awaiting it would keep a second slot of
/// its full size (and one of the call) for as long as the call is in flight.
pub fn answer<'a, C, F, T, R>(
    call: Result<C, HostError>,
    method: impl FnOnce(C) -> F,
    reply: R,
) -> BoxFuture<'a, Result<Reply, HostError>>
where
    F: std::future::Future<Output = Result<T, HostError>> + Send + 'a,
    R: FnOnce(T) -> Result<Reply, HostError> + Send + 'a,
{
    match call {
        Ok(call) => Box::pin(futures_util::FutureExt::map(
            method(call),
            move |answered| answered.and_then(reply),
        )),
        Err(e) => ready(Err(e)),
    }
}

/// Returns a ready value as a boxed future (for routes that fail before any await).
pub fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::answer::{MentionItem, Table};
    use serde_json::json;

    fn claims() -> Claims {
        Claims {
            iss: "https://auth.host.example".into(),
            aud: vec!["ext".into()],
            sub: "ins_1".into(),
            iat: 0,
            exp: 0,
            nbf: None,
            jti: None,
            organization_id: "org_1".into(),
            project_id: Some("prj_1".into()),
            generation: 1,
            scopes: vec![],
        }
    }

    fn raw(body: Json) -> RawCall {
        RawCall::new(
            body.as_object().cloned().unwrap_or_default(),
            claims(),
            "ext".into(),
        )
    }

    #[derive(serde::Deserialize, Debug)]
    struct Input {
        country: String,
    }

    #[derive(serde::Deserialize, Debug, Default)]
    struct Creds {
        api_key: String,
    }

    #[test]
    fn a_call_body_becomes_a_typed_call() {
        let body = json!({
            "install": { "id": "ins_1", "extensionId": "ext", "projectId": null, "organizationId": "org_1" },
            "input": { "country": "DE" },
            "credentials": { "api_key": "k" }
        });
        let c: Call<Input, Creds, crate::NoDocuments> = call(raw(body)).unwrap();
        assert_eq!(c.input.country, "DE");
        assert_eq!(c.credentials.api_key, "k");
        assert_eq!(c.install.project_id, None);
    }

    #[test]
    fn bad_input_is_input_invalid_and_bad_credentials_bad_request() {
        let e = call::<Input, Creds, crate::NoDocuments>(raw(
            json!({ "input": {}, "credentials": { "api_key": "k" } }),
        ))
        .unwrap_err();
        assert_eq!((e.code(), e.status()), ("INPUT_INVALID", 422));
        let e =
            call::<Input, Creds, crate::NoDocuments>(raw(json!({ "input": { "country": "DE" } })))
                .unwrap_err();
        assert_eq!((e.code(), e.status()), ("BAD_REQUEST", 400));
    }

    #[test]
    fn a_get_builds_its_install_from_the_claims() {
        let m = mention(raw(json!({}))).unwrap();
        assert_eq!(m.install.id, "ins_1");
        assert_eq!(m.install.project_id.as_deref(), Some("prj_1"));
    }

    #[test]
    fn mention_answers_are_trimmed() {
        let items = (0..30)
            .map(|i| MentionItem::new(i.to_string(), "é".repeat(100)))
            .collect();
        let Ok(Reply::Json(v)) = mention_answer(MentionItems { items }) else {
            panic!("json")
        };
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 20);
        assert_eq!(items[0]["label"].as_str().unwrap().chars().count(), 80);
    }

    #[test]
    fn oversized_context_and_invalid_tool_answers_fail_with_their_codes() {
        let e = context_answer(ContextBlock::new("x".repeat(3000))).unwrap_err();
        assert_eq!((e.code(), e.status()), ("CONTEXT_TOO_LARGE", 502));
        assert!(context_answer(ContextBlock::new("x".repeat(2000))).is_ok());
        let e = tool_answer(Table::new().row([("x", 1.0)])).unwrap_err();
        assert_eq!((e.code(), e.status()), ("TOOL_RESPONSE_INVALID", 502));
        let big = Table::new()
            .column("k", "K")
            .row([("k", "x".repeat(host_interface::limits::TOOL_ANSWER_BYTES))]);
        assert_eq!(
            tool_answer(big).unwrap_err().code(),
            "TOOL_RESPONSE_TOO_LARGE"
        );
    }

    #[test]
    fn unsubscribed_events_are_not_subscribed_errors() {
        let e = not_found(Route::Event(Some("digest.sent")));
        assert_eq!((e.code(), e.status()), ("EVENT_NOT_SUBSCRIBED", 422));
        assert_eq!(not_found(Route::Tool("x")).status(), 404);
    }
}
