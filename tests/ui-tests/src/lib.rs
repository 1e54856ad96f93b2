//! The SDK's trybuild UI cases live in `ui/` and run from `tests/ui.rs`; this crate has no code of
//! its own. It is apart from the other workspace tests so that trybuild's scratch crate depends on
//! what a vendor's crate depends on, and nothing else.
