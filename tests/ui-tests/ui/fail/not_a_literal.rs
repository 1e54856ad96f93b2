// The macro takes the manifest's path as a string literal.

host_runtime::host_extension!(host.extension.json);

fn main() {}
