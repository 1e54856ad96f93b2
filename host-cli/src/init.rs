//! `cargo host init [PATH] [--template minimal|assistant|connector|full]`: a new vendor crate that
//! builds without warnings, serves, and passes `cargo host check` as written.
//!
//! The crate has the set-up the guide describes (`host_runtime::guide`): `host-runtime` and
//! `host-runtime-build` as dependencies, the one-line `build.rs` that keeps the editor in step with
//! the manifest, a manifest with its `$schema` line, an icon, and a `src/config.rs` that reads
//! `LISTEN_ADDR`, `HOST_JWKS_URL` and `HOST_ISSUER` (what `cargo host dev` prints). Nothing is
//! written when any file it would write already exists.
//!
//! A template is its manifest and its `main.rs`, which holds only what that template does alone;
//! everything two templates would repeat is a file of `templates/common/`, written as it is: to
//! every crate ([`COMMON`]), or to the crates of the templates that use it ([`Template::shared`]:
//! the notes of `assistant` and `full`, the sign-ups connector of `connector` and `full`).
//!
//! Where the SDK crates come from: version requirements on the registry (this CLI's own version,
//! so the templates and the runtime match) when the CLI was installed from a package, as `cargo
//! install host-cli` does; path dependencies on a checkout with `--sdk PATH`, or when the CLI was
//! built inside a checkout that still exists (someone working on the SDK itself).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::output::Term;

/// What the new extension contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Template {
    /// One assistant tool.
    Minimal,
    /// Assistant tools, an approved action, a mention picker, a context provider, a host event.
    Assistant,
    /// A connector syncing one metric with a dimension, paged by day.
    Connector,
    /// Everything: the assistant's contributions, a procedure, a connector, a work destination
    /// with two-way comments, host events and a signed alert posted back to the host.
    Full,
}

impl Template {
    fn name(self) -> &'static str {
        match self {
            Template::Minimal => "minimal",
            Template::Assistant => "assistant",
            Template::Connector => "connector",
            Template::Full => "full",
        }
    }

    fn manifest(self) -> &'static str {
        match self {
            Template::Minimal => include_str!("../templates/minimal/host.extension.json"),
            Template::Assistant => include_str!("../templates/assistant/host.extension.json"),
            Template::Connector => include_str!("../templates/connector/host.extension.json"),
            Template::Full => include_str!("../templates/full/host.extension.json"),
        }
    }

    fn main(self) -> &'static str {
        match self {
            Template::Minimal => include_str!("../templates/minimal/main.rs"),
            Template::Assistant => include_str!("../templates/assistant/main.rs"),
            Template::Connector => include_str!("../templates/connector/main.rs"),
            Template::Full => include_str!("../templates/full/main.rs"),
        }
    }

    /// The files of `templates/common/` this template shares with some others (beyond those every
    /// crate gets, [`COMMON`]): each one's place in the crate and its text. What the templates
    /// have in common lives once, there; each template's `main.rs` holds what is its own.
    fn shared(self) -> &'static [(&'static str, &'static str)] {
        const NOTES: (&str, &str) = ("src/notes.rs", include_str!("../templates/common/notes.rs"));
        const SIGNUPS: (&str, &str) = (
            "src/signups.rs",
            include_str!("../templates/common/signups.rs"),
        );
        match self {
            Template::Minimal => &[],
            Template::Assistant => &[NOTES],
            Template::Connector => &[SIGNUPS],
            Template::Full => &[NOTES, SIGNUPS],
        }
    }

    /// Dependencies beyond the SDK and tokio.
    fn extra_dependencies(self) -> &'static str {
        match self {
            Template::Connector | Template::Full => {
                "chrono = { version = \"0.4\", default-features = false, features = [\"std\", \"clock\"] }\n"
            }
            Template::Minimal | Template::Assistant => "",
        }
    }

    /// What to try first, after `cargo run`.
    fn first_call(self) -> &'static str {
        match self {
            Template::Minimal => "cargo host call tool greet --input '{\"name\": \"Ada\"}'",
            Template::Assistant => {
                "cargo host call action save-note --input '{\"text\": \"Ship on Friday\"}'"
            }
            Template::Connector => "cargo host call sync",
            Template::Full => "cargo host trigger release.shipped",
        }
    }
}

/// Arguments of `cargo host init`.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The folder to create the crate in; created if missing [default: the current folder].
    pub path: Option<PathBuf>,
    /// What the extension contributes to start with.
    #[arg(long, value_enum, default_value_t = Template::Minimal)]
    pub template: Template,
    /// The crate's name and the extension's `id`: lowercase letters, digits and hyphens
    /// [default: the folder's name, lowercased, with `_` and spaces as `-`].
    #[arg(long)]
    pub name: Option<String>,
    /// An SDK checkout (the folder holding `host-runtime/`), used as path dependencies
    /// [default: the checkout `cargo host` was built in, if any; otherwise the SDK crates of this
    /// CLI's version from the registry].
    #[arg(long, value_name = "PATH", env = "HOST_SDK_PATH")]
    pub sdk: Option<PathBuf>,
}

/// Runs `cargo host init`.
pub(crate) fn run(args: InitArgs, term: &Term) -> ExitCode {
    match init(args) {
        Ok(done) => {
            println!("{done}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            term.error(&message);
            ExitCode::from(2)
        }
    }
}

/// The files of `templates/common/` every new crate gets, as they are: each one's place in the
/// crate and its text.
const COMMON: [(&str, &str); 4] = [
    ("build.rs", include_str!("../templates/common/build.rs")),
    ("icon.svg", include_str!("../templates/common/icon.svg")),
    (".gitignore", include_str!("../templates/common/gitignore")),
    (
        "src/config.rs",
        include_str!("../templates/common/config.rs"),
    ),
];

fn init(args: InitArgs) -> Result<String, String> {
    let dir = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    let folder_name = std::fs::canonicalize(&dir)
        .ok()
        .or_else(|| Some(dir.clone()))
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let id = match &args.name {
        Some(name) => name.trim().to_owned(),
        None => folder_name
            .to_lowercase()
            .replace(['_', ' ', '.'], "-")
            .trim_matches('-')
            .to_owned(),
    };
    let title = title_of(&id);
    let manifest = args
        .template
        .manifest()
        .replace("{{id}}", &id)
        .replace("{{name}}", &title);
    // The id must be one the manifest accepts; the rest of the template is known to be valid.
    let report = host_manifest::validate_bytes(manifest.as_bytes(), None);
    if let Some(d) = report
        .diagnostics()
        .iter()
        .find(|d| d.severity == host_manifest::Severity::Error)
    {
        let hint = if args.name.is_some() {
            "pick another with `--name`"
        } else {
            "name it with `--name my-extension`"
        };
        return Err(format!(
            "`{id}` cannot be the extension's id ({} at {}); {hint}",
            d.message, d.pointer
        ));
    }

    let sdk = sdk_source(args.sdk.as_deref())?;
    let files = crate_files(args.template, &id, &title, manifest, &sdk, &dir);
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let existing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|f| dir.join(f).exists())
        .collect();
    if !existing.is_empty() {
        return Err(format!(
            "{} already has {}; `cargo host init` writes a new crate and overwrites nothing: pick an empty folder",
            dir.display(),
            existing.join(", ")
        ));
    }

    std::fs::create_dir_all(dir.join("src"))
        .map_err(|e| format!("cannot create {}: {e}", dir.join("src").display()))?;
    for (name, text) in &files {
        let path = dir.join(name);
        // `create_new`: a file that appeared since the check above is not overwritten either.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let cd = match &args.path {
        Some(p) => format!("  cd {}\n", p.display()),
        None => String::new(),
    };
    let from = match &sdk {
        Sdk::Registry => format!(
            "host-runtime and host-runtime-build {} from the registry",
            env!("CARGO_PKG_VERSION")
        ),
        Sdk::Checkout(root) => format!("host-runtime and host-runtime-build in {}", root.display()),
    };
    Ok(format!(
        "created `{id}` ({} template) in {}: {}\nSDK: {from}\n\nnext:\n{cd}  cargo run                  # serves it on 127.0.0.1:8787\n  cargo host check           # in a second terminal: the host's publish-time checks\n  {}",
        args.template.name(),
        dir.display(),
        names.join(", "),
        args.template.first_call()
    ))
}

/// The files of a new crate, relative to its folder, in the order they are listed: the ones made
/// for it, the ones every crate gets ([`COMMON`]) and the ones its template shares with some
/// others ([`Template::shared`]).
fn crate_files(
    template: Template,
    id: &str,
    title: &str,
    manifest: String,
    sdk: &Sdk,
    dir: &Path,
) -> Vec<(&'static str, String)> {
    let [build, icon, gitignore, config] = COMMON.map(|(name, text)| (name, text.to_owned()));
    let mut files = vec![
        ("Cargo.toml", cargo_toml(id, sdk, template, dir)),
        build,
        ("host.extension.json", manifest),
        icon,
        gitignore,
        (
            "src/main.rs",
            template
                .main()
                .replace("{{id}}", id)
                .replace("{{name}}", title),
        ),
        config,
    ];
    files.extend(
        template
            .shared()
            .iter()
            .map(|(name, text)| (*name, (*text).to_owned())),
    );
    files
}

/// `rank-watch` -> `Rank Watch`.
fn title_of(id: &str) -> String {
    heck::ToTitleCase::to_title_case(id)
}

/// Where the new crate's SDK dependencies come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Sdk {
    /// The registry, at this CLI's version.
    Registry,
    /// Path dependencies on this checkout.
    Checkout(PathBuf),
}

/// `--sdk` (which must be a checkout), else the checkout this binary was built in, else the
/// registry.
fn sdk_source(given: Option<&Path>) -> Result<Sdk, String> {
    let Some(given) = given else {
        return Ok(match checkout_of(Path::new(env!("CARGO_MANIFEST_DIR"))) {
            Some(root) => Sdk::Checkout(root),
            None => Sdk::Registry,
        });
    };
    let sdk = std::fs::canonicalize(given).unwrap_or_else(|_| given.to_owned());
    if !sdk.join("host-runtime/Cargo.toml").is_file() {
        return Err(format!(
            "{} is not the SDK checkout (it has no host-runtime/Cargo.toml); pass `--sdk` the folder that holds host-runtime/ (or set HOST_SDK_PATH to it)",
            sdk.display()
        ));
    }
    Ok(Sdk::Checkout(sdk))
}

/// The checkout holding `crate_dir` (host-cli's folder at build time), if it is one and still
/// exists: a folder named `host-cli` whose parent has a workspace `Cargo.toml` listing it and a
/// `host-runtime/` crate. A packaged build is not: cargo unpacks it into a folder named
/// `host-cli-VERSION` (under `~/.cargo/registry/src`, a vendor folder or `target/package`).
fn checkout_of(crate_dir: &Path) -> Option<PathBuf> {
    if crate_dir.file_name()? != "host-cli" {
        return None;
    }
    let root = crate_dir.parent()?;
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let is_ours = workspace.lines().any(|l| l.trim() == "[workspace]")
        && workspace.contains("\"host-cli\"")
        && root.join("host-runtime/Cargo.toml").is_file()
        && crate_dir.join("Cargo.toml").is_file();
    is_ours.then(|| std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned()))
}

/// An SDK crate's line in `[dependencies]`: `{ path = ... }` or the version requirement.
fn sdk_dependency(sdk: &Sdk, krate: &str) -> String {
    match sdk {
        Sdk::Checkout(root) => format!(
            "{{ path = {} }}",
            toml_string(&root.join(krate).to_string_lossy())
        ),
        // This CLI's own version (a caret requirement): the templates it writes are the ones
        // that version of the runtime builds.
        Sdk::Registry => toml_string(env!("CARGO_PKG_VERSION")),
    }
}

fn cargo_toml(id: &str, sdk: &Sdk, template: Template, dir: &Path) -> String {
    let mut text = format!(
        "[package]\nname = \"{id}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nhost-runtime = {}\ntokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\", \"net\"] }}\n{}\n[build-dependencies]\n# Keeps the editor's completions in step with host.extension.json (see build.rs).\nhost-runtime-build = {}\n",
        sdk_dependency(sdk, "host-runtime"),
        template.extra_dependencies(),
        sdk_dependency(sdk, "host-runtime-build"),
    );

    if let Some(workspace) = enclosing_workspace(dir) {
        text += &format!(
            "\n# Its own workspace: the folder lies inside the workspace of {}, which does not list it.\n# To make it a member instead, delete these two lines and add it to that workspace's `members`.\n[workspace]\n",
            workspace.display()
        );
    }
    text
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `Cargo.toml` of a workspace above `dir`, if any: cargo would refuse a package inside a
/// workspace that does not list it.
fn enclosing_workspace(dir: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(dir)
        .ok()
        .or_else(|| std::env::current_dir().ok().map(|c| c.join(dir)))?;
    start.ancestors().skip(1).find_map(|a| {
        let manifest = a.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).ok()?;
        text.lines()
            .any(|l| l.trim() == "[workspace]")
            .then_some(manifest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATES: [Template; 4] = [
        Template::Minimal,
        Template::Assistant,
        Template::Connector,
        Template::Full,
    ];

    #[test]
    fn titles_and_toml_strings() {
        assert_eq!(title_of("rank-watch"), "Rank Watch");
        assert_eq!(title_of("a--b"), "A B");
        assert_eq!(toml_string(r#"C:\sdk "x""#), r#""C:\\sdk \"x\"""#);
    }

    #[test]
    fn a_checkout_is_told_apart_from_a_packaged_build() {
        // This crate is built in the checkout.
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = checkout_of(here).expect("built in the checkout");
        assert!(root.join("host-runtime/Cargo.toml").is_file());
        assert_eq!(
            sdk_dependency(&Sdk::Checkout(root.clone()), "host-runtime"),
            format!(
                "{{ path = {} }}",
                toml_string(&root.join("host-runtime").to_string_lossy())
            )
        );
        assert_eq!(
            sdk_dependency(&Sdk::Registry, "host-runtime"),
            format!("\"{}\"", env!("CARGO_PKG_VERSION"))
        );

        let scratch = tempfile::tempdir().unwrap();
        // How cargo unpacks a package: `host-cli-VERSION` in a folder of sources with no workspace.
        let unpacked = scratch.path().join("registry/src/index/host-cli-0.1.0");
        std::fs::create_dir_all(&unpacked).unwrap();
        std::fs::write(
            unpacked.join("Cargo.toml"),
            "[package]\nname = \"host-cli\"\n",
        )
        .unwrap();
        assert_eq!(checkout_of(&unpacked), None);
        // A folder named host-cli in some other workspace is not the SDK either.
        let other = scratch.path().join("other");
        std::fs::create_dir_all(other.join("host-cli")).unwrap();
        std::fs::write(other.join("host-cli/Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(
            other.join("Cargo.toml"),
            "[workspace]\nmembers = [\"host-cli\"]\n",
        )
        .unwrap();
        assert_eq!(checkout_of(&other.join("host-cli")), None);
        // With its host-runtime it is; once deleted, it is not any more.
        std::fs::create_dir_all(other.join("host-runtime")).unwrap();
        std::fs::write(other.join("host-runtime/Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(
            checkout_of(&other.join("host-cli")),
            Some(std::fs::canonicalize(&other).unwrap())
        );
        std::fs::remove_dir_all(&other).unwrap();
        assert_eq!(checkout_of(&other.join("host-cli")), None);
    }

    #[test]
    fn every_common_file_is_written_by_a_template() {
        let written: Vec<&str> = COMMON
            .iter()
            .chain(TEMPLATES.iter().flat_map(|t| t.shared()))
            .map(|(_, text)| *text)
            .collect();
        let common = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/common");
        for file in std::fs::read_dir(common).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                written.contains(&text.as_str()),
                "{} is written by no template",
                path.display()
            );
        }
    }

    #[test]
    fn every_template_is_a_valid_manifest() {
        for template in TEMPLATES {
            let text = template
                .manifest()
                .replace("{{id}}", "rank-watch")
                .replace("{{name}}", "Rank Watch");
            let report = host_manifest::validate_bytes(text.as_bytes(), None);
            assert!(
                report.is_valid(),
                "{}: {:?}",
                template.name(),
                report.diagnostics()
            );
            assert!(
                report.diagnostics().is_empty(),
                "{} has warnings: {:?}",
                template.name(),
                report.diagnostics()
            );
            assert!(text.contains("\"$schema\""));
        }
    }
}
