//! Rust types from the JSON Schemas a manifest embeds, through `typify`, rewritten so that the code
//! needs no dependency in the vendor's crate but `host-runtime`.
//!
//! Each schema becomes one module of its own (`tools::keyword_ranks`), whose root type has a fixed name
//! (`Input`, `Output`, `Payload`, `Document`, `Settings`); typify names nested types after it.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;
use syn::visit_mut::{self, VisitMut};

/// The crates typify's output refers to, re-exported by `host_runtime::codegen`.
const REEXPORTED: [&str; 5] = ["serde", "serde_json", "regress", "chrono", "uuid"];

/// Generates the items of one schema module: the root type named `root` and everything it needs.
/// On a schema typify cannot type, the root is a `serde_json::Value` and the reason is returned.
pub fn schema_items(schema: &Value, root: &str) -> (TokenStream, Option<String>) {
    schemas_items(&[(schema, root)])
}

/// Like [`schema_items`] for several roots sharing one module (a procedure's `Input` and `Output`),
/// typed in one pass so typify's helper modules are emitted once.
pub fn schemas_items(roots: &[(&Value, &str)]) -> (TokenStream, Option<String>) {
    match typify_items(roots) {
        Ok(items) => (items, None),
        Err(why) => {
            let names = roots
                .iter()
                .map(|(_, root)| syn::Ident::new(root, proc_macro2::Span::call_site()));
            let items = quote! {
                #(
                    /// Untyped: the generator could not derive a Rust type from this schema.
                    pub type #names = ::host_runtime::serde_json::Value;
                )*
            };
            (items, Some(why))
        }
    }
}

fn typify_items(roots: &[(&Value, &str)]) -> Result<TokenStream, String> {
    let mut parsed = Vec::new();
    for (schema, root) in roots {
        let root_schema: schemars::schema::RootSchema =
            serde_json::from_value(to_draft7(schema))
                .map_err(|e| format!("the schema cannot be read: {e}"))?;
        parsed.push((root_schema, (*root).to_owned()));
    }
    let mut settings = typify::TypeSpaceSettings::default();
    settings.with_struct_builder(false);
    let mut space = typify::TypeSpace::new(&settings);
    // typify panics on some schemas it does not support; those become untyped instead.
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        for (root_schema, root) in parsed {
            space
                .add_ref_types(root_schema.definitions.clone())
                .map_err(|e| e.to_string())?;
            space
                .add_type_with_name(
                    &schemars::schema::Schema::Object(root_schema.schema.clone()),
                    Some(root),
                )
                .map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(space.to_stream())
    }))
    .map_err(|_| "typify could not handle this schema".to_owned())??;
    let mut file: syn::File =
        syn::parse2(generated).map_err(|e| format!("typify produced invalid code: {e}"))?;
    Rewrite.visit_file_mut(&mut file);
    document_fields(&mut file.items);
    let items = file.items;
    Ok(quote! { #(#items)* })
}

/// typify reads draft 7 (`definitions`); manifests use draft 2020-12 (`$defs`).
fn to_draft7(schema: &Value) -> Value {
    fn walk(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => (
                            k.clone(),
                            Value::String(r.replacen("#/$defs/", "#/definitions/", 1)),
                        ),
                        _ => (k.clone(), walk(v)),
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(walk).collect()),
            other => other.clone(),
        }
    }
    let mut out = walk(schema);
    if let Value::Object(map) = &mut out {
        map.remove("$schema");
        map.remove("$id");
        // typify names a type after its `title`; the root's name is fixed (`Input`, ...), so the title
        // moves into the description, which becomes the doc comment.
        if let Some(Value::String(title)) = map.remove("title") {
            let description = match map.get("description").and_then(Value::as_str) {
                Some(d) => format!("{title}\n\n{d}"),
                None => title,
            };
            map.insert("description".to_owned(), Value::String(description));
        }
        if let Some(defs) = map.remove("$defs") {
            map.insert("definitions".to_owned(), defs);
        }
    }
    out
}

/// Points typify's crate paths at `host_runtime::codegen`, tells serde's derives where serde is, and
/// hides typify's helper module from docs.
struct Rewrite;

impl Rewrite {
    fn is_reexported(path: &syn::Path) -> bool {
        path.leading_colon.is_some()
            && path
                .segments
                .first()
                .is_some_and(|s| REEXPORTED.contains(&s.ident.to_string().as_str()))
    }

    fn reroot(path: &mut syn::Path) {
        if Self::is_reexported(path) {
            let mut new: syn::Path = syn::parse_quote!(::host_runtime::codegen);
            new.segments.extend(std::mem::take(&mut path.segments));
            *path = new;
        }
    }

    /// Rewrites the paths inside `#[derive(...)]` and reports whether serde derives are present.
    fn rewrite_derives(attrs: &mut [syn::Attribute]) -> bool {
        let mut serde = false;
        for attr in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
            let Ok(mut paths) = attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            ) else {
                continue;
            };
            for path in paths.iter_mut() {
                let last = path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                serde |= last == "Serialize" || last == "Deserialize";
                Self::reroot(path);
            }
            *attr = syn::parse_quote!(#[derive(#paths)]);
        }
        serde
    }

    fn add_serde_crate(attrs: &mut Vec<syn::Attribute>) {
        if Self::rewrite_derives(attrs) {
            attrs.push(syn::parse_quote!(#[serde(crate = "::host_runtime::codegen::serde")]));
        }
    }
}

impl VisitMut for Rewrite {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        Self::reroot(path);
        visit_mut::visit_path_mut(self, path);
    }

    // In `<D::Error as ::serde::de::Error>::custom` the trait's length is recorded in the qualified
    // self; rerooting adds two segments (`host_runtime::codegen`) in front of it.
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if let Some(q) = &mut e.qself
            && Self::is_reexported(&e.path)
        {
            q.position += 2;
        }
        visit_mut::visit_expr_path_mut(self, e);
    }

    fn visit_type_path_mut(&mut self, t: &mut syn::TypePath) {
        if let Some(q) = &mut t.qself
            && Self::is_reexported(&t.path)
        {
            q.position += 2;
        }
        visit_mut::visit_type_path_mut(self, t);
    }

    fn visit_item_struct_mut(&mut self, item: &mut syn::ItemStruct) {
        Self::add_serde_crate(&mut item.attrs);
        visit_mut::visit_item_struct_mut(self, item);
    }

    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        Self::add_serde_crate(&mut item.attrs);
        visit_mut::visit_item_enum_mut(self, item);
    }

    fn visit_item_mod_mut(&mut self, item: &mut syn::ItemMod) {
        if item.ident == "defaults" {
            item.attrs.push(syn::parse_quote!(#[doc(hidden)]));
        }
        visit_mut::visit_item_mod_mut(self, item);
    }

    // `#[serde(skip_serializing_if = "::serde_json::Map::is_empty")]` names paths inside strings.
    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        if attr.path().is_ident("serde") {
            let mut text = quote::ToTokens::to_token_stream(&attr.meta).to_string();
            let mut changed = false;
            for krate in REEXPORTED {
                let from = format!("\"::{krate}::");
                if text.contains(&from) {
                    text = text.replace(&from, &format!("\"::host_runtime::codegen::{krate}::"));
                    changed = true;
                }
            }
            if changed && let Ok(meta) = syn::parse_str::<syn::Meta>(&text) {
                attr.meta = meta;
            }
        }
        visit_mut::visit_attribute_mut(self, attr);
    }
}

/// Gives every public field and variant without a description a doc line naming its JSON member, so
/// the generated code passes `#![deny(missing_docs)]`.
fn document_fields(items: &mut [syn::Item]) {
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                for field in s.fields.iter_mut() {
                    if has_doc(&field.attrs) || !matches!(field.vis, syn::Visibility::Public(_)) {
                        continue;
                    }
                    let Some(ident) = &field.ident else { continue };
                    let json = serde_rename(&field.attrs)
                        .unwrap_or_else(|| ident.to_string().trim_start_matches("r#").to_owned());
                    let doc = format!(" `{json}`.");
                    field.attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
                }
            }
            syn::Item::Enum(e) => {
                for variant in e.variants.iter_mut() {
                    if has_doc(&variant.attrs) {
                        continue;
                    }
                    let json =
                        serde_rename(&variant.attrs).unwrap_or_else(|| variant.ident.to_string());
                    let doc = format!(" `{json}`.");
                    variant.attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &mut m.content {
                    document_fields(inner);
                }
            }
            _ => {}
        }
    }
}

fn has_doc(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("doc"))
}

fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                found = Some(lit.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(schema: Value) -> String {
        let (items, why) = schema_items(&schema, "Input");
        assert_eq!(why, None);
        items.to_string()
    }

    #[test]
    fn paths_point_at_the_runtime() {
        let out = render(
            json!({ "type": "object", "properties": { "c": { "type": "string", "pattern": "^[A-Z]{2}$" } } }),
        );
        assert!(
            out.contains(":: host_runtime :: codegen :: serde :: Deserialize"),
            "{out}"
        );
        assert!(
            out.contains(":: host_runtime :: codegen :: regress"),
            "{out}"
        );
        assert!(
            out.contains("crate = \"::host_runtime::codegen::serde\""),
            "{out}"
        );
        assert!(
            !out.contains("(:: serde ::") && !out.contains("< :: serde ::"),
            "{out}"
        );
    }

    #[test]
    fn defs_are_read_as_definitions() {
        let out = render(json!({
            "type": "object",
            "properties": { "a": { "$ref": "#/$defs/Thing" } },
            "$defs": { "Thing": { "type": "object", "properties": { "b": { "type": "number" } } } }
        }));
        assert!(out.contains("pub struct Thing"), "{out}");
    }

    #[test]
    fn a_titled_root_keeps_its_fixed_name() {
        let out = render(
            json!({ "title": "Report query", "type": "object", "properties": { "m": { "type": "object" } } }),
        );
        assert!(out.contains("pub struct Input"), "{out}");
        assert!(out.contains("Report query"), "{out}");
        assert!(
            !out.contains("\"::serde_json::"),
            "paths in serde attributes are rerooted: {out}"
        );
    }

    #[test]
    fn fields_without_descriptions_get_docs() {
        let out =
            render(json!({ "type": "object", "properties": { "type": { "type": "string" } } }));
        assert!(out.contains("\" `type`.\""), "{out}");
    }
}
