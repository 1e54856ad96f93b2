//! Install token verification: valid tokens of each algorithm, every refusal rule, the key
//! set fetch and cache (with a local key server and a settable clock), and the verified-token cache.

mod algorithms;
mod claims;
mod key_set;
mod shape;
mod support;
mod token_cache;
mod verify;
mod warm;
