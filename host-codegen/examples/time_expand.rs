//! Times `host_codegen::Settings::expand` on a manifest the way the macro runs it: the first expansion in a fresh
//! process, then the steady state, and reports the size of the generated code.
//!
//! `cargo run -p host-codegen --example time_expand [--release] [PATH]`

#![allow(clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../host-manifest/tests/fixtures/valid/at-every-limit/host.extension.json")
        });
    let path = path.canonicalize().expect("the manifest exists");
    let dir = path.parent().expect("a folder");
    let file = path
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .into_owned();
    let span = proc_macro2::Span::call_site();
    let start = Instant::now();
    let tokens = host_codegen::Settings::new()
        .expand(&file, Some(dir))
        .tokens(span);
    let first = start.elapsed();
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(
            host_codegen::Settings::new()
                .expand(&file, Some(dir))
                .tokens(span),
        );
    }
    let steady = start.elapsed() / runs;
    let text = tokens.to_string();
    let pretty = host_codegen::Settings::new()
        .expand(&file, Some(dir))
        .pretty();
    println!(
        "{}: first={:.1} ms steady={:.1} ms tokens={} bytes, formatted={} bytes / {} lines",
        path.display(),
        first.as_secs_f64() * 1e3,
        steady.as_secs_f64() * 1e3,
        text.len(),
        pretty.len(),
        pretty.lines().count()
    );
}
