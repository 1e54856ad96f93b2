//! The console's page, embedded in the binary so the console works offline and from
//! `cargo install`: the page, its style, the schema form (`form.js`) and the page's script
//! (`console.js`) and an icon, from `host-cli/assets/console/`. Plain files with no build step and no
//! third-party code: the page runs nothing but these two scripts, which its Content-Security-Policy
//! enforces.

/// One embedded file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asset {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file, by the path the page asks for.
const FILES: [(&str, Asset); 5] = [
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
        "/form.js",
        Asset {
            content_type: JS,
            bytes: include_bytes!("../../../assets/console/form.js"),
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
        "/favicon.svg",
        Asset {
            content_type: SVG,
            bytes: include_bytes!("../../../assets/console/favicon.svg"),
        },
    ),
];

/// The file served at `path`.
pub(crate) fn find(path: &str) -> Option<Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    FILES.iter().find(|(p, _)| *p == path).map(|(_, a)| *a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_and_its_files_are_embedded() {
        assert!(find("/").is_some_and(|a| a.bytes.starts_with(b"<!doctype html>")));
        assert!(find("/form.js").is_some());
        assert!(find("/console.js").is_some());
        assert!(find("/../Cargo.toml").is_none());
    }

    /// The policy allows no inline script or style: the page has none.
    #[test]
    fn the_page_has_no_inline_script_or_style() {
        for (path, asset) in FILES {
            let text = String::from_utf8_lossy(asset.bytes);
            if asset.content_type == HTML {
                assert!(!text.contains("<script>"), "{path}: an inline script");
                assert!(!text.contains("<style"), "{path}: an inline style");
                assert!(!text.contains(" style="), "{path}: a style attribute");
                let handler = text.split(" on").skip(1).any(|rest| {
                    let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
                    !name.is_empty() && rest[name.len()..].starts_with('=')
                });
                assert!(!handler, "{path}: an event handler attribute");
            }
            if asset.content_type == JS {
                for markup in [
                    "innerHTML",
                    "outerHTML",
                    "insertAdjacentHTML",
                    "document.write",
                    "eval(",
                    "new Function",
                ] {
                    assert!(!text.contains(markup), "{path} uses {markup}");
                }
            }
        }
    }
}
