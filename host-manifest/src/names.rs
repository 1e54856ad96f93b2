//! The Rust names the code generator gives manifest names: `keyword-ranks` becomes the module and
//! method `keyword_ranks`, `average_rank` the variant `AverageRank`. They live in the engine so that the
//! `rust-name` rule and the generator cannot disagree about when two names collide, and so does the
//! one list of the kinds of names that must stay distinct, [`NameKind::ALL`].
//!
//! ```
//! use host_manifest::names::{camel, snake};
//! assert_eq!(snake("listExperiments"), "list_experiments");
//! assert_eq!(snake("rank.dropped"), "rank_dropped");
//! assert_eq!(camel("average_rank"), "AverageRank");
//! ```

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::places::Place;

/// The snake_case name of a module, method or field (`keyword-ranks`, `rank.dropped`,
/// `listExperiments`).
pub fn snake(name: &str) -> String {
    name.replace(['.', '-'], "_").to_snake_case()
}

/// The UpperCamelCase name of a type or variant (`rank_dropped` -> `RankDropped`).
pub fn camel(name: &str) -> String {
    name.replace(['.', '-', ':'], "_").to_upper_camel_case()
}

/// A kind of manifest name that becomes a Rust name, within which no two names may become the same
/// one (`list-runs` and `listRuns` are both `list_runs`). The engine's `rust-name` rule reads each kind
/// from the raw manifest; the code generator leaves later repeats of each out of an invalid manifest's
/// expansion. Both iterate [`NameKind::ALL`], so a kind added here is checked by both; the enum is
/// exhaustive on purpose, so that the generator's `match` over it fails to compile until it handles a
/// new kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// `contributes.ai.tools[].id`.
    Tools,
    /// `contributes.ai.actions[].id`.
    Actions,
    /// `contributes.ai.mentions[].id`.
    Mentions,
    /// `contributes.ai.context[].id`.
    ContextProviders,
    /// `contributes.ai.prompts[].id`.
    Prompts,
    /// `contributes.webhooks[].event`.
    Webhooks,
    /// The names of `contributes.storage`.
    StorageCollections,
    /// The names of `server.procedures`.
    Procedures,
    /// `server.events[]`.
    SubscribedEvents,
    /// `contributes.connector.metrics[].key`.
    Metrics,
    /// `contributes.connector.auth.fields[].name`.
    AuthFields,
    /// `telemetry[]`.
    Telemetry,
}

/// How a kind of name becomes Rust.
#[derive(Clone, Copy)]
enum Case {
    Snake,
    Camel,
}

impl NameKind {
    /// Every kind, in the order the `rust-name` rule reports them.
    pub const ALL: [NameKind; 12] = [
        NameKind::Tools,
        NameKind::Actions,
        NameKind::Mentions,
        NameKind::ContextProviders,
        NameKind::Prompts,
        NameKind::Webhooks,
        NameKind::StorageCollections,
        NameKind::Procedures,
        NameKind::SubscribedEvents,
        NameKind::Metrics,
        NameKind::AuthFields,
        NameKind::Telemetry,
    ];

    /// The kind in a sentence, plural: `tools`, `storage collections`.
    pub fn plural(self) -> &'static str {
        self.row().0
    }

    /// What a name of this kind becomes in the generated code: `method and module`.
    pub fn rust_item(self) -> &'static str {
        self.row().2
    }

    /// The Rust name a name of this kind becomes (before raw-identifier escaping).
    pub fn rust_name(self, name: &str) -> String {
        match self.row().1 {
            Case::Snake => snake(name),
            Case::Camel => camel(name),
        }
    }

    /// Where names of this kind are written in the manifest.
    pub(crate) fn place(self) -> Place {
        use Place::{Items, Keys, Strings};
        match self {
            NameKind::Tools => Items("/contributes/ai/tools", "id"),
            NameKind::Actions => Items("/contributes/ai/actions", "id"),
            NameKind::Mentions => Items("/contributes/ai/mentions", "id"),
            NameKind::ContextProviders => Items("/contributes/ai/context", "id"),
            NameKind::Prompts => Items("/contributes/ai/prompts", "id"),
            NameKind::Webhooks => Items("/contributes/webhooks", "event"),
            NameKind::StorageCollections => Keys("/contributes/storage"),
            NameKind::Procedures => Keys("/server/procedures"),
            NameKind::SubscribedEvents => Strings("/server/events"),
            NameKind::Metrics => Items("/contributes/connector/metrics", "key"),
            NameKind::AuthFields => Items("/contributes/connector/auth/fields", "name"),
            NameKind::Telemetry => Strings("/telemetry"),
        }
    }

    /// `(plural, case, Rust item)`: one row of the table.
    fn row(self) -> (&'static str, Case, &'static str) {
        use Case::{Camel, Snake};
        match self {
            NameKind::Tools => ("tools", Snake, "method and module"),
            NameKind::Actions => ("actions", Snake, "method and module"),
            NameKind::Mentions => ("mentions", Snake, "method"),
            NameKind::ContextProviders => ("context providers", Snake, "method"),
            NameKind::Prompts => ("prompts", Snake, "module"),
            NameKind::Webhooks => ("webhooks", Snake, "method and module"),
            NameKind::StorageCollections => ("storage collections", Snake, "field and module"),
            NameKind::Procedures => ("procedures", Snake, "method and module"),
            NameKind::SubscribedEvents => ("subscribed events", Snake, "method"),
            NameKind::Metrics => ("metrics", Camel, "`Metric` variant"),
            NameKind::AuthFields => ("auth fields", Snake, "`Credentials` field"),
            NameKind::Telemetry => ("telemetry names", Camel, "`Telemetry` variant"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_predictably() {
        assert_eq!(snake("keyword-ranks"), "keyword_ranks");
        assert_eq!(snake("install.token_rotated"), "install_token_rotated");
        assert_eq!(snake("get-result"), snake("getResult"));
        assert_eq!(snake("a--b"), snake("a-b"));
        assert_eq!(camel("keyword.set_changed"), "KeywordSetChanged");
        assert_eq!(camel("ui:render"), "UiRender");
    }

    #[test]
    fn every_kind_is_listed_once() {
        let mut places: Vec<String> = NameKind::ALL
            .iter()
            .map(|k| format!("{:?}", k.place()))
            .collect();
        places.sort();
        places.dedup();
        assert_eq!(places.len(), NameKind::ALL.len());
        assert_eq!(NameKind::Metrics.rust_name("average_rank"), "AverageRank");
        assert_eq!(NameKind::Procedures.rust_name("listRuns"), "list_runs");
    }
}
