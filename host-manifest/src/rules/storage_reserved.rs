//! `storage-reserved`: no storage collection takes the settings panel's name, `settings`.

use super::Ctxt;
use crate::diagnostic::Rule;

/// `settings` is the reserved name of the settings panel's collection.
pub(crate) fn check_storage_reserved(cx: &mut Ctxt<'_>) {
    if cx.get("/contributes/storage/settings").is_some() {
        cx.error(
            Rule::StorageReserved,
            "/contributes/storage/settings",
            "the storage collection name `settings` is reserved for the settings panel's values (`contributes.settings.schema`); choose another name",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn storage_may_not_be_named_settings() {
        let mut doc = base();
        set(
            &mut doc,
            "/contributes/storage",
            json!({ "notes": { "scope": "user", "schema": {} } }),
        );
        assert!(run_rule(&doc, check_storage_reserved).is_empty());
        set(
            &mut doc,
            "/contributes/storage/settings",
            json!({ "scope": "user", "schema": {} }),
        );
        assert_eq!(
            run_rule(&doc, check_storage_reserved),
            vec![(
                Rule::StorageReserved,
                "/contributes/storage/settings".into()
            )]
        );
    }
}
