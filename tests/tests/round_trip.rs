//! Property test: every valid value of the schema shapes that real-world tool schemas use echoes
//! unchanged through the generated types, over the runtime's own procedure path (validated against
//! the schema, decoded into the typed input, encoded back as the answer).
//!
//! The shapes (tests/manifests/shapes): optional members that may be `null` (kept apart from
//! absent; one of them only a `$ref` to such a schema), a union of an object `$ref` and a string,
//! unions whose branches overlap, and the same object, enum and member names written out at several
//! places as published webhook payloads write them (typed once; a required copy, an optional one
//! that may be `null`, one in an array; members `+1` and `-1`), members named after every word the
//! generator or Rust reserves (in closed and open objects and in a tagged union's variants; each
//! must also be read through its own, renamed, field), values valid against two overlapping
//! open branches of a union with members that may be `null`, and closed objects whose members
//! stand beside a union whose branches each require one. Each generated value is first
//! judged by the `jsonschema` crate (which shares no code with typify): only what it calls valid is
//! sent, and the answer must be the same JSON.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::testing::TestHost;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

// A manifest needs a scope, and nothing here uses one: the macro's unused-scope warning is a
// deprecation warning.
#[allow(deprecated)]
mod shapes {
    host_runtime::host_extension!("manifests/shapes/host.extension.json");

    use host_runtime::HostError;

    /// Echoes each typed input back as its output.
    pub(crate) struct Echo;

    fn echo<I: serde::Serialize, O: serde::de::DeserializeOwned>(input: I) -> Result<O, HostError> {
        let json = serde_json::to_value(&input).map_err(|e| HostError::internal(e.to_string()))?;
        serde_json::from_value(json).map_err(|e| HostError::internal(e.to_string()))
    }

    impl Procedures for Echo {
        async fn nullable(
            &self,
            call: ProcedureCall<procedures::nullable::Input>,
        ) -> Result<procedures::nullable::Output, HostError> {
            echo(call.input)
        }
        async fn object_or_string(
            &self,
            call: ProcedureCall<procedures::object_or_string::Input>,
        ) -> Result<procedures::object_or_string::Output, HostError> {
            echo(call.input)
        }
        async fn overlapping(
            &self,
            call: ProcedureCall<procedures::overlapping::Input>,
        ) -> Result<procedures::overlapping::Output, HostError> {
            echo(call.input)
        }
        async fn repeated(
            &self,
            call: ProcedureCall<procedures::repeated::Input>,
        ) -> Result<procedures::repeated::Output, HostError> {
            echo(call.input)
        }
        async fn closed_any_of(
            &self,
            call: ProcedureCall<procedures::closed_any_of::Input>,
        ) -> Result<procedures::closed_any_of::Output, HostError> {
            echo(call.input)
        }
        async fn open_members(
            &self,
            call: ProcedureCall<procedures::open_members::Input>,
        ) -> Result<procedures::open_members::Output, HostError> {
            echo(call.input)
        }
        async fn reserved_names(
            &self,
            call: ProcedureCall<procedures::reserved_names::Input>,
        ) -> Result<procedures::reserved_names::Output, HostError> {
            echo(call.input)
        }
        async fn open_branches(
            &self,
            call: ProcedureCall<procedures::open_branches::Input>,
        ) -> Result<procedures::open_branches::Output, HostError> {
            echo(call.input)
        }
    }

    pub(crate) fn make() -> host_runtime::Handler {
        handler(Echo)
    }
}

/// The input schema of procedure `name` in the shapes manifest.
fn schema_of(name: &str) -> Value {
    let text = include_str!("../manifests/shapes/host.extension.json");
    let manifest: Value = serde_json::from_str(text).unwrap();
    manifest["server"]["procedures"][name]["input"].clone()
}

/// JSON equality as JSON Schema has it: numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn text() -> impl Strategy<Value = Value> {
    "[a-z ]{0,6}".prop_map(Value::String)
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|n| json!(n)),
        text(),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A member absent (`None`), `null`, or the value.
fn member(value: impl Strategy<Value = Value>) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![Just(None), Just(Some(Value::Null)), value.prop_map(Some)]
}

fn object(members: Vec<(&'static str, Option<Value>)>) -> Value {
    let mut map = Map::new();
    for (name, value) in members {
        if let Some(v) = value {
            map.insert(name.to_owned(), v);
        }
    }
    Value::Object(map)
}

fn nullable_input() -> impl Strategy<Value = Value> {
    let filter = (member(text()), member(text()), any::<bool>()).prop_map(|(tag, since, bare)| {
        let f = object(vec![
            ("tag", tag.filter(|t| !t.is_null())),
            ("since", since),
        ]);
        if bare { f } else { json!(f) }
    });
    (
        member(text()),
        member(any::<i64>().prop_map(|n| json!(n))),
        member(prop::collection::vec(text(), 0..3).prop_map(Value::Array)),
        member(filter),
        member(any_json()),
        prop::option::of(text()),
        prop_oneof![Just(Value::Null), text()],
        prop::option::of(("[a-z]{1,4}", any_json())),
        member(
            prop::option::of(any::<i64>()).prop_map(|n| object(vec![("n", n.map(|n| json!(n)))])),
        ),
    )
        .prop_map(
            |(query, limit, tags, filter, extra, name, cursor, other, page)| {
                let mut o = object(vec![
                    ("query", query),
                    ("limit", limit),
                    ("tags", tags),
                    ("filter", filter),
                    ("anything", extra),
                    ("name", name),
                    ("cursor", Some(cursor)),
                    ("page", page),
                ]);
                if let (Some((k, v)), Value::Object(map)) = (other, &mut o) {
                    map.entry(format!("x{k}")).or_insert(v);
                }
                o
            },
        )
}

fn parent() -> impl Strategy<Value = Value> {
    prop_oneof![
        text(),
        (prop::option::of(text()), prop::option::of(text()))
            .prop_map(|(p, d)| object(vec![("page_id", p), ("database_id", d)])),
    ]
}

fn object_or_string_input() -> impl Strategy<Value = Value> {
    (
        prop::option::of(parent()),
        prop::option::of(prop::collection::vec(parent(), 0..3).prop_map(Value::Array)),
    )
        .prop_map(|(p, ps)| object(vec![("parent", p), ("parents", ps)]))
}

fn overlapping_input() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        (prop::option::of(text()), prop::option::of(any_json()))
            .prop_map(|(a, other)| object(vec![("a", a), ("other", other)])),
        (any::<i64>(), prop::option::of(text()))
            .prop_map(|(b, a)| object(vec![("b", Some(json!(b))), ("a", a)])),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|n| json!(n)),
        text(),
        prop::collection::vec(any::<i32>().prop_map(|n| json!(n)), 0..3).prop_map(Value::Array),
        prop::collection::vec(text(), 0..3).prop_map(Value::Array),
    ];
    let either = prop_oneof![
        Just(json!({ "kind": "x" })),
        (any::<i32>(), prop::option::of(text()))
            .prop_map(|(c, kind)| object(vec![("count", Some(json!(c))), ("kind", kind)])),
    ];
    (prop::option::of(value), prop::option::of(either))
        .prop_map(|(v, e)| object(vec![("value", v), ("either", e)]))
}

/// A user as the `repeated` shape writes it (sometimes with a member it does not name), or `null`.
fn user() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        (
            text(),
            any::<i64>(),
            member(text()),
            prop::option::of(any_json())
        )
            .prop_map(|(login, id, name, other)| {
                object(vec![
                    ("login", Some(login)),
                    ("id", Some(json!(id))),
                    ("name", name),
                    ("avatar", other),
                ])
            }),
    ]
}

fn reactions() -> impl Strategy<Value = Value> {
    (any::<i32>(), any::<i32>(), prop::option::of(any::<u16>())).prop_map(|(up, down, total)| {
        object(vec![
            ("+1", Some(json!(up))),
            ("-1", Some(json!(down))),
            ("total_count", total.map(|t| json!(t))),
        ])
    })
}

fn state() -> impl Strategy<Value = Value> {
    prop_oneof![Just(json!("open")), Just(json!("closed"))]
}

fn repeated_input() -> impl Strategy<Value = Value> {
    let issue = (
        user(),
        prop::option::of(reactions()),
        prop::option::of(state()),
    )
        .prop_map(|(user, reactions, state)| {
            object(vec![
                ("user", Some(user)),
                ("reactions", reactions),
                ("state", state),
            ])
        });
    (
        user(),
        prop::option::of(user()),
        prop::option::of(issue),
        prop::option::of(reactions()),
        prop::option::of(prop::collection::vec(state(), 0..3).prop_map(Value::Array)),
    )
        .prop_map(|(sender, assignee, issue, reactions, states)| {
            object(vec![
                ("sender", Some(sender)),
                ("assignee", assignee),
                ("issue", issue),
                ("reactions", reactions),
                ("states", states),
            ])
        })
}

/// Adds a member the object's schema does not name (sometimes), as an open object allows.
fn with_extra(object: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (object, prop::option::of(("[a-z]{1,4}", any_json()))).prop_map(|(mut o, extra)| {
        if let (Some((k, v)), Value::Object(map)) = (extra, &mut o) {
            map.entry(format!("x_{k}")).or_insert(v);
        }
        o
    })
}

fn closed_any_of_input() -> impl Strategy<Value = Value> {
    let names = || prop::collection::vec(text(), 0..3).prop_map(Value::Array);
    (
        prop::option::of(names()),
        prop::option::of(names()),
        prop::option::of(text()),
    )
        .prop_map(|(tools, commands, name)| {
            object(vec![
                ("tools", tools),
                ("commands", commands),
                ("name", name),
            ])
        })
}

fn simple_user() -> impl Strategy<Value = Value> {
    with_extra(
        (text(), any::<i64>())
            .prop_map(|(login, id)| object(vec![("login", Some(login)), ("id", Some(json!(id)))])),
    )
}

fn license() -> impl Strategy<Value = Value> {
    with_extra(
        (text(), member(text()))
            .prop_map(|(key, spdx)| object(vec![("key", Some(key)), ("spdx_id", spdx)])),
    )
}

fn or_null(value: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    prop_oneof![Just(Value::Null), value]
}

fn open_members_input() -> impl Strategy<Value = Value> {
    let team = with_extra(
        (text(), prop::option::of(any::<u16>())).prop_map(|(slug, n)| {
            object(vec![("slug", Some(slug)), ("members", n.map(|n| json!(n)))])
        }),
    );
    let label = prop_oneof![
        text(),
        with_extra(
            (text(), prop::option::of(text()))
                .prop_map(|(name, color)| object(vec![("name", Some(name)), ("color", color)])),
        ),
    ];
    let template = with_extra(
        (simple_user(), prop::option::of(or_null(license()))).prop_map(|(owner, license)| {
            object(vec![("owner", Some(owner)), ("license", license)])
        }),
    );
    let repository = with_extra(
        (
            simple_user(),
            prop::option::of(or_null(template)),
            prop::option::of(or_null(license())),
        )
            .prop_map(|(owner, template, license)| {
                object(vec![
                    ("owner", Some(owner)),
                    ("template_repository", template),
                    ("license", license),
                ])
            }),
    );
    with_extra(
        (
            prop::option::of(or_null(simple_user())),
            prop::option::of(or_null(license())),
            prop_oneof![simple_user(), team],
            prop::option::of(
                prop::collection::vec(or_null(simple_user()), 0..3).prop_map(Value::Array),
            ),
            prop::option::of(prop::collection::vec(label, 0..3).prop_map(Value::Array)),
            prop::option::of(repository),
        )
            .prop_map(|(chosen, license, actor, reviewers, labels, repository)| {
                object(vec![
                    ("answer_chosen_by", chosen),
                    ("license", license),
                    ("actor", Some(actor)),
                    ("reviewers", reviewers),
                    ("labels", labels),
                    ("repository", repository),
                ])
            }),
    )
}

/// Objects with members named like what the generator or Rust reserves: `extra` (the map of other
/// members) and keywords in a closed object, two members that would get one Rust field name in
/// another, `extra` beside other members in an open one, every reserved word at once in a closed
/// and an open object, and in the variants of a tagged union.
fn reserved_names_input() -> impl Strategy<Value = Value> {
    // Absent or a value: none of these members may be `null`.
    let closed = (
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(any::<bool>().prop_map(Value::from)),
        prop::option::of(any::<i32>().prop_map(Value::from)),
        prop::option::of(text()),
        prop::option::of(text()),
    )
        .prop_map(|(extra, uid, kind, matched, krate, sup, fun)| {
            object(vec![
                ("extra", extra),
                ("uid", uid),
                ("type", kind),
                ("match", matched),
                ("crate", krate),
                ("super", sup),
                ("fn", fun),
            ])
        });
    let clashing = (
        prop::option::of(any::<i32>().prop_map(Value::from)),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
    )
        .prop_map(|(lower, upper, dash, underscore)| {
            object(vec![
                ("self", lower),
                ("Self", upper),
                ("a-b", dash),
                ("a_b", underscore),
            ])
        });
    let open = with_extra(
        (
            prop::option::of(text()),
            prop::option::of(any::<i32>().prop_map(Value::from)),
        )
            .prop_map(|(extra, n)| object(vec![("extra", extra), ("n", n)])),
    );
    let tagged = prop_oneof![
        (
            prop::option::of(text()),
            prop::option::of(any::<i32>().prop_map(Value::from))
        )
            .prop_map(|(extra, other)| object(vec![
                ("kind", Some(json!("a"))),
                ("extra", extra),
                ("__host_sdk_other_members__", other),
            ])),
        prop::option::of(text())
            .prop_map(|extra| object(vec![("kind", Some(json!("b"))), ("Extra", extra)])),
    ];
    (
        prop::option::of(closed),
        prop::option::of(clashing),
        prop::option::of(open),
        prop::option::of(every_reserved_word()),
        prop::option::of(with_extra(every_reserved_word())),
        prop::option::of(with_extra(tagged)),
    )
        .prop_map(
            |(closed, clashing, open, every_closed, every_open, tagged)| {
                object(vec![
                    ("closed", closed),
                    ("clashing", clashing),
                    ("open", open),
                    ("every_closed", every_closed),
                    ("every_open", every_open),
                    ("tagged", tagged),
                ])
            },
        )
}

/// Members named after every word the generator or Rust reserves, and after the names the
/// generator gives a renamed member (`extra_member`): each absent or a value.
fn every_reserved_word() -> impl Strategy<Value = Value> {
    let strings = prop::collection::vec(prop::option::of(text()), 10);
    (
        strings,
        prop::option::of(any::<i32>().prop_map(Value::from)),
        prop::option::of(any::<i32>().prop_map(Value::from)),
    )
        .prop_map(|(s, own, n)| {
            let names = [
                "Extra",
                "extra",
                "extra_member",
                "Self",
                "type",
                "type_",
                "a-b",
                "a_b",
                "host_sdk_other_members",
                "__host_sdk_other_members__",
            ];
            let mut members: Vec<(&'static str, Option<Value>)> =
                names.into_iter().zip(s).collect();
            members.push(("self", own));
            members.push(("n", n));
            object(members)
        })
}

/// Each member with a reserved name is a typed field of its own that holds it: read through the
/// fields the generator renamed (`extra_member_3` holds `extra`, beside `Extra`, `extra_member`
/// and the map of other members `extra`).
fn reserved_fields_hold_their_members(value: &Value) {
    use shapes::procedures::reserved_names::{Input, InputTagged};
    let input: Input = serde_json::from_value(value.clone()).unwrap();
    let member = |object: &str, name: &str| value[object].get(name).cloned().unwrap_or(Value::Null);
    if let Some(closed) = &input.every_closed {
        let fields = [
            ("Extra", json!(closed.extra)),
            ("extra", json!(closed.extra_member_2)),
            ("extra_member", json!(closed.extra_member)),
            ("Self", json!(closed.self_)),
            ("self", json!(closed.self_2)),
            ("type", json!(closed.type_)),
            ("type_", json!(closed.type_2)),
            ("a-b", json!(closed.a_b)),
            ("a_b", json!(closed.a_b_2)),
            (
                "__host_sdk_other_members__",
                json!(closed.host_sdk_other_members),
            ),
            (
                "host_sdk_other_members",
                json!(closed.host_sdk_other_members_member),
            ),
        ];
        for (name, held) in fields {
            assert_eq!(held, member("every_closed", name), "{name} in {value}");
        }
    }
    if let Some(open) = &input.every_open {
        let fields = [
            ("Extra", json!(open.extra_member_2)),
            ("extra", json!(open.extra_member_3)),
            ("extra_member", json!(open.extra_member)),
            ("Self", json!(open.self_)),
            ("self", json!(open.self_2)),
            ("type_", json!(open.type_2)),
            ("a_b", json!(open.a_b_2)),
            (
                "__host_sdk_other_members__",
                json!(open.host_sdk_other_members_member),
            ),
            (
                "host_sdk_other_members",
                json!(open.host_sdk_other_members_member_2),
            ),
        ];
        for (name, held) in fields {
            assert_eq!(held, member("every_open", name), "{name} in {value}");
        }
        // Only the members the schema does not name are in the map.
        assert!(open.extra.keys().all(|k| k.starts_with("x_")), "{value}");
    }
    match &input.tagged {
        Some(InputTagged::A {
            extra_member,
            host_sdk_other_members_member,
            extra,
        }) => {
            assert_eq!(json!(extra_member), member("tagged", "extra"), "{value}");
            assert_eq!(
                json!(host_sdk_other_members_member),
                member("tagged", "__host_sdk_other_members__"),
                "{value}"
            );
            assert!(extra.keys().all(|k| k.starts_with("x_")), "{value}");
        }
        Some(InputTagged::B { extra_member, .. }) => {
            assert_eq!(json!(extra_member), member("tagged", "Extra"), "{value}");
        }
        None => {}
    }
}

/// Objects valid against both of two open branches of an `anyOf` (a user and an enterprise, as
/// GitHub's `account` is), with members that may be `null` in one branch, in both, or beside the
/// union: absent, `null` or a value, and sometimes a member neither branch names.
fn open_branches_input() -> impl Strategy<Value = Value> {
    let account = || {
        with_extra(
            (
                prop::option::of(text()),
                prop::option::of(text()),
                member(text()),
                member(text()),
                member(text()),
            )
                .prop_map(|(login, slug, website, email, description)| {
                    object(vec![
                        ("login", login),
                        ("slug", slug),
                        ("website_url", website),
                        ("email", email),
                        ("description", description),
                    ])
                }),
        )
    };
    let owner = (account(), member(any::<i64>().prop_map(Value::from))).prop_map(|(mut o, id)| {
        if let (Some(id), Value::Object(map)) = (id, &mut o) {
            map.insert("id".to_owned(), id);
        }
        o
    });
    let sponsor = (account(), prop_oneof![Just(Value::Null), text()]).prop_map(|(mut o, since)| {
        if let Value::Object(map) = &mut o {
            map.remove("login");
            map.insert("since".to_owned(), since);
        }
        o
    });
    (
        prop::option::of(or_null(account())),
        prop::option::of(owner),
        prop::option::of(sponsor),
    )
        .prop_map(|(account, owner, sponsor)| {
            object(vec![
                ("account", account),
                ("owner", owner),
                ("sponsor", sponsor),
            ])
        })
}

/// Values of closed objects whose members stand beside a union whose branches each require one:
/// items that name a `name`, a `kind` or both (Dependabot's `allow`), and steps with a `run` or
/// a `wait` that must be there and may be `null` (GitHub's workflow `step`), with an optional
/// member that may be `null` beside them.
fn required_by_a_branch_input() -> impl Strategy<Value = Value> {
    let item = (
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(prop::collection::vec(text(), 0..2).prop_map(Value::from)),
    )
        .prop_map(|(name, kind, levels)| {
            object(vec![("name", name), ("kind", kind), ("levels", levels)])
        });
    let step = (
        prop::option::of(text()),
        member(any::<bool>().prop_map(Value::from)),
        member(text()),
    )
        .prop_map(|(run, wait, id)| object(vec![("run", run), ("wait", wait), ("id", id)]));
    (
        prop::option::of(prop::collection::vec(item, 0..3).prop_map(Value::from)),
        prop::option::of(step),
    )
        .prop_map(|(allow, step)| object(vec![("allow", allow), ("step", step)]))
}

/// Sends every value `strategy` makes that the validator calls valid; each must echo unchanged.
fn echoes(name: &'static str, strategy: impl Strategy<Value = Value>) {
    echoes_and(name, strategy, |_| {});
}

/// [`echoes`], and `check` sees each value sent.
fn echoes_and(name: &'static str, strategy: impl Strategy<Value = Value>, check: impl Fn(&Value)) {
    let schema = schema_of(name);
    let validator = jsonschema::validator_for(&schema).expect("the shape's schema compiles");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let host = TestHost::new("shapes");
    let handler = host.configure(shapes::make());
    let sent = std::cell::Cell::new(0u32);
    proptest!(ProptestConfig::with_cases(300), |(value in strategy)| {
        prop_assume!(validator.is_valid(&value));
        sent.set(sent.get() + 1);
        check(&value);
        let answer = runtime.block_on(host.call_procedure(&handler, name, value.clone()));
        prop_assert_eq!(answer.status, 200, "{} refused {}: {}", name, value, answer.json);
        prop_assert!(same(&answer.json, &value), "{} echoed {} for {}", name, answer.json, value);
    });
    let sent = sent.get();
    assert!(sent > 100, "{name}: only {sent} valid values were sent");
}

#[test]
fn members_named_like_what_the_generator_reserves_echo_unchanged() {
    echoes_and(
        "reserved_names",
        reserved_names_input(),
        reserved_fields_hold_their_members,
    );
}

#[test]
fn values_of_overlapping_open_branches_keep_their_null_members() {
    echoes("open_branches", open_branches_input());
}

#[test]
fn members_a_branch_requires_beside_its_union_echo_unchanged() {
    echoes("open_branches", required_by_a_branch_input());
}

/// The case that was refused: a closed object with a member named `extra` is typed, and takes a
/// value without it.
#[test]
fn a_closed_object_with_a_member_named_extra_is_typed_and_takes_its_members() {
    let closed: shapes::procedures::reserved_names::Input =
        serde_json::from_value(json!({ "closed": { "uid": "a" } })).unwrap();
    let typed = serde_json::to_value(&closed).unwrap();
    assert_eq!(typed, json!({ "closed": { "uid": "a" } }));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let host = TestHost::new("shapes");
    let handler = host.configure(shapes::make());
    let value = json!({ "closed": { "extra": "x", "uid": "a", "type": "t" }, "clashing": { "self": 1, "Self": "s" } });
    let answer = runtime.block_on(host.call_procedure(&handler, "reserved_names", value.clone()));
    assert_eq!(answer.status, 200, "{}", answer.json);
    assert!(same(&answer.json, &value), "{}", answer.json);
}

#[test]
fn optional_members_that_may_be_null_keep_null_apart_from_absent() {
    echoes("nullable", nullable_input());
}

#[test]
fn a_union_of_an_object_and_a_string_takes_both() {
    echoes("object_or_string", object_or_string_input());
}

#[test]
fn unions_with_overlapping_branches_take_every_valid_value() {
    echoes("overlapping", overlapping_input());
}

#[test]
fn subschemas_written_out_at_several_places_echo_through_one_type() {
    echoes("repeated", repeated_input());
}

#[test]
fn a_closed_object_whose_any_of_only_requires_members_takes_both() {
    echoes("closed_any_of", closed_any_of_input());
}

#[test]
fn open_objects_keep_unnamed_members_inside_nullable_and_union_members() {
    echoes("open_members", open_members_input());
}

#[test]
fn subschemas_written_out_at_several_places_are_one_type() {
    use host_runtime::Nullable;
    use shapes::procedures::repeated::{Input, User};
    let input: Input = serde_json::from_value(json!({
        "sender": { "login": "octocat", "id": 1 },
        "assignee": null,
        "issue": { "user": null, "reactions": { "+1": 2, "-1": 0 }, "state": "open" },
        "states": ["closed"]
    }))
    .unwrap();
    // The same schema is the same type wherever it is written: these assignments compile.
    let sender: User = input.sender.clone();
    let issue = input.issue.clone().unwrap();
    let _same: [&User; 2] = [&sender, &issue.user];
    assert!(matches!(input.assignee, Nullable::Null));
    let reactions = issue.reactions.unwrap();
    assert_eq!((reactions.plus1, reactions.minus1), (2, 0));
    assert_ne!(input.states.unwrap()[0], issue.state.unwrap());
}

#[test]
fn a_nullable_member_reads_as_absent_null_or_a_value() {
    use host_runtime::Nullable;
    let input: shapes::procedures::nullable::Input =
        serde_json::from_value(json!({ "query": null, "limit": 3, "cursor": null })).unwrap();
    assert_eq!(input.query, Nullable::Null);
    assert_eq!(input.limit, Nullable::Value(3));
    assert!(input.tags.is_absent());
    assert_eq!(
        input.cursor, None,
        "a required member that may be null stays an Option"
    );
    assert_eq!(
        input.name, None,
        "a member that may not be null stays an Option"
    );
}
