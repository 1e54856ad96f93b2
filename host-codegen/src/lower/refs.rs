//! References: a node typed by a definition (a reference target, a later copy of a subschema),
//! `$ref` and `$dynamicRef` lowered to typify's `#/definitions/Name`, and what cannot be
//! (`$recursiveRef`, a `$dynamicRef` resolved only while validating, a `$ref` that leaves the
//! schema), which is typed as JSON. Where a reference leads is [`Resources`](super::Resources)'
//! business.

use serde_json::{Map, Value, json};

use super::{Cx, Draft, is_shape, resolve};

/// A reference a node makes: as written, and the pointer it leads to when that is in this schema.
pub(super) struct Reference<'s> {
    /// The reference as the schema writes it.
    written: &'s str,
    /// The pointer of its target, when the target is in this schema.
    target: Option<String>,
}

/// The node is typed as JSON (`{}`): its reference has no faithful type (reported where that
/// loses one).
pub(super) struct Untyped;

/// A reference to the definition `name`.
pub(super) fn to_definition(name: &str) -> Value {
    json!({ "$ref": format!("#/definitions/{name}") })
}

impl Cx<'_> {
    /// The pointer a reference made at `from` leads to, if it stays inside this schema.
    pub(super) fn target(&self, reference: &str, from: &str) -> Option<String> {
        let pointer = self.resources.resolve(reference, from)?;
        resolve(self.root, &pointer).map(|_| pointer)
    }

    /// A reference to the definition that types the node at `pointer`, if one does: the first's,
    /// for a later copy of a subschema; its own, for a reference target, except when that
    /// definition is being written (`defining`).
    pub(super) fn typed_elsewhere(&self, pointer: &str, defining: bool) -> Option<Value> {
        if let Some(first) = self.copies.first_of.get(pointer)
            && let Some(name) = self.names.get(first)
        {
            return Some(to_definition(name));
        }
        if defining {
            return None;
        }
        self.names.get(pointer).map(|name| to_definition(name))
    }

    /// The node's `$dynamicRef`, when where it leads is known before validation (then it is a
    /// `$ref` to there). A `$recursiveRef`, or a `$dynamicRef` whose target depends on how
    /// validation got to it, makes the node [`Untyped`].
    pub(super) fn dynamic_ref<'s>(
        &mut self,
        map: &'s Map<String, Value>,
        pointer: &str,
    ) -> Result<Option<Reference<'s>>, Untyped> {
        if map.contains_key("$recursiveRef") {
            self.fallback(
                pointer,
                "`$recursiveRef` (draft 2019-09, resolved while validating): typed as JSON"
                    .to_owned(),
            );
            return Err(Untyped);
        }
        let Some(dynamic) = map.get("$dynamicRef").and_then(Value::as_str) else {
            return Ok(None);
        };
        match self.resources.resolve_dynamic(dynamic, pointer) {
            Some(target) if resolve(self.root, &target).is_some() && !map.contains_key("$ref") => {
                Ok(Some(Reference {
                    written: dynamic,
                    target: Some(target),
                }))
            }
            _ => {
                self.fallback(
                    pointer,
                    format!("`$dynamicRef` to `{dynamic}`, whose target depends on how validation got here: typed as JSON"),
                );
                Err(Untyped)
            }
        }
    }

    /// The node's reference (`dynamic`, the `$dynamicRef` resolved early, else its `$ref`), once
    /// its other keywords are lowered: the node becomes a reference to the target's definition, or
    /// `allOf` of that reference and the other shape keywords. A reference that leaves the schema
    /// makes the node [`Untyped`].
    pub(super) fn lower_ref(
        &mut self,
        draft: &mut Draft<'_>,
        dynamic: Option<Reference<'_>>,
    ) -> Result<(), Untyped> {
        let reference = dynamic.or_else(|| {
            let written = draft.map.get("$ref").and_then(Value::as_str)?;
            Some(Reference {
                written,
                target: self.target(written, draft.pointer),
            })
        });
        let Some(Reference { written, target }) = reference else {
            return Ok(());
        };
        let Some(target) = target else {
            return Err(self.outside_ref(written, draft.pointer));
        };
        let r = to_definition(&self.name_for(&target));
        let out = &mut draft.out;
        if out.keys().any(|k| is_shape(k)) {
            let rest = std::mem::take(out);
            out.insert(
                "allOf".to_owned(),
                Value::Array(vec![r, Value::Object(rest)]),
            );
        } else {
            *out = r.as_object().cloned().unwrap_or_default();
        }
        Ok(())
    }

    /// A `$ref` (`written`, in the node at `pointer`) that leaves the schema: reported, unless it is
    /// to the draft's meta-schema, whose Rust type is `serde_json::Value` (any JSON object or
    /// boolean is a JSON Schema).
    fn outside_ref(&mut self, written: &str, pointer: &str) -> Untyped {
        if written.trim_end_matches('#') != "https://json-schema.org/draft/2020-12/schema" {
            self.fallback(
                &format!("{pointer}/$ref"),
                format!("`$ref` to `{written}`, outside this schema: typed as JSON"),
            );
        }
        Untyped
    }
}
