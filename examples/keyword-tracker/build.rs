//! The generated API of host.extension.json, written where `host_extension!` includes it, so that
//! rust-analyzer follows manifest edits (see the README's "Editors").

fn main() {
    host_runtime_build::generate("host.extension.json");
}
