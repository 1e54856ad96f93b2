// Every shape of schema a valid manifest can hold has its documented name, and a vendor can use it:
// bare objects, arrays, scalars, `null`, `{}`, `$defs` and `$ref`, `$anchor`, recursion, `$ref` beside
// other keywords, `allOf`, a tagged `oneOf`, `anyOf`, mixed enums, `const`, nullable types,
// `prefixItems`, `patternProperties`, `additionalProperties`, `if`/`then`/`else`, `dependentSchemas`
// and `unevaluatedProperties`. Compiled with every lint of the workspace denied, including
// `missing_docs`; `main` checks that values go through the types unchanged.
#![deny(warnings, missing_docs)]
//! Schema shapes.

use host_runtime::answer::{List, ListItem, Value};
use host_runtime::serde_json::{self, json};
use host_runtime::HostError;

host_runtime::host_extension!("repo/tests/ui-tests/ui/manifests/schema-shapes/host.extension.json");

struct Shapes;

impl Tools for Shapes {
    async fn bare_input(&self, call: ToolCall<tools::bare_input::Input>) -> Result<Value, HostError> {
        let members: serde_json::Map<String, serde_json::Value> = call.input;
        Ok(Value::new(members.len() as f64))
    }

    async fn paint(&self, call: ToolCall<tools::paint::Input>) -> Result<List, HostError> {
        let name = match call.input.color {
            tools::paint::Color::Red => "red",
            tools::paint::Color::Green => "green",
        };
        Ok(List { items: vec![ListItem::new(name)] })
    }
}

impl Procedures for Shapes {
    async fn list(&self, call: ProcedureCall<procedures::list::Input>) -> Result<procedures::list::Output, HostError> {
        let words: Vec<String> = call.input;
        Ok(words.iter().map(|w| w.len() as i64).collect())
    }

    async fn text(&self, call: ProcedureCall<procedures::text::Input>) -> Result<procedures::text::Output, HostError> {
        let first: String = call.input.chars().take(10).collect();
        first.parse().map_err(|e: host_runtime::ConversionError| HostError::internal(e.to_string()))
    }

    async fn count(&self, call: ProcedureCall<procedures::count::Input>) -> Result<procedures::count::Output, HostError> {
        let n: i64 = call.input;
        Ok(n as f64 / 2.0)
    }

    async fn flag(&self, call: ProcedureCall<procedures::flag::Input>) -> Result<procedures::flag::Output, HostError> {
        let _: bool = call.input;
        Ok(())
    }

    async fn anything(&self, call: ProcedureCall<procedures::anything::Input>) -> Result<procedures::anything::Output, HostError> {
        let any: serde_json::Value = call.input;
        let mut out = serde_json::Map::new();
        out.insert("echo".to_owned(), any);
        Ok(out)
    }

    async fn tree(&self, call: ProcedureCall<procedures::tree::Input>) -> Result<procedures::tree::Output, HostError> {
        fn copy(c: &procedures::tree::Comment) -> procedures::tree::Output {
            procedures::tree::Output {
                text: c.text.clone(),
                replies: c.replies.as_ref().map(|r| r.iter().map(copy).collect()),
                extra: c.extra.clone(),
            }
        }
        Ok(copy(&call.input))
    }

    async fn anchored(&self, call: ProcedureCall<procedures::anchored::Input>) -> Result<procedures::anchored::Output, HostError> {
        let home: &procedures::anchored::Addr = &call.input.home;
        let works = call.input.work.is_some();
        Ok(procedures::anchored::Output { a: i64::from(works), b: home.city.clone(), extra: Default::default() })
    }

    async fn ref_beside(&self, call: ProcedureCall<procedures::ref_beside::Input>) -> Result<procedures::ref_beside::Output, HostError> {
        let size: u64 = *call.input.size;
        Ok(procedures::ref_beside::Output {
            tagged: procedures::ref_beside::OutputTagged::Square { side: size as f64, extra: Default::default() },
            extra: Default::default(),
        })
    }

    async fn either(&self, call: ProcedureCall<procedures::either::Input>) -> Result<procedures::either::Output, HostError> {
        Ok(match call.input {
            procedures::either::Input::String(_) => procedures::either::Output::String("red".to_owned()),
            procedures::either::Input::Integer(_) => procedures::either::Output::Integer(1),
        })
    }

    async fn constant(&self, call: ProcedureCall<procedures::constant::Input>) -> Result<procedures::constant::Output, HostError> {
        let version: &serde_json::Value = &call.input.version;
        Ok(version.as_i64().map(|v| v.to_string()))
    }

    async fn pair(&self, call: ProcedureCall<procedures::pair::Input>) -> Result<procedures::pair::Output, HostError> {
        let (name, n): (String, i64) = call.input;
        let mut out = serde_json::Map::new();
        out.insert(format!("x-{name}"), json!(n.to_string()));
        Ok(out)
    }

    async fn map(&self, call: ProcedureCall<procedures::map::Input>) -> Result<procedures::map::Output, HostError> {
        let counts: std::collections::HashMap<String, i64> = call.input;
        Ok(procedures::map::Output { a: Some(2), b: None, c: counts.get("c").copied(), extra: Default::default() })
    }

    async fn dependent(&self, call: ProcedureCall<procedures::dependent::Input>) -> Result<procedures::dependent::Output, HostError> {
        let card: Option<String> = call.input.card;
        Ok(procedures::dependent::Output { a: card, extra: Default::default() })
    }
}

/// Decodes `value` as `T` and encodes it again: the two must be equal.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: serde_json::Value) {
    let typed: T = serde_json::from_value(value.clone()).expect("a valid value decodes");
    assert_eq!(serde_json::to_value(&typed).expect("encodes"), value);
}

use host_runtime::__private_0_1_0::serde;

fn main() {
    let _ = handler(Shapes);
    // Every module's documented names, used by name.
    let _: Option<storage::bare::Document> = None;
    let _: Option<storage::colors::Document> = Some(vec!["teal".to_owned()]);
    let _: Option<settings::Settings> = None;
    let _: Option<webhooks::shape_seen::Payload> = Some(serde_json::Map::new());
    let _ = prompts::ask::Input { topic: "ranks".to_owned(), extra: Default::default() };
    let _: Option<Documents> = None;
    let sender = host_runtime::EventSender::new("https://host.example/events", host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET, host_runtime::outbox::MemoryOutbox::new()).expect("a sender");
    let hooks = Webhooks::new(sender);
    let event = hooks.shape_seen("inst_1", "seen-1", &serde_json::Map::new()).expect("signs");
    let _ = event;

    round_trip::<procedures::ref_beside::Output>(json!({ "tagged": { "kind": "circle", "radius": 2.5, "note": "kept" } }));
    round_trip::<procedures::ref_beside::Output>(json!({ "tagged": { "kind": "square", "side": 1.0 } }));
    round_trip::<procedures::tree::Input>(json!({ "text": "a", "replies": [{ "text": "b", "replies": [] }] }));
    round_trip::<procedures::either::Output>(json!(null));
    round_trip::<procedures::pair::Input>(json!(["a", 1]));
    round_trip::<procedures::anchored::Input>(json!({ "home": { "city": "Oslo", "zip": "0150" } }));
    round_trip::<procedures::constant::Input>(json!({ "version": 2, "mode": "fast" }));
    round_trip::<tools::bare_input::Input>(json!({ "anything": [1, 2] }));
    let tagged: procedures::ref_beside::Output =
        serde_json::from_value(json!({ "tagged": { "kind": "square", "side": 3.0, "radius": 1.0 } })).expect("decodes");
    assert!(matches!(tagged.tagged, procedures::ref_beside::OutputTagged::Square { .. }), "the tag picks the variant");
}
