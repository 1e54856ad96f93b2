// Every manifest error is reported at once, each on the path literal, with no cascade of other errors.

host_runtime::host_extension!("repo/tests/ui-tests/ui/manifests/three-errors/host.extension.json");

fn main() {}
