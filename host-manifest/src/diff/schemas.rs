//! An embedded JSON Schema's change, classified by who reads the schema: the compatibility checker
//! (`schema_compat`) says whether the schema accepts more or less, and the schema's [`Role`] says
//! what that means for installs.

use super::{Class, Diff, Side};
use crate::model::JsonSchema;
use crate::schema_compat::{Effect, compare};

/// Whether a schema is read from callers or stored data (`Input`) or read by consumers (`Output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Accepting less breaks; the text says who.
    Input(&'static str),
    /// Allowing more may surprise; the text says who.
    Output(&'static str),
}

/// Tool and action inputs: the assistant's calls.
pub(super) const TOOL_INPUT: Role =
    Role::Input("calls the assistant makes as before may be refused with 422 INPUT_INVALID");
/// Procedure inputs: the calls of the extension's pages.
pub(super) const PROCEDURE_INPUT: Role =
    Role::Input("calls the extension's pages make as before may be refused with 422 INPUT_INVALID");
/// Procedure outputs: what the pages read.
pub(super) const PROCEDURE_OUTPUT: Role =
    Role::Output("the pages that read it may get values they do not expect");
/// Webhook payloads: what automations and surfaces read.
pub(super) const PAYLOAD: Role =
    Role::Output("automations and surfaces that read the event may get values they do not expect");
/// The settings schema: values owners saved.
pub(super) const SETTINGS: Role = Role::Input("settings owners saved before may no longer fit");
/// Storage schemas: documents installs stored.
pub(super) const STORAGE: Role = Role::Input("documents installs stored before may no longer fit");

impl Diff {
    /// Compares the schemas at `member` of an item at `item` (in the new manifest); `what` names the
    /// item in the messages.
    pub(super) fn schema(
        &mut self,
        old: &JsonSchema,
        new: &JsonSchema,
        item: &str,
        member: &str,
        role: Role,
        what: &str,
    ) {
        let p = format!("{item}/{member}");
        let mut deltas = Vec::new();
        compare(old, new, "", &mut deltas);
        for delta in deltas {
            let class = match (role, delta.effect) {
                (_, Effect::Unknown) => Class::Risky,
                (_, Effect::Text) => Class::Safe,
                (Role::Input(_), Effect::Narrows | Effect::Both) => Class::Breaking,
                (Role::Input(_), Effect::Widens) => Class::Safe,
                (Role::Output(_), Effect::Widens | Effect::Both) => Class::Risky,
                (Role::Output(_), Effect::Narrows) => Class::Safe,
            };
            let consequence = match (role, class) {
                (_, Class::Safe) => "",
                (_, Class::Risky) if delta.effect == Effect::Unknown => {
                    "this comparison cannot tell what it accepts now; check it by hand"
                }
                (Role::Input(who) | Role::Output(who), _) => who,
            };
            let at = if delta.at.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", delta.at)
            };
            self.push(
                class,
                Side::New,
                format!("{p}{}", delta.pointer),
                if consequence.is_empty() {
                    format!("{what} {member}{at}: {}", delta.sentence)
                } else {
                    format!("{what} {member}{at}: {}; {consequence}", delta.sentence)
                },
            );
        }
    }
}
