// Writes the code `host_extension!` generates into the build output whenever the manifest (or a
// file it names) changes, so the editor's completions follow the manifest.
fn main() {
    host_runtime_build::generate("host.extension.json");
}
