//! The SDK's fuzz targets: one function per parser a stranger can reach, each taking the fuzzer's
//! bytes and panicking when a property fails (a panic of the code under test is a finding too).
//!
//! The same functions run under AFL++ (`cargo afl build --features afl`, the `host-fuzz` binary,
//! one target per run: `host-fuzz <target>`) and in the replay test (`tests/replay.rs`), which
//! runs every committed corpus and regression input on stable without the fuzzer. FUZZING.md at
//! the repository root says how to run them and what they found.

pub mod claims;
pub mod generate;
pub mod targets;
pub mod wire;

/// A fuzz target: its name (the corpus folder under `fuzz/corpus/`) and its function.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The name given to `host-fuzz` and the folder of its corpus.
    pub name: &'static str,
    /// Runs one input; panics when a property fails.
    pub run: fn(&[u8]),
    /// What one input is, for people writing seeds.
    pub input: &'static str,
}

/// Every target, in the order FUZZING.md lists them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "manifest",
        run: targets::manifest,
        input: "a manifest file's bytes",
    },
    Target {
        name: "manifest_structured",
        run: targets::manifest_structured,
        input: "choices that mutate a valid fixture manifest member by member",
    },
    Target {
        name: "codegen",
        run: targets::codegen,
        input: "as manifest_structured; only manifests the engine accepts are generated",
    },
    Target {
        name: "diff",
        run: targets::diff,
        input: "choices that mutate one fixture manifest twice, into an old and a new one",
    },
    Target {
        name: "token",
        run: targets::token,
        input: "an install token, or `K` and a key set document",
    },
    Target {
        name: "token_claims",
        run: targets::token_claims,
        input: "choices of a claim set and a verifier setup; the claims are signed with the development key",
    },
    Target {
        name: "route",
        run: targets::route,
        input: "a request path, then NUL and a work container path",
    },
    Target {
        name: "query",
        run: targets::query,
        input: "a query string",
    },
    Target {
        name: "body",
        run: targets::body,
        input: "a call body",
    },
    Target {
        name: "envelope",
        run: targets::envelope,
        input: "a call body, read as every kind of call",
    },
    Target {
        name: "webhook",
        run: targets::webhook,
        input: "lines: secret, id, timestamp, signature header, then the body",
    },
    Target {
        name: "lambda",
        run: targets::lambda,
        input: "an API Gateway or Function URL event (`$TOKEN` becomes a valid token)",
    },
    Target {
        name: "workers",
        run: targets::workers,
        input: "an HTTP request as text with a full URL (see `wire`)",
    },
    Target {
        name: "outbox",
        run: targets::outbox,
        input: "an outbox record as read back from a store",
    },
    Target {
        name: "request",
        run: targets::request,
        input: "an HTTP request as text (see `wire`)",
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
