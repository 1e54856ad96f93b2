//! trybuild UI tests: manifest mistakes become located compiler errors (committed `.stderr`), a missing
//! handler, a wrong answer kind or an undeclared webhook does not compile, and crates implementing the
//! generated traits do.
//!
//! Manifest paths in `ui/` are relative to trybuild's scratch crate, `target/tests/trybuild/<crate>`,
//! hence the `../../../../` that leads back to the repository root. Bless new output with
//! `TRYBUILD=overwrite cargo test -p host-sdk-tests --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
