// Manifest warnings are real compiler warnings: denied here, they stop the build.
#![deny(warnings)]

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/with-warnings/host.extension.json");

fn main() {}
