//! Every bound of the manifest schema, broken one at a time: each case starts from a valid manifest
//! (a fixture at every count limit, or the OAuth connector), changes one value, and expects exactly
//! the diagnostics it names (rule and JSON pointer). Each case also names the schema keyword it
//! breaks, and `every_schema_bound_has_a_case` walks the published schema so that a bound added to
//! it without a case here fails.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use host_manifest::validate_str;
use serde_json::{Value, json};

/// The fixture at every count limit: one more of anything is over its bound.
const FULL: &str = "at-every-limit";
/// A connector with OAuth.
const OAUTH: &str = "crash-oauth";
/// A settings panel and nothing else.
const MINIMAL: &str = "minimal";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/valid")
        .join(name)
}

fn base(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name).join("host.extension.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The value at `pointer`, which must exist.
fn at<'a>(m: &'a mut Value, pointer: &str) -> &'a mut Value {
    m.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("the base manifest has nothing at {pointer}"))
}

/// Sets `pointer` (its parent must exist) to `value`.
fn set(m: &mut Value, pointer: &str, value: Value) {
    let (parent, name) = pointer.rsplit_once('/').unwrap();
    match at(m, parent) {
        Value::Object(o) => {
            o.insert(name.to_owned(), value);
        }
        Value::Array(a) => a[name.parse::<usize>().unwrap()] = value,
        other => panic!("{parent} is {other}, not a container"),
    }
}

/// Appends copies of the array's last entry at `pointer` until it holds `len`, each with its
/// identifying member (`id`, `key` or `name`; a webhook's `event`) made unique.
fn grow(m: &mut Value, pointer: &str, len: usize) {
    let list = at(m, pointer).as_array_mut().unwrap();
    let last = list.last().cloned().unwrap();
    let mut n = 0;
    while list.len() < len {
        n += 1;
        let mut copy = last.clone();
        let named = ["id", "key", "name"]
            .into_iter()
            .find(|member| copy.get(member).is_some());
        match named.and_then(|member| copy.get_mut(member)) {
            Some(Value::String(s)) => s.push_str(&format!("x{n}")),
            _ => {
                if let Some(Value::String(event)) = copy.get_mut("event") {
                    event.push_str(&format!("_extra{n}"));
                }
            }
        }
        list.push(copy);
    }
}

/// Adds `count` copies of the object's member `template` at `pointer`, named `<prefix><n>`.
fn add_members(m: &mut Value, pointer: &str, template: &str, prefix: &str, count: usize) {
    let object = at(m, pointer).as_object_mut().unwrap();
    let copy = object[template].clone();
    for n in 0..count {
        object.insert(format!("{prefix}{n}"), copy.clone());
    }
}

/// A string of `n` characters.
fn long(n: usize) -> Value {
    Value::String("a".repeat(n))
}

struct Case {
    /// The schema keyword it breaks, as a pointer into the published schema.
    bound: &'static str,
    base: &'static str,
    /// Whether the named files are checked (a path over its length bound names no file, and
    /// `file-missing` would be reported in place of the length).
    files: bool,
    edit: Box<dyn Fn(&mut Value)>,
    /// The diagnostics expected, as `(rule, pointer)`, in any order.
    expect: Vec<(&'static str, &'static str)>,
}

fn case(
    bound: &'static str,
    edit: impl Fn(&mut Value) + 'static,
    expect: &[(&'static str, &'static str)],
) -> Case {
    Case {
        bound,
        base: FULL,
        files: true,
        edit: Box::new(edit),
        expect: expect.to_vec(),
    }
}

impl Case {
    fn on(mut self, base: &'static str) -> Case {
        self.base = base;
        self
    }

    fn without_files(mut self) -> Case {
        self.files = false;
        self
    }
}

/// Takes out every contribution, so that no scope is needed.
fn no_contributions(m: &mut Value) {
    set(m, "/contributes", json!({}));
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        // Top-level lengths, enums and patterns.
        case(
            "/properties/$schema/format",
            |m| set(m, "/$schema", json!("not a uri")),
            &[("schema.format", "/$schema")],
        ),
        case(
            "/properties/id/pattern",
            |m| set(m, "/id", json!("Growth")),
            &[("schema.pattern", "/id")],
        ),
        case(
            "/properties/name/minLength",
            |m| set(m, "/name", json!("G")),
            &[("schema.length", "/name")],
        ),
        case(
            "/properties/name/maxLength",
            |m| set(m, "/name", long(41)),
            &[("schema.length", "/name")],
        ),
        case(
            "/properties/description/minLength",
            |m| set(m, "/description", json!("Too short")),
            &[("schema.length", "/description")],
        ),
        case(
            "/properties/description/maxLength",
            |m| set(m, "/description", long(201)),
            &[("schema.length", "/description")],
        ),
        case(
            "/properties/icon/minLength",
            |m| set(m, "/icon", json!("")),
            &[("schema.length", "/icon")],
        ),
        case(
            "/properties/icon/maxLength",
            |m| set(m, "/icon", long(201)),
            &[("schema.length", "/icon")],
        )
        .without_files(),
        case(
            "/properties/category/enum",
            |m| set(m, "/category", json!("games")),
            &[("schema.enum", "/category")],
        ),
        case(
            "/properties/sdk/minLength",
            |m| set(m, "/sdk", json!("")),
            &[("sdk-range", "/sdk")],
        ),
        case(
            "/properties/sdk/maxLength",
            |m| set(m, "/sdk", json!(format!("^2.0.0{}", " ".repeat(60)))),
            &[("schema.length", "/sdk")],
        ),
        case(
            "/properties/visibility/enum",
            |m| set(m, "/visibility", json!("hidden")),
            &[("schema.enum", "/visibility")],
        ),
        case(
            "/properties/installScope/enum",
            |m| set(m, "/installScope", json!("workspace")),
            &[("schema.enum", "/installScope")],
        ),
        // Scopes and their justification.
        case(
            "/properties/scopes/minItems",
            |m| {
                no_contributions(m);
                set(m, "/scopes", json!([]));
            },
            &[("schema.count", "/scopes")],
        )
        .on(MINIMAL),
        case(
            "/properties/scopes/maxItems",
            |m| {
                let first = at(m, "/scopes/0").clone();
                at(m, "/scopes").as_array_mut().unwrap().push(first);
            },
            &[
                ("schema.count", "/scopes"),
                ("duplicate-scope", "/scopes/19/key"),
            ],
        ),
        case(
            "/properties/scopes/items/properties/justification/minLength",
            |m| set(m, "/scopes/0/justification", json!("Draws pages.")),
            &[("schema.length", "/scopes/0/justification")],
        ),
        case(
            "/properties/scopes/items/properties/justification/maxLength",
            |m| set(m, "/scopes/0/justification", long(501)),
            &[("schema.length", "/scopes/0/justification")],
        ),
        case(
            "/$defs/scopeKey/enum",
            |m| {
                no_contributions(m);
                set(m, "/scopes/0/key", json!("ui:paint"));
            },
            &[("schema.enum", "/scopes/0/key")],
        )
        .on(MINIMAL),
        // Telemetry.
        case(
            "/properties/telemetry/maxItems",
            |m| {
                at(m, "/telemetry")
                    .as_array_mut()
                    .unwrap()
                    .push(json!("one_more"))
            },
            &[("schema.count", "/telemetry")],
        ),
        case(
            "/properties/telemetry/items/pattern",
            |m| set(m, "/telemetry/0", json!("Tower-Opened")),
            &[("schema.pattern", "/telemetry/0")],
        ),
        case(
            "/properties/telemetry/items/maxLength",
            |m| set(m, "/telemetry/0", long(61)),
            &[("schema.length", "/telemetry/0")],
        ),
        // Ids, labels, entries, file paths and the other shared definitions.
        case(
            "/$defs/contributionId/pattern",
            |m| set(m, "/contributes/ai/knowledge/0/id", json!("Note_01")),
            &[("schema.pattern", "/contributes/ai/knowledge/0/id")],
        ),
        case(
            "/$defs/label/minLength",
            |m| set(m, "/contributes/pages/0/title", json!("")),
            &[("schema.length", "/contributes/pages/0/title")],
        ),
        case(
            "/$defs/label/maxLength",
            |m| set(m, "/contributes/work/container/label", long(61)),
            &[("schema.length", "/contributes/work/container/label")],
        ),
        case(
            "/$defs/entry/minLength",
            |m| set(m, "/contributes/settings/entry", json!("")),
            &[("schema.length", "/contributes/settings/entry")],
        ),
        case(
            "/$defs/entry/maxLength",
            |m| set(m, "/contributes/tabs/0/entry", long(201)),
            &[("schema.length", "/contributes/tabs/0/entry")],
        )
        .without_files(),
        case(
            "/$defs/filePath/minLength",
            |m| set(m, "/contributes/ai/knowledge/0/file", json!("")),
            &[("schema.length", "/contributes/ai/knowledge/0/file")],
        ),
        case(
            "/$defs/filePath/maxLength",
            |m| set(m, "/contributes/ai/skills/0/file", long(201)),
            &[("schema.length", "/contributes/ai/skills/0/file")],
        )
        .without_files(),
        case(
            "/$defs/hostPage/enum",
            |m| set(m, "/contributes/tabs/0/page", json!("billing")),
            &[("schema.enum", "/contributes/tabs/0/page")],
        ),
        case(
            "/$defs/chart/enum",
            |m| set(m, "/contributes/series/0/chart", json!("revenue")),
            &[("schema.enum", "/contributes/series/0/chart")],
        ),
        case(
            "/$defs/unit/enum",
            |m| set(m, "/contributes/connector/metrics/0/unit", json!("percent")),
            &[("schema.enum", "/contributes/connector/metrics/0/unit")],
        ),
        case(
            "/$defs/cache/enum",
            |m| set(m, "/contributes/ai/context/0/cache", json!("10m")),
            &[("schema.enum", "/contributes/ai/context/0/cache")],
        ),
        case(
            "/$defs/key/pattern",
            |m| {
                set(
                    m,
                    "/contributes/connector/metrics/0/dimensions/0/key",
                    json!("Country"),
                )
            },
            &[(
                "schema.pattern",
                "/contributes/connector/metrics/0/dimensions/0/key",
            )],
        ),
        case(
            "/$defs/eventName/pattern",
            |m| set(m, "/contributes/webhooks/0/event", json!("anomaly")),
            &[("schema.pattern", "/contributes/webhooks/0/event")],
        ),
        case(
            "/$defs/httpsUrl/pattern",
            |m| {
                set(
                    m,
                    "/server/baseUrl",
                    json!("http://api.controltower.example"),
                )
            },
            &[("schema.pattern", "/server/baseUrl")],
        ),
        case(
            "/$defs/httpsUrl/format",
            |m| set(m, "/listing/website", json!("https://contr ol tower")),
            &[("schema.format", "/listing/website")],
        ),
        // UI members.
        case(
            "/$defs/contributes/properties/pages/maxItems",
            |m| grow(m, "/contributes/pages", 21),
            &[
                ("schema.count", "/contributes/pages"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/tabs/maxItems",
            |m| grow(m, "/contributes/tabs", 21),
            &[
                ("schema.count", "/contributes/tabs"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/widgets/maxItems",
            |m| grow(m, "/contributes/widgets", 21),
            &[
                ("schema.count", "/contributes/widgets"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/widgets/items/properties/slot/enum",
            |m| set(m, "/contributes/widgets/0/slot", json!("footer")),
            &[("widget-slot", "/contributes/widgets/0/slot")],
        ),
        case(
            "/$defs/contributes/properties/widgets/items/properties/size/enum",
            |m| set(m, "/contributes/widgets/0/size", json!("3x3")),
            &[("schema.enum", "/contributes/widgets/0/size")],
        ),
        case(
            "/$defs/contributes/properties/series/maxItems",
            |m| grow(m, "/contributes/series", 21),
            &[
                ("schema.count", "/contributes/series"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/series/items/properties/metric/minLength",
            |m| set(m, "/contributes/series/0/metric", json!("")),
            &[("series-metric", "/contributes/series/0/metric")],
        ),
        case(
            "/$defs/contributes/properties/series/items/properties/metric/maxLength",
            |m| set(m, "/contributes/series/0/metric", long(61)),
            &[("series-metric", "/contributes/series/0/metric")],
        ),
        case(
            "/$defs/contributes/properties/banners/maxItems",
            |m| grow(m, "/contributes/banners", 21),
            &[
                ("schema.count", "/contributes/banners"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/rowActions/maxItems",
            |m| grow(m, "/contributes/rowActions", 21),
            &[
                ("schema.count", "/contributes/rowActions"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/rowActions/items/properties/table/enum",
            |m| {
                set(
                    m,
                    "/contributes/rowActions/0/table",
                    json!("analytics.users"),
                )
            },
            &[("schema.enum", "/contributes/rowActions/0/table")],
        ),
        case(
            "/$defs/contributes/properties/markers/maxItems",
            |m| grow(m, "/contributes/markers", 21),
            &[
                ("schema.count", "/contributes/markers"),
                ("ui-limit", "/contributes"),
            ],
        ),
        case(
            "/$defs/contributes/properties/markers/items/properties/chart/enum",
            |m| set(m, "/contributes/markers/0/chart", json!("revenue")),
            &[("schema.enum", "/contributes/markers/0/chart")],
        ),
        case(
            "/$defs/contributes/properties/markers/items/properties/glyph/minLength",
            |m| set(m, "/contributes/markers/0/glyph", json!("")),
            &[("schema.length", "/contributes/markers/0/glyph")],
        ),
        case(
            "/$defs/contributes/properties/markers/items/properties/glyph/maxLength",
            |m| set(m, "/contributes/markers/0/glyph", json!("abc")),
            &[("schema.length", "/contributes/markers/0/glyph")],
        ),
        // Storage.
        case(
            "/$defs/contributes/properties/storage/maxProperties",
            |m| add_members(m, "/contributes/storage", "dashboards", "extra_", 1),
            &[("schema.count", "/contributes/storage")],
        ),
        case(
            "/$defs/contributes/properties/storage/propertyNames/pattern",
            |m| {
                let storage = at(m, "/contributes/storage").as_object_mut().unwrap();
                let copy = storage.remove("keyword_sets").unwrap();
                storage.insert("Keyword-Sets".to_owned(), copy);
            },
            &[("schema.pattern", "/contributes/storage/Keyword-Sets")],
        ),
        case(
            "/$defs/contributes/properties/storage/additionalProperties/properties/scope/enum",
            |m| set(m, "/contributes/storage/dashboards/scope", json!("project")),
            &[("schema.enum", "/contributes/storage/dashboards/scope")],
        ),
        // Connector and its auth.
        case(
            "/$defs/contributes/properties/connector/properties/auth/properties/method/enum",
            |m| set(m, "/contributes/connector/auth/method", json!("basic")),
            &[("schema.enum", "/contributes/connector/auth/method")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/auth/properties/fields/maxItems",
            |m| grow(m, "/contributes/connector/auth/fields", 21),
            &[("schema.count", "/contributes/connector/auth/fields")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/auth/properties/fields/items/properties/type/enum",
            |m| {
                set(
                    m,
                    "/contributes/connector/auth/fields/0/type",
                    json!("secret"),
                )
            },
            &[("schema.enum", "/contributes/connector/auth/fields/0/type")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/auth/properties/fields/items/properties/help/maxLength",
            |m| set(m, "/contributes/connector/auth/fields/0/help", long(201)),
            &[("schema.length", "/contributes/connector/auth/fields/0/help")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/sync/enum",
            |m| set(m, "/contributes/connector/sync", json!("1m")),
            &[("schema.enum", "/contributes/connector/sync")],
        ),
        // Metrics.
        case(
            "/$defs/contributes/properties/connector/properties/metrics/maxItems",
            |m| grow(m, "/contributes/connector/metrics", 51),
            &[("schema.count", "/contributes/connector/metrics")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/metrics/items/properties/kind/enum",
            |m| {
                set(
                    m,
                    "/contributes/connector/metrics/0/kind",
                    json!("histogram"),
                )
            },
            &[("schema.enum", "/contributes/connector/metrics/0/kind")],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/metrics/items/properties/dimensions/maxItems",
            |m| grow(m, "/contributes/connector/metrics/0/dimensions", 11),
            &[(
                "schema.count",
                "/contributes/connector/metrics/0/dimensions",
            )],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/metrics/items/properties/backfillDays/minimum",
            |m| set(m, "/contributes/connector/metrics/0/backfillDays", json!(0)),
            &[(
                "schema.range",
                "/contributes/connector/metrics/0/backfillDays",
            )],
        ),
        case(
            "/$defs/contributes/properties/connector/properties/metrics/items/properties/backfillDays/maximum",
            |m| {
                set(
                    m,
                    "/contributes/connector/metrics/0/backfillDays",
                    json!(91),
                )
            },
            &[(
                "schema.range",
                "/contributes/connector/metrics/0/backfillDays",
            )],
        ),
        // Webhooks.
        case(
            "/$defs/contributes/properties/webhooks/maxItems",
            |m| grow(m, "/contributes/webhooks", 21),
            &[("schema.count", "/contributes/webhooks")],
        ),
        case(
            "/$defs/contributes/properties/webhooks/items/properties/as/enum",
            |m| set(m, "/contributes/webhooks/19/as", json!("toast")),
            &[("schema.enum", "/contributes/webhooks/19/as")],
        ),
        // AI arrays and their items.
        case(
            "/$defs/ai/properties/tools/maxItems",
            |m| grow(m, "/contributes/ai/tools", 16),
            &[("schema.count", "/contributes/ai/tools")],
        ),
        case(
            "/$defs/ai/properties/tools/items/properties/description/minLength",
            |m| set(m, "/contributes/ai/tools/0/description", json!("Runs it.")),
            &[("schema.length", "/contributes/ai/tools/0/description")],
        ),
        case(
            "/$defs/ai/properties/tools/items/properties/description/maxLength",
            |m| set(m, "/contributes/ai/tools/0/description", long(501)),
            &[("schema.length", "/contributes/ai/tools/0/description")],
        ),
        case(
            "/$defs/ai/properties/tools/items/properties/returns/enum",
            |m| set(m, "/contributes/ai/tools/0/returns", json!("chart")),
            &[("schema.enum", "/contributes/ai/tools/0/returns")],
        ),
        case(
            "/$defs/ai/properties/tools/items/properties/cost/enum",
            |m| set(m, "/contributes/ai/tools/0/cost", json!("free")),
            &[("schema.enum", "/contributes/ai/tools/0/cost")],
        ),
        case(
            "/$defs/ai/properties/mentions/maxItems",
            |m| grow(m, "/contributes/ai/mentions", 11),
            &[("schema.count", "/contributes/ai/mentions")],
        ),
        case(
            "/$defs/ai/properties/mentions/items/properties/list/minLength",
            |m| set(m, "/contributes/ai/mentions/0/list", json!("")),
            &[("schema.length", "/contributes/ai/mentions/0/list")],
        ),
        case(
            "/$defs/ai/properties/mentions/items/properties/list/maxLength",
            |m| set(m, "/contributes/ai/mentions/0/list", long(201)),
            &[("schema.length", "/contributes/ai/mentions/0/list")],
        ),
        case(
            "/$defs/ai/properties/actions/maxItems",
            |m| grow(m, "/contributes/ai/actions", 11),
            &[("schema.count", "/contributes/ai/actions")],
        ),
        case(
            "/$defs/ai/properties/actions/items/properties/description/minLength",
            |m| {
                set(
                    m,
                    "/contributes/ai/actions/0/description",
                    json!("Exports."),
                )
            },
            &[("schema.length", "/contributes/ai/actions/0/description")],
        ),
        case(
            "/$defs/ai/properties/actions/items/properties/description/maxLength",
            |m| set(m, "/contributes/ai/actions/0/description", long(501)),
            &[("schema.length", "/contributes/ai/actions/0/description")],
        ),
        case(
            "/$defs/ai/properties/actions/items/properties/approval/const",
            |m| set(m, "/contributes/ai/actions/0/approval", json!(false)),
            &[("schema.enum", "/contributes/ai/actions/0/approval")],
        ),
        case(
            "/$defs/ai/properties/knowledge/maxItems",
            |m| grow(m, "/contributes/ai/knowledge", 21),
            &[("schema.count", "/contributes/ai/knowledge")],
        ),
        case(
            "/$defs/ai/properties/knowledge/items/properties/category/enum",
            |m| set(m, "/contributes/ai/knowledge/0/category", json!("faq")),
            &[("schema.enum", "/contributes/ai/knowledge/0/category")],
        ),
        case(
            "/$defs/ai/properties/skills/maxItems",
            |m| grow(m, "/contributes/ai/skills", 6),
            &[("schema.count", "/contributes/ai/skills")],
        ),
        case(
            "/$defs/ai/properties/skills/items/properties/description/minLength",
            |m| set(m, "/contributes/ai/skills/0/description", json!("Weekly.")),
            &[("schema.length", "/contributes/ai/skills/0/description")],
        ),
        case(
            "/$defs/ai/properties/skills/items/properties/description/maxLength",
            |m| set(m, "/contributes/ai/skills/0/description", long(301)),
            &[("schema.length", "/contributes/ai/skills/0/description")],
        ),
        case(
            "/$defs/ai/properties/skills/items/properties/tools/maxItems",
            |m| {
                let tools: Vec<Value> = at(m, "/contributes/ai/tools")
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["id"].clone())
                    .collect();
                let mut sixteen = tools.clone();
                sixteen.push(tools[0].clone());
                set(m, "/contributes/ai/skills/0/tools", Value::Array(sixteen));
            },
            &[("schema.count", "/contributes/ai/skills/0/tools")],
        ),
        case(
            "/$defs/ai/properties/prompts/maxItems",
            |m| grow(m, "/contributes/ai/prompts", 21),
            &[("schema.count", "/contributes/ai/prompts")],
        ),
        case(
            "/$defs/ai/properties/prompts/items/properties/template/minLength",
            |m| set(m, "/contributes/ai/prompts/0/template", json!("")),
            &[("schema.length", "/contributes/ai/prompts/0/template")],
        ),
        case(
            "/$defs/ai/properties/prompts/items/properties/template/maxLength",
            |m| set(m, "/contributes/ai/prompts/0/template", long(2001)),
            &[("schema.length", "/contributes/ai/prompts/0/template")],
        ),
        case(
            "/$defs/ai/properties/prompts/items/properties/surfaces/minItems",
            |m| set(m, "/contributes/ai/prompts/0/surfaces", json!([])),
            &[("schema.count", "/contributes/ai/prompts/0/surfaces")],
        ),
        case(
            "/$defs/ai/properties/prompts/items/properties/surfaces/items/enum",
            |m| set(m, "/contributes/ai/prompts/0/surfaces/0", json!("toolbar")),
            &[("schema.enum", "/contributes/ai/prompts/0/surfaces/0")],
        ),
        case(
            "/$defs/ai/properties/prompts/items/properties/after/maxItems",
            |m| {
                let first = at(m, "/contributes/ai/tools/0/id").clone();
                set(
                    m,
                    "/contributes/ai/prompts/0/after",
                    Value::Array(vec![first; 16]),
                );
            },
            &[("schema.count", "/contributes/ai/prompts/0/after")],
        ),
        case(
            "/$defs/ai/properties/context/maxItems",
            |m| grow(m, "/contributes/ai/context", 4),
            &[("schema.count", "/contributes/ai/context")],
        ),
        case(
            "/$defs/ai/properties/context/items/properties/description/minLength",
            |m| {
                set(
                    m,
                    "/contributes/ai/context/0/description",
                    json!("Metrics."),
                )
            },
            &[("schema.length", "/contributes/ai/context/0/description")],
        ),
        case(
            "/$defs/ai/properties/context/items/properties/description/maxLength",
            |m| set(m, "/contributes/ai/context/0/description", long(301)),
            &[("schema.length", "/contributes/ai/context/0/description")],
        ),
        case(
            "/$defs/ai/properties/context/items/properties/when/minItems",
            |m| set(m, "/contributes/ai/context/0/when", json!([])),
            &[("schema.count", "/contributes/ai/context/0/when")],
        ),
        case(
            "/$defs/ai/properties/context/items/properties/when/items/enum",
            |m| set(m, "/contributes/ai/context/0/when/0", json!("always")),
            &[("schema.enum", "/contributes/ai/context/0/when/0")],
        ),
        // Work.
        case(
            "/$defs/work/properties/kind/enum",
            |m| set(m, "/contributes/work/kind", json!("wiki")),
            &[("schema.enum", "/contributes/work/kind")],
        ),
        case(
            "/$defs/work/properties/container/properties/list/minLength",
            |m| set(m, "/contributes/work/container/list", json!("")),
            &[("schema.length", "/contributes/work/container/list")],
        ),
        case(
            "/$defs/work/properties/creates/minItems",
            |m| set(m, "/contributes/work/creates", json!([])),
            &[("schema.count", "/contributes/work/creates")],
        ),
        case(
            "/$defs/work/properties/creates/items/enum",
            |m| set(m, "/contributes/work/creates/0", json!("task")),
            &[("schema.enum", "/contributes/work/creates/0")],
        ),
        case(
            "/$defs/work/properties/attachments/items/enum",
            |m| set(m, "/contributes/work/attachments/0", json!("video")),
            &[("schema.enum", "/contributes/work/attachments/0")],
        ),
        case(
            "/$defs/work/properties/comments/enum",
            |m| set(m, "/contributes/work/comments", json!("one-way")),
            &[("schema.enum", "/contributes/work/comments")],
        ),
        case(
            "/$defs/work/properties/identity/enum",
            |m| set(m, "/contributes/work/identity", json!("bot")),
            &[("schema.enum", "/contributes/work/identity")],
        ),
        // Procedures and events.
        case(
            "/$defs/server/properties/procedures/maxProperties",
            |m| add_members(m, "/server/procedures", "listViews", "listMore", 1),
            &[("schema.count", "/server/procedures")],
        ),
        case(
            "/$defs/server/properties/procedures/propertyNames/pattern",
            |m| {
                let procedures = at(m, "/server/procedures").as_object_mut().unwrap();
                let copy = procedures.remove("listViews").unwrap();
                procedures.insert("list views".to_owned(), copy);
            },
            &[("schema.pattern", "/server/procedures/list views")],
        ),
        case(
            "/$defs/server/properties/procedures/additionalProperties/properties/kind/enum",
            |m| set(m, "/server/procedures/listViews/kind", json!("delete")),
            &[("schema.enum", "/server/procedures/listViews/kind")],
        ),
        case(
            "/$defs/server/properties/events/items/enum",
            |m| set(m, "/server/events/0", json!("release.published")),
            &[("unknown-event", "/server/events/0")],
        ),
        // Listing.
        case(
            "/$defs/listing/properties/longDescription/minLength",
            |m| set(m, "/listing/longDescription", json!("")),
            &[("schema.length", "/listing/longDescription")],
        ),
        case(
            "/$defs/listing/properties/longDescription/maxLength",
            |m| set(m, "/listing/longDescription", long(5001)),
            &[("schema.length", "/listing/longDescription")],
        ),
        case(
            "/$defs/listing/properties/screenshots/minItems",
            |m| set(m, "/listing/screenshots", json!([])),
            &[("schema.count", "/listing/screenshots")],
        ),
        case(
            "/$defs/listing/properties/screenshots/maxItems",
            |m| {
                let first = at(m, "/listing/screenshots/0").clone();
                at(m, "/listing/screenshots")
                    .as_array_mut()
                    .unwrap()
                    .push(first);
            },
            &[("schema.count", "/listing/screenshots")],
        ),
        case(
            "/$defs/listing/properties/screenshots/items/minLength",
            |m| set(m, "/listing/screenshots/0", json!("")),
            &[("schema.length", "/listing/screenshots/0")],
        ),
    ];
    // OAuth URLs, on the OAuth connector.
    for (bound, url, rule) in [
        (
            "/$defs/httpsUrl/pattern",
            "http://auth.crashlens.example/oauth/token",
            "schema.pattern",
        ),
        (
            "/$defs/httpsUrl/format",
            "https://auth crashlens/oauth/token",
            "schema.format",
        ),
    ] {
        for member in ["authorizationUrl", "tokenUrl"] {
            let pointer: &'static str =
                Box::leak(format!("/contributes/connector/auth/oauth/{member}").into_boxed_str());
            cases.push(Case {
                bound,
                base: OAUTH,
                files: true,
                edit: Box::new(move |m| set(m, pointer, json!(url))),
                expect: vec![(rule, pointer)],
            });
        }
    }
    cases
}

#[test]
fn the_bases_are_valid() {
    for name in [FULL, OAUTH] {
        let text = serde_json::to_string_pretty(&base(name)).unwrap();
        let report = validate_str(&text, Some(&fixture(name)));
        let errors: Vec<String> = report
            .errors()
            .map(|d| d.display_with_file(name).to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
}

#[test]
fn each_broken_bound_is_reported_at_its_pointer() {
    let mut failures = Vec::new();
    for case in cases() {
        let mut manifest = base(case.base);
        (case.edit)(&mut manifest);
        let text = serde_json::to_string_pretty(&manifest).unwrap();
        let folder = fixture(case.base);
        let report = validate_str(&text, case.files.then_some(folder.as_path()));
        let got: BTreeSet<(String, String)> = report
            .errors()
            .map(|d| (d.rule.name().to_owned(), d.pointer.clone()))
            .collect();
        let expected: BTreeSet<(String, String)> = case
            .expect
            .iter()
            .map(|(r, p)| ((*r).to_owned(), (*p).to_owned()))
            .collect();
        if got != expected {
            failures.push(format!(
                "{}: expected {expected:?}, got {got:?}",
                case.bound
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rule a broken keyword is reported under.
fn rule_of(keyword: &str) -> &'static str {
    match keyword {
        "minLength" | "maxLength" => "schema.length",
        "minItems" | "maxItems" | "minProperties" | "maxProperties" => "schema.count",
        "pattern" => "schema.pattern",
        "enum" | "const" => "schema.enum",
        "minimum" | "maximum" => "schema.range",
        "format" => "schema.format",
        other => panic!("no rule for `{other}`"),
    }
}

/// Every bound keyword of the published schema (`required` and `type` are tested by the invalid
/// fixtures; `false` members by the reserved-field rule).
fn schema_bounds() -> BTreeSet<String> {
    const KEYWORDS: [&str; 12] = [
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "pattern",
        "enum",
        "const",
        "minimum",
        "maximum",
        "format",
    ];
    fn walk(node: &Value, pointer: &str, under_properties: bool, out: &mut BTreeSet<String>) {
        match node {
            Value::Object(members) => {
                for (name, value) in members {
                    let here = format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1"));
                    if !under_properties && KEYWORDS.contains(&name.as_str()) {
                        out.insert(here.clone());
                    }
                    // Annotations hold no bounds; the members of `properties` are names, not keywords.
                    let annotation = !under_properties && (name == "description" || name == "enum");
                    if !annotation {
                        walk(value, &here, name == "properties", out);
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{pointer}/{i}"), false, out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(host_manifest::schema(), "", false, &mut out);
    out
}

#[test]
fn every_schema_bound_has_a_case() {
    let bounds = schema_bounds();
    let cases = cases();
    let covered: BTreeSet<String> = cases.iter().map(|c| c.bound.to_owned()).collect();
    let missing: Vec<&String> = bounds.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "schema bounds without a case: {missing:#?}"
    );
    let unknown: Vec<&String> = covered.difference(&bounds).collect();
    assert!(
        unknown.is_empty(),
        "cases naming no schema bound: {unknown:#?}"
    );
    // Each case expects the rule its keyword is reported under, or a cross-field rule that
    // reports the same value in its place (a value both reject is reported once, by the rule, whose
    // message says more: the slots of the page, the metrics declared, the range grammar).
    const IN_PLACE: [&str; 4] = ["sdk-range", "widget-slot", "series-metric", "unknown-event"];
    for case in &cases {
        let keyword = case.bound.rsplit('/').next().unwrap();
        let rule = rule_of(keyword);
        assert!(
            case.expect
                .iter()
                .any(|(r, _)| *r == rule || IN_PLACE.contains(r)),
            "{}: expects no `{rule}`",
            case.bound
        );
    }
}
