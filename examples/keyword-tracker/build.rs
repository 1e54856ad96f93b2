//! The generated API of host.extension.json, written where `host_extension!` includes it, so that
//! rust-analyzer follows manifest edits (see "Editors" in the guide,
//! `host_runtime::guide::manifest`).

fn main() {
    host_runtime_build::generate("host.extension.json");
}
