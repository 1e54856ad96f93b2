//! The local host: `cargo host dev`, `call`, `trigger` and `check` stand in for the host on a
//! developer's machine, reading the same manifest as `validate`.
//!
//! - [`dev`] serves the development key set and an event-post endpoint that checks the vendor's own
//!   signed events the way the host does;
//! - [`call`] calls one route of a running vendor server with a development install token;
//! - [`trigger`] delivers a host event, optionally replaying the host's retry schedule;
//! - [`check`] runs the publish-time checks of every declared route;
//! - [`console`] is `dev`'s page: every contribution callable from a form, every call and event
//!   on a live timeline, over the same engine.
//!
//! What they share lives here and in the small modules beside: the command-line arguments
//! ([`ManifestArg`], [`ServerArg`], [`InstallArgs`]), loading the manifest, the local install
//! ([`install`]), a call built as the host builds it ([`request`]), the checks of the vendor's
//! posted events ([`inbox`]), HTTP out ([`client`]) and in ([`web`]) and JSON Schema helpers
//! ([`schema`]). Below the local host, and shared with the other commands: the manifest as the
//! user names it ([`manifest`](crate::manifest)), output ([`output`](crate::output)) and the
//! vendor server's outbox store ([`outbox_store`](crate::outbox_store)); nothing here names the
//! binary's own top level.
//!
//! The modules form a tree: `dev` starts the console, and the console and the commands use the
//! shared modules; nothing shared imports a command or the console.
//! Nothing here panics on user or network input; every failure becomes a one-line message and an
//! exit code (1 for a failed answer, 2 for bad arguments or no server).

pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod client;
pub(crate) mod console;
pub(crate) mod dev;
pub(crate) mod inbox;
pub(crate) mod install;
pub(crate) mod request;
pub(crate) mod schema;
pub(crate) mod supervise;
pub(crate) mod trigger;
pub(crate) mod web;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use host_manifest::Manifest;
use serde_json::Value;

use crate::output::Term;

/// Where the vendor server under test listens unless told otherwise.
pub(crate) const DEFAULT_SERVER: &str = "http://127.0.0.1:8787";

/// `--manifest PATH`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ManifestArg {
    /// The manifest file, or a folder holding `host.extension.json`.
    #[arg(long, value_name = "PATH", default_value = host_manifest::MANIFEST_FILE)]
    pub manifest: PathBuf,
}

/// `--server URL`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ServerArg {
    /// The running vendor server; routes such as `/host/tools/<id>` are appended to it.
    #[arg(long, value_name = "URL", env = "HOST_SERVER_URL", default_value = DEFAULT_SERVER)]
    pub server: String,
}

/// The local install the calls belong to.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct InstallArgs {
    /// The install id (token `sub` and body `install.id`) [default: ins_dev_1].
    #[arg(long = "install", value_name = "ID")]
    pub install: Option<String>,
    /// Comma-separated scope keys granted to the install; an empty string grants none
    /// [default: the scopes the manifest declares].
    #[arg(long, value_name = "KEY,KEY")]
    pub scopes: Option<String>,
    /// The `credentials` object, as JSON or `@file` [default: `dev-NAME` for each required
    /// connector auth field, plus a development OAuth token for `method: "oauth"`].
    #[arg(long, value_name = "JSON|@FILE")]
    pub credentials: Option<String>,
    /// The `documents` object, as JSON or `@file` [default: `{}`].
    #[arg(long, value_name = "JSON|@FILE")]
    pub documents: Option<String>,
}

/// A failure that ends the command: its message (printed as `error: ...`) and exit code.
#[derive(Debug)]
pub(crate) struct Fail {
    /// What is wrong and what to do.
    pub message: String,
    /// 1 for a failed answer or an invalid manifest, 2 for arguments or a missing server.
    pub code: u8,
}

impl Fail {
    /// A usage error: exit code 2.
    pub(crate) fn usage(message: impl Into<String>) -> Fail {
        Fail {
            message: message.into(),
            code: 2,
        }
    }

    /// Prints the message on stderr and gives the exit code.
    pub(crate) fn report(self, term: &Term) -> ExitCode {
        if !self.message.is_empty() {
            term.error(&self.message);
        }
        ExitCode::from(self.code)
    }
}

/// A loaded, valid manifest and the path it was read from, as the user wrote it.
pub(crate) struct Loaded {
    /// The manifest.
    pub manifest: Manifest,
    /// The file, for messages.
    pub shown: String,
}

/// Reads and validates the manifest; an invalid one prints its diagnostics on stderr as `validate`
/// does and exits 1, an unreadable one exits 2.
pub(crate) fn load_manifest(path: &Path, term: &Term) -> Result<Loaded, Fail> {
    let (file, report) = crate::manifest::load(path).map_err(|_| Fail {
        message: String::new(),
        code: 2,
    })?;
    let shown = file.display().to_string();
    if !report.is_valid() {
        eprint!(
            "{}",
            crate::manifest::render::human(&report, &shown, term.err)
        );
        return Err(Fail {
            message: format!(
                "fix {shown} first: the local host reads the same manifest as the host"
            ),
            code: 1,
        });
    }
    match report.into_manifest() {
        Ok(manifest) => Ok(Loaded { manifest, shown }),
        Err(_) => Err(Fail {
            message: format!("{shown} could not be read as a manifest"),
            code: 1,
        }),
    }
}

/// Reads a `JSON|@file` argument: inline JSON, or `@` followed by a path to a JSON file.
pub(crate) fn json_arg(flag: &str, text: &str) -> Result<Value, Fail> {
    let text = raw_arg(flag, text)?;
    serde_json::from_str(&text).map_err(|e| {
        Fail::usage(format!(
            "`{flag}` is not JSON ({e}); pass JSON such as '{{\"keyword\":\"notes\"}}' or @file.json"
        ))
    })
}

/// Reads a `TEXT|@file` argument as text.
pub(crate) fn raw_arg(flag: &str, text: &str) -> Result<String, Fail> {
    match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).map_err(|e| {
            Fail::usage(format!(
                "cannot read `{path}` given to `{flag}`: {}",
                e.kind()
            ))
        }),
        None => Ok(text.to_owned()),
    }
}

/// Like [`json_arg`], and the value must be a JSON object.
pub(crate) fn object_arg(flag: &str, text: &str) -> Result<Value, Fail> {
    let value = json_arg(flag, text)?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(Fail::usage(format!("`{flag}` must be a JSON object")))
    }
}

/// `` `a`, `b`, `c` ``.
pub(crate) fn listed<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs a local-host command on a single-threaded tokio runtime.
pub(crate) fn block_on(future: impl Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_args_are_inline_or_files() {
        assert_eq!(
            json_arg("--input", r#"{"a":1}"#).ok(),
            Some(serde_json::json!({"a":1}))
        );
        let bad = json_arg("--input", "{a:1}")
            .err()
            .map(|f| (f.code, f.message));
        assert!(
            matches!(&bad, Some((2, m)) if m.contains("`--input` is not JSON")),
            "{bad:?}"
        );
        let missing = json_arg("--input", "@/no/such/file.json")
            .err()
            .map(|f| f.message);
        assert!(missing.is_some_and(|m| m.contains("cannot read `/no/such/file.json`")));
        let dir = tempfile::tempdir().ok();
        let file = dir.as_ref().map(|d| d.path().join("in.json"));
        if let Some(file) = &file {
            let _ = std::fs::write(file, r#"[1, 2]"#);
            let arg = format!("@{}", file.display());
            assert_eq!(
                json_arg("--input", &arg).ok(),
                Some(serde_json::json!([1, 2]))
            );
            assert!(object_arg("--credentials", &arg).is_err());
        }
    }
}
