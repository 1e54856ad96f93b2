//! The console's page, embedded in the binary so the console works offline and from
//! `cargo install`: the page, its script and style (`host-cli/assets/console/`), and the vendored
//! JSON-Schema form library (`vendor/`, @json-editor/json-editor, MIT; its version and checksum
//! are in `vendor/README.md`).

/// One embedded file.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// Every file, by the path the page asks for.
const FILES: [(&str, Asset); 6] = [
    (
        "/",
        Asset {
            content_type: HTML,
            bytes: include_bytes!("../../../assets/console/index.html"),
        },
    ),
    (
        "/console.js",
        Asset {
            content_type: JS,
            bytes: include_bytes!("../../../assets/console/console.js"),
        },
    ),
    (
        "/console.css",
        Asset {
            content_type: CSS,
            bytes: include_bytes!("../../../assets/console/console.css"),
        },
    ),
    (
        "/vendor/jsoneditor.min.js",
        Asset {
            content_type: JS,
            bytes: include_bytes!("../../../assets/console/vendor/jsoneditor.min.js"),
        },
    ),
    (
        "/vendor/jsoneditor.min.js.LICENSE.txt",
        Asset {
            content_type: TEXT,
            bytes: include_bytes!("../../../assets/console/vendor/jsoneditor.min.js.LICENSE.txt"),
        },
    ),
    (
        "/vendor/LICENSE-json-editor.txt",
        Asset {
            content_type: TEXT,
            bytes: include_bytes!("../../../assets/console/vendor/LICENSE-json-editor.txt"),
        },
    ),
];

/// The file served at `path`.
pub fn find(path: &str) -> Option<Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES.iter().find(|(p, _)| *p == path).map(|(_, a)| *a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_and_its_files_are_embedded() {
        assert!(find("/").is_some_and(|a| a.bytes.starts_with(b"<!doctype html>")));
        assert!(find("/vendor/jsoneditor.min.js").is_some_and(|a| a.bytes.len() > 100_000));
        assert!(find("/console.js").is_some());
        assert!(find("/../Cargo.toml").is_none());
    }
}
