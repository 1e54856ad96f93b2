//! `prompt-placeholder`: a prompt template's placeholders are `{{project.*}}`, `{{context.*}}` or an
//! `{{input.*}}` field of the prompt's own input form, each closed.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;
use crate::schema::list;

/// Prompt templates use placeholders of three forms only: `{{project.*}}`, `{{context.*}}` and
/// `{{input.*}}`, where an `input` field is one of the prompt's own `input` form (when that form lists
/// its `properties`). Anything else would reach the owner unresolved.
pub(crate) fn check_prompt_placeholders(cx: &mut Ctxt<'_>) {
    let mut found = Vec::new();
    for (i, prompt) in cx.items("/contributes/ai/prompts") {
        let Some(template) = prompt.get("template").and_then(Value::as_str) else {
            continue;
        };
        let input = prompt.get("input");
        let fields: Option<Vec<&str>> = input
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect());
        let mut problems = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find("{{") {
            let after = &rest[open + 2..];
            let Some(close) = after.find("}}") else {
                problems.push("a `{{` that is never closed with `}}`".to_owned());
                break;
            };
            let inside = after[..close].trim();
            rest = &after[close + 2..];
            let (root, path) = inside.split_once('.').unwrap_or((inside, ""));
            let well_formed = !path.is_empty()
                && path.split('.').all(|segment| {
                    segment.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && segment
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            let shown = crate::schema::clip(inside);
            match root {
                "project" | "context" | "input" if !well_formed => problems.push(format!(
                    "`{{{{{shown}}}}}` names no field after `{root}.`"
                )),
                "project" | "context" => {}
                "input" => {
                    let field = path.split('.').next().unwrap_or_default();
                    match (&fields, input) {
                        (_, None) => problems.push(format!(
                            "`{{{{{shown}}}}}` reads the prompt's input form, but the prompt declares no `input`"
                        )),
                        (Some(fields), _) if !fields.contains(&field) => {
                            let have = if fields.is_empty() {
                                "the form has no fields".to_owned()
                            } else {
                                format!("its fields: {}", list(fields))
                            };
                            problems.push(format!(
                                "`{{{{{shown}}}}}` is not a field of the prompt's `input` form; {have}"
                            ));
                        }
                        _ => {}
                    }
                }
                _ => problems.push(format!(
                    "`{{{{{shown}}}}}` is not a placeholder the host resolves; use `{{{{project.*}}}}`, `{{{{context.*}}}}` or `{{{{input.*}}}}`"
                )),
            }
        }
        if !problems.is_empty() {
            found.push((
                format!("/contributes/ai/prompts/{i}/template"),
                problems.join("; "),
            ));
        }
    }
    for (pointer, message) in found {
        cx.error(Rule::PromptPlaceholder, pointer, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, set};
    use serde_json::json;

    #[test]
    fn prompt_placeholders_are_project_context_or_input_fields() {
        let prompt = |template: &str, input: Option<Value>| {
            let mut doc = base();
            let mut prompt = json!({ "id": "why", "title": "Why", "template": template, "surfaces": ["widget"] });
            if let Some(input) = input {
                prompt["input"] = input;
            }
            set(&mut doc, "/contributes/ai/prompts", json!([prompt]));
            let mut cx = Ctxt::new(&doc, None);
            check_prompt_placeholders(&mut cx);
            cx.into_findings()
                .into_iter()
                .map(|f| {
                    assert_eq!(f.pointer, "/contributes/ai/prompts/0/template");
                    assert_eq!(f.rule, Rule::PromptPlaceholder);
                    f.message
                })
                .collect::<Vec<_>>()
        };
        let form =
            || Some(json!({ "type": "object", "properties": { "keyword": { "type": "string" } } }));
        for fine in [
            "Why did {{input.keyword}} drop in {{project.name}} between {{context.from}} and {{ context.to }}?",
            "No placeholder at all, and a lone }} is text.",
            "{{project.store.country}} nests",
        ] {
            assert!(prompt(fine, form()).is_empty(), "{fine}");
        }
        // A form without `properties` cannot be checked field by field.
        assert!(prompt("{{input.anything}}", Some(json!({ "type": "object" }))).is_empty());
        for (bad, says) in [
            ("Hello {{user.name}}", "not a placeholder the host resolves"),
            ("Hello {{name}}", "not a placeholder the host resolves"),
            ("Hello {{project.}}", "names no field"),
            ("Hello {{project.first name}}", "names no field"),
            ("Hello {{input.country}}", "its fields: `keyword`"),
            ("Hello {{project.name", "never closed"),
        ] {
            let found = prompt(bad, form());
            assert_eq!(found.len(), 1, "{bad}: {found:?}");
            assert!(found[0].contains(says), "{bad}: {}", found[0]);
        }
        let found = prompt("Hello {{input.keyword}}", None);
        assert!(found[0].contains("declares no `input`"), "{found:?}");
        // Every problem of one template is in its one diagnostic.
        let found = prompt("{{a.b}} and {{input.x}}", form());
        assert!(
            found.len() == 1 && found[0].contains("{{a.b}}") && found[0].contains("{{input.x}}")
        );
    }
}
