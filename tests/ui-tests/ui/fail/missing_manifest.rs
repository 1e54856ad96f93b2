// The path is relative to the crate's folder; a wrong one says so.

host_runtime::host_extension!("no/such/host.extension.json");

fn main() {}
