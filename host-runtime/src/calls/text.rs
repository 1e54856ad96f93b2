//! The two text forms answers must use, links and timestamps: one definition each, for the answer
//! types' own checks and for [`check`](crate::check), which makes them public.

/// Whether `url` is an https URL with something after the scheme (the scheme is case-insensitive,
/// as in RFC 3986). The one check of links in answers and inputs: list items, created work items,
/// work attachments.
pub fn is_https(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
        && url.len() > 8
}

/// Whether `text` is an ISO 8601 timestamp in UTC (RFC 3339 with a `Z` offset), as every timestamp
/// in an answer must be: `2026-11-02T14:03:11Z`.
pub fn is_utc_timestamp(text: &str) -> bool {
    text.ends_with(['Z', 'z']) && chrono::DateTime::parse_from_rfc3339(text).is_ok()
}
