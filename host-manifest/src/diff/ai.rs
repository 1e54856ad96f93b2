//! `contributes.ai`: the tools and actions the assistant calls, its mention pickers and context
//! providers, matched by id; knowledge, skills and prompts compared as whole lists.

use super::schemas::TOOL_INPUT;
use super::{Class, Diff, Side, listed, quoted, some};
use crate::model::{Action, Ai, ContextProvider, Mention, Tool};

impl Diff {
    /// Every assistant contribution; adding or removing all of them is risky besides the items.
    pub(super) fn ai(&mut self, old: &Ai, new: &Ai) {
        self.tools(&old.tools, &new.tools);
        self.actions(&old.actions, &new.actions);
        self.mentions(&old.mentions, &new.mentions);
        self.context(&old.context, &new.context);
        let base = "/contributes/ai";
        if old.is_empty() || new.is_empty() {
            self.loose(base, present(old), present(new));
            return;
        }
        self.loose(
            &format!("{base}/knowledge"),
            some(&old.knowledge),
            some(&new.knowledge),
        );
        self.loose(
            &format!("{base}/skills"),
            some(&old.skills),
            some(&new.skills),
        );
        self.loose(
            &format!("{base}/prompts"),
            some(&old.prompts),
            some(&new.prompts),
        );
    }

    fn tools(&mut self, old: &[Tool], new: &[Tool]) {
        let base = "/contributes/ai/tools";
        let gone = "assistants that call it get 404 NOT_FOUND, and saved prompts or skills naming it stop working";
        let tools = self.pairs(
            listed(old, base, |t| &t.id),
            listed(new, base, |t| &t.id),
            "tool",
            Class::Breaking,
            gone,
        );
        for pair in tools {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("tool `{}`", pair.id);
            self.schema(&a.input, &b.input, p, "input", TOOL_INPUT, &name);
            if a.returns != b.returns {
                let (x, y) = (quoted(a.returns.as_str()), quoted(b.returns.as_str()));
                self.push(
                    Class::Breaking,
                    Side::New,
                    format!("{p}/returns"),
                    format!(
                        "{name} now returns {y} cards instead of {x}: surfaces and saved answers that show its {x} cards break"
                    ),
                );
            }
            self.member(
                &name,
                p,
                "description",
                Some(&a.description),
                Some(&b.description),
            );
            self.member(&name, p, "cost", Some(&a.cost), Some(&b.cost));
            self.member(&name, p, "cache", a.cache.as_ref(), b.cache.as_ref());
        }
    }

    fn actions(&mut self, old: &[Action], new: &[Action]) {
        let base = "/contributes/ai/actions";
        let actions = self.pairs(
            listed(old, base, |a| &a.id),
            listed(new, base, |a| &a.id),
            "action",
            Class::Breaking,
            "runs waiting for approval can no longer be carried out",
        );
        for pair in actions {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("action `{}`", pair.id);
            // An action's input has the tools' wording.
            self.schema(&a.input, &b.input, p, "input", TOOL_INPUT, &name);
            if a.scope != b.scope {
                let (x, y) = (quoted(&a.scope), quoted(&b.scope));
                self.push(
                    Class::Risky,
                    Side::New,
                    format!("{p}/scope"),
                    format!(
                        "{name} now needs the scope {y} instead of {x}: installs without it get 403 SCOPE_MISSING"
                    ),
                );
            }
            self.member(
                &name,
                p,
                "description",
                Some(&a.description),
                Some(&b.description),
            );
            self.member(&name, p, "approval", Some(&a.approval), Some(&b.approval));
            self.member(
                &name,
                p,
                "reversible",
                Some(&a.reversible),
                Some(&b.reversible),
            );
            self.member(
                &name,
                p,
                "estimatesCost",
                a.estimates_cost.as_ref(),
                b.estimates_cost.as_ref(),
            );
        }
    }

    fn mentions(&mut self, old: &[Mention], new: &[Mention]) {
        let base = "/contributes/ai/mentions";
        let mentions = self.pairs(
            listed(old, base, |m| &m.id),
            listed(new, base, |m| &m.id),
            "mention",
            Class::Breaking,
            "`@` pickers that offered it are gone from the assistant",
        );
        for pair in mentions {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("mention `{}`", pair.id);
            self.member(&name, p, "label", Some(&a.label), Some(&b.label));
            self.member(&name, p, "list", Some(&a.list), Some(&b.list));
        }
    }

    fn context(&mut self, old: &[ContextProvider], new: &[ContextProvider]) {
        let base = "/contributes/ai/context";
        let providers = self.pairs(
            listed(old, base, |c| &c.id),
            listed(new, base, |c| &c.id),
            "context provider",
            Class::Breaking,
            "the assistant stops getting its context block",
        );
        for pair in providers {
            let (a, b, p) = (pair.old, pair.new, &pair.pointer);
            let name = format!("context provider `{}`", pair.id);
            self.member(
                &name,
                p,
                "description",
                Some(&a.description),
                Some(&b.description),
            );
            self.member(&name, p, "when", Some(&a.when[..]), Some(&b.when[..]));
            self.member(&name, p, "cache", a.cache.as_ref(), b.cache.as_ref());
        }
    }
}

/// The assistant contributions as the manifest writes them: left out when there are none.
fn present(ai: &Ai) -> Option<&Ai> {
    (!ai.is_empty()).then_some(ai)
}
