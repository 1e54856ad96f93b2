// Two procedures whose names become one Rust name: the engine's `rust-name` rule names both, at the
// second one's line and column, before any generated code could clash.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/invalid/rust-name-procedures.json");

fn main() {}
