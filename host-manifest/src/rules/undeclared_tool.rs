//! `undeclared-tool`: skills' `tools` and prompts' `after` name tools the extension declares.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;
use crate::schema::list;

/// Skills' `tools` and prompts' `after` must name tools the extension declares.
pub(crate) fn check_undeclared_tools(cx: &mut Ctxt<'_>) {
    let tools = cx.strings_of("/contributes/ai/tools", "id");
    for (kind, member) in [("skills", "tools"), ("prompts", "after")] {
        let mut found = Vec::new();
        for (i, item) in cx.items(&format!("/contributes/ai/{kind}")) {
            for (j, name) in item
                .get(member)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let Some(name) = name.as_str() else { continue };
                if !tools.contains(&name) {
                    found.push((format!("/contributes/ai/{kind}/{i}/{member}/{j}"), name));
                }
            }
        }
        for (pointer, name) in found {
            let have = if tools.is_empty() {
                "the manifest declares no tools".to_owned()
            } else {
                format!("declared tools: {}", list(&tools))
            };
            cx.error(
                Rule::UndeclaredTool,
                pointer,
                format!("`{name}` is not a tool under `contributes.ai.tools`; {have}"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn skills_and_prompts_name_declared_tools() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/ai/skills",
            json!([ { "id": "s", "name": "S", "description": "Does things.", "file": "s.md", "tools": ["keyword-ranks"] } ]),
        );
        set(
            &mut doc,
            "/contributes/ai/prompts",
            json!([ { "id": "p", "title": "P", "template": "t", "surfaces": ["page"], "after": ["keyword-ranks"] } ]),
        );
        assert!(run_rule(&doc, check_undeclared_tools).is_empty());
        set(
            &mut doc,
            "/contributes/ai/skills/0/tools/0",
            json!("keyword-rank"),
        );
        set(&mut doc, "/contributes/ai/prompts/0/after/0", json!("nope"));
        assert_eq!(
            run_rule(&doc, check_undeclared_tools),
            vec![
                (
                    Rule::UndeclaredTool,
                    "/contributes/ai/skills/0/tools/0".into()
                ),
                (
                    Rule::UndeclaredTool,
                    "/contributes/ai/prompts/0/after/0".into()
                )
            ]
        );
    }
}
