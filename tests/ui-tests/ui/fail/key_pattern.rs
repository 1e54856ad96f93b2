// The manifest breaks one rule: the error names the file, line, column and pointer.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/invalid/key-pattern.json");

fn main() {}
