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
    // No listing at all is one finding at `/listing` (a pointer into an object that exists); a
    // listing that is not an object is the schema's finding.
    let listing = match cx.get("/listing") {
        None => {
            cx.error(
                Rule::ListingIncomplete,
                "/listing".to_owned(),
                format!(
                    "a public extension needs a `listing` with all five fields ({}); add it, or use `\"visibility\": \"unlisted\"`",
                    list(&FIELDS)
                ),
            );
            return;
        }
        Some(Value::Object(listing)) => listing,
        Some(_) => return,
    };
    let missing: Vec<&str> = FIELDS
        .iter()
        .copied()
        .filter(|f| !listing.contains_key(*f))
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

    #[test]
    fn no_listing_is_one_finding_at_the_member_that_is_missing() {
        // Found by the fuzzer: five findings at `/listing/<field>`, inside an object that does
        // not exist, each located at 1:1.
        let mut doc = base();
        set(&mut doc, "/visibility", json!("public"));
        assert_eq!(
            run_rule(&doc, check_listing_complete),
            vec![(Rule::ListingIncomplete, "/listing".into())]
        );
        set(&mut doc, "/listing", json!("soon"));
        assert!(
            run_rule(&doc, check_listing_complete).is_empty(),
            "the schema's"
        );
    }
}
