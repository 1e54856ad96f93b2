// The expansion names every type it uses in full: a vendor crate with its own `Result`, `Option`,
// `String`, `Box`, `Vec` (and `Ok`, `Send`, a `serde` module) still compiles it.
#![allow(dead_code, non_camel_case_types, unused_imports)]

struct Result;
struct Option;
struct String;
struct Box;
struct Vec;
struct Ok;
struct Err;
struct Some;
trait Send {}
trait Sync {}
trait Future {}
trait Debug {}
trait Clone {}
mod serde {}
mod serde_json {}
mod core {}
mod std {}

::host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

fn main() {}
