//! The Rust names the code generator gives manifest names: `keyword-ranks` becomes the module and
//! method `keyword_ranks`, `average_rank` the variant `AverageRank`. They live in the engine so that the
//! `rust-name` rule and the generator cannot disagree about when two names collide.
//!
//! ```
//! use host_manifest::names::{camel, snake};
//! assert_eq!(snake("listExperiments"), "list_experiments");
//! assert_eq!(snake("rank.dropped"), "rank_dropped");
//! assert_eq!(camel("average_rank"), "AverageRank");
//! ```

use heck::{ToSnakeCase, ToUpperCamelCase};

/// The snake_case name of a module, method or field (`keyword-ranks`, `rank.dropped`,
/// `listExperiments`).
pub fn snake(name: &str) -> String {
    name.replace(['.', '-'], "_").to_snake_case()
}

/// The UpperCamelCase name of a type or variant (`rank_dropped` -> `RankDropped`).
pub fn camel(name: &str) -> String {
    name.replace(['.', '-', ':'], "_").to_upper_camel_case()
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
}
