//! `listing-incomplete`: a public extension has all five listing fields.

use serde_json::Value;

use super::Ctxt;
use crate::diagnostic::Rule;
use crate::schema::list;

/// A public extension needs all five listing fields.
pub(crate) fn check_listing_complete(cx: &mut Ctxt<'_>) {
    if cx.str("/visibility") != Some("public") {
        return;
    }
    const FIELDS: [&str; 5] = [
        "longDescription",
        "screenshots",
        "website",
        "supportUrl",
        "privacyUrl",
    ];
    let listing = cx.get("/listing").and_then(Value::as_object);
    let missing: Vec<&str> = FIELDS
        .iter()
        .copied()
        .filter(|f| listing.is_none_or(|l| !l.contains_key(*f)))
        .collect();
    for field in &missing {
        cx.error(
            Rule::ListingIncomplete,
            format!("/listing/{field}"),
            format!(
                "a public extension needs all five listing fields and `listing.{field}` is missing (missing: {}); add it, or use `\"visibility\": \"unlisted\"`",
                list(&missing)
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{base, run_rule, set};
    use serde_json::json;

    #[test]
    fn public_needs_all_five_listing_fields() {
        let mut doc = base();
        assert!(run_rule(&doc, check_listing_complete).is_empty());
        set(&mut doc, "/visibility", json!("public"));
        set(
            &mut doc,
            "/listing",
            json!({ "longDescription": "x", "screenshots": ["a.png"], "website": "https://a.example", "supportUrl": "https://a.example" }),
        );
        assert_eq!(
            run_rule(&doc, check_listing_complete),
            vec![(Rule::ListingIncomplete, "/listing/privacyUrl".into())]
        );
        set(
            &mut doc,
            "/listing/privacyUrl",
            json!("https://a.example/privacy"),
        );
        assert!(run_rule(&doc, check_listing_complete).is_empty());
    }
}
