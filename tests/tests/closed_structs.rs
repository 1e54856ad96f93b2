//! No generated struct refuses a member its schema declares: over every schema corpus the test
//! suite holds (the JSON Schema Test Suite when it is beside the repository, the published
//! real-world schemas and the webhook payload schemas in `tests/schemas`), each schema is the input
//! of a procedure, the manifests are expanded by the generator (no crate is compiled), and every
//! struct carrying `#[serde(deny_unknown_fields)]` is matched to the schema node its doc names.
//! The struct must have a field for each member the node's `properties` declare (a member whose
//! schema is `false` cannot be present and needs none), under the member's JSON name: a closed
//! struct with fewer would answer 422 to a valid value.
//!
//! A struct whose doc names no node (a definition with a description of its own, a union branch
//! typify named) is matched to the node that declares the most of its fields. A struct with no
//! field and no node named is only counted. No closed struct may keep a flattened map.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

mod corpora;
use corpora::root;

/// A manifest whose procedures take these schemas as input.
fn manifest(procedures: &[(String, &Value)]) -> Value {
    let mut procs = serde_json::Map::new();
    for (name, schema) in procedures {
        procs.insert(
            name.clone(),
            json!({ "input": schema, "output": {}, "kind": "read" }),
        );
    }
    json!({
        "id": "closed-structs",
        "name": "Closed structs",
        "description": "Schemas of the test corpora as procedure inputs.",
        "icon": "icon.png",
        "category": "experiments",
        "sdk": "^2.0.0",
        "visibility": "private",
        "installScope": "project",
        "scopes": [{ "key": "ui:render" }],
        "contributes": {},
        "server": { "baseUrl": "https://closed.example/api", "procedures": procs }
    })
}

/// The JSON names a struct's fields take, or `None` for a field that takes every other member
/// (`#[serde(flatten)]`).
fn json_names(item: &syn::ItemStruct) -> Vec<Option<String>> {
    let syn::Fields::Named(fields) = &item.fields else {
        return Vec::new();
    };
    fields
        .named
        .iter()
        .map(|field| {
            let mut name = field
                .ident
                .as_ref()
                .map(|i| i.to_string().trim_start_matches("r#").to_owned());
            for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
                let _ = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("flatten") {
                        name = None;
                    } else if meta.path.is_ident("rename") {
                        let lit: syn::LitStr = meta.value()?.parse()?;
                        name = Some(lit.value());
                    } else if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    }
                    Ok(())
                });
            }
            name
        })
        .collect()
}

fn denies_unknown_fields(item: &syn::ItemStruct) -> bool {
    item.attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .any(|a| {
            let mut deny = false;
            let _ = a.parse_nested_meta(|meta| {
                deny |= meta.path.is_ident("deny_unknown_fields");
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            });
            deny
        })
}

/// The manifest pointer a struct's doc names last (the generator's sentence follows the schema's
/// own text): `The member `a`, at `/server/...``, `Defined at ...`, `typed from the schema at ...`.
fn doc_pointer(item: &syn::ItemStruct) -> Option<String> {
    let mut doc = String::new();
    for attr in &item.attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            doc.push_str(&s.value());
            doc.push('\n');
        }
    }
    doc.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| t.starts_with("/server/procedures/"))
        .last()
        .map(str::to_owned)
}

/// The node at `pointer` in `manifest`, with a reference that is all there is followed within its
/// schema (`/server/procedures/<name>/input`).
fn node_at<'m>(manifest: &'m Value, pointer: &str) -> Option<&'m Value> {
    let schema_root: String = pointer.split('/').take(5).collect::<Vec<_>>().join("/");
    let mut node = manifest.pointer(pointer)?;
    for _ in 0..16 {
        let Some(reference) = node.get("$ref").and_then(Value::as_str) else {
            return Some(node);
        };
        if node
            .as_object()
            .is_some_and(|m| m.contains_key("properties"))
        {
            return Some(node);
        }
        let target = reference.strip_prefix('#')?;
        node = manifest.pointer(&format!("{schema_root}{target}"))?;
    }
    None
}

/// The members a node's `properties` declare, but those whose schema is `false` (such a member
/// cannot be present, so a struct needs no field for it).
fn declared_members(node: &Value) -> Vec<String> {
    node.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, schema)| **schema != Value::Bool(false))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Every node under `node` (at `pointer`) that declares members: its pointer and
/// [`declared_members`].
fn object_nodes(node: &Value, pointer: &str, out: &mut Vec<(String, Vec<String>)>) {
    match node {
        Value::Object(map) => {
            let declared = declared_members(node);
            if !declared.is_empty() {
                out.push((pointer.to_owned(), declared));
            }
            for (key, child) in map {
                let token = key.replace('~', "~0").replace('/', "~1");
                object_nodes(child, &format!("{pointer}/{token}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                object_nodes(child, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// For a struct whose docs name no node (a definition with a description of its own, a union's
/// branch typify named): the node among `objects` that shares the most members with its `fields`,
/// and of those the one declaring the fewest members it lacks. A struct that lost a member is
/// still matched to its node by the members it kept, and the lost one is reported.
fn likeliest_node(
    objects: &[(String, Vec<String>)],
    fields: &BTreeSet<String>,
) -> Option<(String, Vec<String>)> {
    objects
        .iter()
        .map(|(pointer, declared)| {
            let shared = declared.iter().filter(|d| fields.contains(*d)).count();
            (shared, declared.len() - shared, pointer, declared)
        })
        .filter(|(shared, ..)| *shared > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, _, pointer, declared)| (pointer.clone(), declared.clone()))
}

#[derive(Default, Debug)]
struct Figures {
    schemas: usize,
    accepted: usize,
    closed_structs: usize,
    /// Closed structs matched to the node their docs name.
    by_pointer: usize,
    /// Closed structs whose docs name no node, matched by their members.
    by_members: usize,
    /// Closed structs without fields whose docs name no node (no node can be told).
    without_fields: usize,
    properties_checked: usize,
}

#[test]
fn no_closed_struct_refuses_a_member_its_schema_declares() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("closed-structs");
    std::fs::create_dir_all(&work).expect("a scratch folder");
    std::fs::copy(
        root().join("examples/keyword-tracker/assets/icon.png"),
        work.join("icon.png"),
    )
    .expect("the icon");
    let mut figures = Figures::default();
    let mut wrong = Vec::new();
    let groups = corpora::groups();
    let mut names: Vec<&str> = groups.iter().map(|g| g.corpus).collect();
    names.dedup();
    for corpus in names {
        let all: Vec<&Value> = groups
            .iter()
            .filter(|g| g.corpus == corpus)
            .map(|g| &g.schema)
            .collect();
        figures.schemas += all.len();
        let accepted: Vec<&Value> = all
            .into_iter()
            .filter(|schema| {
                let one = [("probe".to_owned(), *schema)];
                host_manifest::validate_str(&manifest(&one).to_string(), Some(&work)).is_valid()
            })
            .collect();
        figures.accepted += accepted.len();
        // A manifest of at most 30 procedures and about 512 KiB of schema text.
        let mut chunks: Vec<Vec<&Value>> = vec![Vec::new()];
        let mut bytes = 0;
        for schema in accepted {
            let size = schema.to_string().len();
            let last = chunks.last().map_or(0, Vec::len);
            if last == 30 || (last > 0 && bytes + size > 512 * 1024) {
                chunks.push(Vec::new());
                bytes = 0;
            }
            bytes += size;
            chunks.last_mut().expect("a chunk").push(schema);
        }
        for (m, chunk) in chunks.iter().enumerate() {
            let procedures: Vec<(String, &Value)> = chunk
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("p{i:02}"), *s))
                .collect();
            let value = manifest(&procedures);
            let file = format!("{corpus}-{m:03}.json");
            std::fs::write(work.join(&file), value.to_string()).expect("write a manifest");
            let expansion = host_codegen::Settings::new()
                .validators(false)
                .expand(&file, Some(&work));
            let errors = expansion.messages.lines(host_codegen::Severity::Error);
            assert!(errors.is_empty(), "{file}: {errors:#?}");
            let parsed = syn::parse_file(&expansion.items).expect("the expansion parses");
            let mut structs = Vec::new();
            collect_structs(&parsed.items, &mut structs);
            let mut objects = Vec::new();
            object_nodes(
                &value["server"]["procedures"],
                "/server/procedures",
                &mut objects,
            );
            for item in structs.into_iter().filter(|s| denies_unknown_fields(s)) {
                figures.closed_structs += 1;
                let names = json_names(item);
                assert!(
                    names.iter().all(Option::is_some),
                    "{file}: `{}` denies unknown fields beside a flattened map",
                    item.ident
                );
                let fields: BTreeSet<String> = names.into_iter().flatten().collect();
                let found = doc_pointer(item)
                    .and_then(|p| node_at(&value, &p).map(|node| (p, declared_members(node))));
                let (pointer, declared) = if let Some(found) = found {
                    figures.by_pointer += 1;
                    found
                } else if let Some(found) = likeliest_node(&objects, &fields) {
                    figures.by_members += 1;
                    found
                } else {
                    assert!(
                        fields.is_empty(),
                        "{file}: `{}` names no schema node and no node declares its fields {fields:?}",
                        item.ident
                    );
                    figures.without_fields += 1;
                    continue;
                };
                figures.properties_checked += declared.len();
                let missing: Vec<&String> =
                    declared.iter().filter(|n| !fields.contains(*n)).collect();
                if !missing.is_empty() || fields.len() < declared.len() {
                    wrong.push(format!(
                        "{file} {pointer}: `{}` has {} fields, its schema declares {} members; missing {missing:?}",
                        item.ident,
                        fields.len(),
                        declared.len()
                    ));
                }
            }
        }
    }
    println!("{figures:#?}");
    assert!(
        figures.closed_structs > 0 && figures.by_pointer > 0 && figures.by_members > 0,
        "{figures:?}"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong closed structs:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every struct among `items`, in modules too.
fn collect_structs<'a>(items: &'a [syn::Item], out: &mut Vec<&'a syn::ItemStruct>) {
    for item in items {
        match item {
            syn::Item::Struct(s) => out.push(s),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect_structs(inner, out);
                }
            }
            _ => {}
        }
    }
}
