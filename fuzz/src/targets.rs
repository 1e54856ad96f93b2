//! The targets. Each reads the fuzzer's bytes as its parser's input, runs it, and asserts what must
//! hold for every input, beyond not panicking.

use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arbitrary::Unstructured;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use host_manifest::{Report, validate_bytes, validate_str};
use host_runtime::Handler;
use host_runtime::auth::{KeySource, Verifier, VerifyOptions};
use serde_json::Value;

use crate::{claims, generate, wire};

/// The longest one request may take in the request targets.
pub const REQUEST_BUDGET: Duration = Duration::from_secs(1);

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap_or_else(|e| unreachable!("a tokio runtime: {e}"))
    })
}

/// The keyword-tracker fixture's handler, trusting the development key set.
fn handler() -> &'static Handler {
    static HANDLER: OnceLock<Handler> = OnceLock::new();
    HANDLER.get_or_init(|| wire::host().configure(host_sdk_tests::build()))
}

// ---------------------------------------------------------------------------------------------
// The manifest engine

/// What must hold of any report: the same verdict and diagnostics for the same text (checked by
/// the caller), and every diagnostic inside the text: its line and column on a line of the text
/// (a column may be one past the line's last character), its pointer at a value of the document
/// or at a missing member of one.
fn check_report(report: &Report) {
    let text = report.text();
    let lines: Vec<&str> = text.split('\n').collect();
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Option<Value> = serde_json::from_str(body).ok();
    for d in report.diagnostics() {
        assert!(
            d.line >= 1 && d.line <= lines.len(),
            "line {} outside the text's {} lines: {d:?}",
            d.line,
            lines.len()
        );
        let line = lines[d.line - 1];
        let width = line.strip_suffix('\r').unwrap_or(line).chars().count();
        assert!(
            d.column >= 1 && d.column <= width + 1,
            "column {} outside line {} of {width} characters: {d:?}",
            d.column,
            d.line
        );
        if let Some(doc) = &doc
            && !d.pointer.is_empty()
        {
            let parent = d.pointer.rsplit_once('/').map_or("", |(p, _)| p);
            assert!(
                doc.pointer(&d.pointer).is_some()
                    || doc
                        .pointer(parent)
                        .is_some_and(|p| p.is_object() || p.is_array()),
                "pointer {} is not in the document: {d:?}",
                d.pointer
            );
        }
    }
}

fn same_verdict(a: &Report, b: &Report) {
    assert_eq!(a.is_valid(), b.is_valid(), "two verdicts for one text");
    assert_eq!(
        a.diagnostics(),
        b.diagnostics(),
        "two sets of diagnostics for one text"
    );
}

/// `validate_bytes` on the bytes as a file holds them.
pub fn manifest(data: &[u8]) {
    let first = validate_bytes(data, None);
    check_report(&first);
    same_verdict(&first, &validate_bytes(data, None));
}

/// `validate_str` on a fixture manifest changed member by member.
pub fn manifest_structured(data: &[u8]) {
    let Ok(text) = generate::manifest(&mut Unstructured::new(data)) else {
        return;
    };
    let first = validate_str(&text, None);
    check_report(&first);
    same_verdict(&first, &validate_str(&text, None));
}

/// The folder the generator target writes its manifest to (one per process).
fn scratch() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("host-fuzz-codegen-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

/// The generator on every structured manifest the engine accepts: the items parse as a Rust file.
pub fn codegen(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(text) = generate::manifest(&mut u) else {
        return;
    };
    let validators = u.arbitrary::<bool>().unwrap_or(false);
    let valid = validate_str(&text, None).is_valid();
    if std::env::var_os("HOST_FUZZ_SHOW").is_some() {
        eprintln!("generated: {valid}");
    }
    if !valid {
        return;
    }
    let dir = scratch();
    if std::fs::write(dir.join("host.extension.json"), &text).is_err() {
        return;
    }
    let expansion = host_codegen::Settings::new()
        .validators(validators)
        .expand("host.extension.json", Some(dir));
    if let Err(e) = syn::parse_file(&expansion.items) {
        unreachable!("the generated items do not parse as a Rust file: {e}\n{text}");
    }
}

/// `cargo host diff`'s comparison on two changes of one fixture: no change from a manifest to
/// itself, and the same changes when compared twice.
pub fn diff(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(base) = generate::base(&mut u) else {
        return;
    };
    let (Ok(old), Ok(new)) = (
        generate::mutated(&mut u, base.clone()),
        generate::mutated(&mut u, base),
    ) else {
        return;
    };
    let (Ok(old), Ok(new)) = (
        validate_str(&old.to_string(), None).into_manifest(),
        validate_str(&new.to_string(), None).into_manifest(),
    ) else {
        return;
    };
    for m in [&old, &new] {
        let changes = host_manifest::diff::diff(m, m);
        assert!(
            changes.is_empty(),
            "a manifest differs from itself: {changes:?}"
        );
    }
    let changes = host_manifest::diff::diff(&old, &new);
    assert_eq!(changes, host_manifest::diff::diff(&old, &new));
    let _ = host_manifest::diff::diff(&new, &old);
}

// ---------------------------------------------------------------------------------------------
// Tokens and key sets

/// The development key's public half, from its key set.
fn development_key() -> ed25519_dalek::VerifyingKey {
    let jwks = host_runtime::testing::development_jwks();
    let x = jwks["keys"][0]["x"].as_str().unwrap_or_default();
    let bytes: [u8; 32] = URL_SAFE_NO_PAD
        .decode(x)
        .ok()
        .and_then(|b| b.try_into().ok())
        .unwrap_or([0; 32]);
    ed25519_dalek::VerifyingKey::from_bytes(&bytes)
        .unwrap_or_else(|e| unreachable!("the development key: {e}"))
}

fn options(keys: Value) -> VerifyOptions {
    let mut o = VerifyOptions::new(wire::EXTENSION_ID).with_token_cache(0);
    o.keys = KeySource::Inline(keys);
    o
}

/// An install token against the development key set; or, after a `K`, a key set document that
/// checks a valid token. A token is accepted only with a signature of the development key over
/// its first two segments, checked here with ed25519-dalek; a key set accepts the valid token
/// only when it holds the development key.
pub fn token(data: &[u8]) {
    if let Some(document) = data.strip_prefix(b"K") {
        let Ok(document) = serde_json::from_slice::<Value>(document) else {
            return;
        };
        let _ = host_runtime::auth::preload_key_set(
            "https://keys.fuzz.example/.well-known/jwks.json",
            &document,
        );
        let verifier = Verifier::new(options(document.clone()));
        if runtime().block_on(verifier.verify(wire::token())).is_ok() {
            let x = host_runtime::testing::development_jwks()["keys"][0]["x"].clone();
            assert!(
                document.to_string().contains(x.as_str().unwrap_or("-")),
                "a key set without the development key accepted its token: {document}"
            );
        }
        return;
    }
    let text = String::from_utf8_lossy(data);
    let verifier = verifier();
    let header = http::HeaderValue::from_bytes(data).ok();
    let _ = runtime().block_on(verifier.verify_authorization(header.as_ref()));
    if runtime().block_on(verifier.verify(&text)).is_ok() {
        let (message, signature) = text
            .rsplit_once('.')
            .unwrap_or_else(|| unreachable!("an accepted token without segments: {text}"));
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .ok()
            .and_then(|s| ed25519_dalek::Signature::from_slice(&s).ok());
        let valid = signature.is_some_and(|s| {
            development_key()
                .verify_strict(message.as_bytes(), &s)
                .is_ok()
        });
        assert!(
            valid,
            "a token without a valid signature was accepted: {text}"
        );
    }
}

/// Unix seconds now, as the verifier's clock reads them.
fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A claim set from the fuzzer's choices ([`claims::case`]), signed with the development key and
/// verified with the setup the choices give (leeway, issuer, extension id, token cache, bare or in
/// an `Authorization` header). The verifier's answer must be what the rules of [`claims::judge`]
/// say: accepted exactly when the claims break no rule, with the claims as the payload holds them;
/// refused with an error that answers one of the rules broken (a `BadClaims` naming a broken claim,
/// `Expired` for a past `exp`, ...). With the cache on, the token is verified three times, the last
/// answer coming from the cache, and each answer must hold. The clock is read before the claims
/// are made and after the last answer; when a second ticks over a time boundary in between, an
/// answer may follow the rules at either moment.
pub fn token_claims(data: &[u8]) {
    let before = unix_now();
    let Ok(case) = claims::case(&mut Unstructured::new(data), before) else {
        return;
    };
    let token = wire::host().sign(&case.payload());
    let setup = &case.setup;
    let mut options = VerifyOptions::new(setup.extension_id.clone())
        .with_issuer(setup.issuer.clone())
        .with_leeway(setup.leeway)
        .with_token_cache(if setup.cache { 16 } else { 0 });
    options.keys = KeySource::Inline(host_runtime::testing::development_jwks());
    let verifier = Verifier::new(options);
    let rounds = if setup.cache { 3 } else { 1 };
    let mut answers = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let answer = match setup.scheme {
            None => runtime().block_on(verifier.verify(&token)),
            Some(scheme) => {
                let header = http::HeaderValue::from_str(&format!("{scheme}{token}")).ok();
                runtime().block_on(verifier.verify_authorization(header.as_ref()))
            }
        };
        answers.push(answer);
    }
    let after = unix_now();
    let at = [
        claims::judge(&case, token.len(), before),
        claims::judge(&case, token.len(), after),
    ];
    for answer in &answers {
        let allowed = match answer {
            Ok(got) => at.iter().any(|j| j.claims.as_ref() == Some(got)),
            Err(e) => at
                .iter()
                .any(|j| j.defects.iter().any(|d| d.answered_by(e))),
        };
        assert!(
            allowed,
            "the verifier answered {answer:?}; the rules say {:?} (at {before}) and {:?} (at \
             {after}) of {case:?}",
            at[0], at[1]
        );
    }
}

fn verifier() -> &'static Verifier {
    static VERIFIER: OnceLock<Verifier> = OnceLock::new();
    VERIFIER.get_or_init(|| Verifier::new(options(host_runtime::testing::development_jwks())))
}

// ---------------------------------------------------------------------------------------------
// Routes, queries, bodies, envelopes

/// `Route::parse` on a path (with a work container path after a NUL), `target_of` on the whole
/// text: a parsed route's own path parses back to it.
pub fn route(data: &[u8]) {
    use host_runtime::route::{Route, target_of};
    let text = String::from_utf8_lossy(data);
    let _ = target_of(&text);
    let (path, containers) = match text.split_once('\0') {
        Some((p, c)) => (p, Some(c)),
        None => (&*text, None),
    };
    if let Some(route) = Route::parse(path, containers) {
        let _ = (route.methods(), route.method(), route.contribution());
        let _ = (route.scopes().count(), route.name());
        if let Some(again) = route.path(containers) {
            let back = Route::parse(&again, containers);
            assert!(
                back == Some(route)
                    || matches!(
                        (back, route),
                        (Some(Route::WorkContainers), _) | (_, Route::Event(_))
                    ),
                "{path:?} is {route:?}, whose path {again:?} reads as {back:?}"
            );
        }
    }
}

/// The mention query's `q`: at most 1,000 characters kept.
pub fn query(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(q) = host_runtime::fuzzing::mention_query(&text) {
        assert!(
            q.chars().count() <= 1000,
            "a q of {} characters",
            q.chars().count()
        );
    }
}

/// The strict call body: what it accepts, serde_json reads as the same object.
pub fn body(data: &[u8]) {
    if let Ok(map) = host_runtime::fuzzing::strict_body(data) {
        let plain: Value = serde_json::from_slice(data)
            .unwrap_or_else(|e| unreachable!("strict JSON serde_json refuses: {e}"));
        assert_eq!(plain, Value::Object(map), "two readings of one body");
    }
}

/// A call body read as every kind of call.
pub fn envelope(data: &[u8]) {
    let Ok(map) = host_runtime::fuzzing::strict_body(data) else {
        return;
    };
    let claims = host_runtime::Claims {
        iss: host_runtime::auth::DEFAULT_ISSUER.to_owned(),
        aud: vec![wire::EXTENSION_ID.to_owned()],
        sub: "inst-fuzz".to_owned(),
        iat: 1_700_000_000,
        exp: wire::TOKEN_EXP,
        nbf: None,
        jti: None,
        organization_id: "org-fuzz".to_owned(),
        project_id: Some("prj-fuzz".to_owned()),
        generation: 1,
        scopes: vec!["ai:tools".to_owned()],
    };
    let _ = host_runtime::fuzzing::call_envelope(map, &claims, Some("q"));
}

// ---------------------------------------------------------------------------------------------
// Webhook signatures

/// Lines: a secret, a webhook id, a timestamp, a signature header, then the body. Verified at the
/// message's own time with the secret (the development one when the first line is not a secret):
/// accepted only when the header holds the signature `sign_webhook` makes.
pub fn webhook(data: &[u8]) {
    use host_runtime::webhook::{Secret, sign_webhook, verify_webhook};
    let mut parts = data.splitn(5, |b| *b == b'\n');
    let mut line = || String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let (secret, id, timestamp, header) = (line(), line(), line(), line());
    let body = data.splitn(5, |b| *b == b'\n').nth(4).unwrap_or_default();
    let secret = Secret::parse(&secret)
        .or_else(|_| Secret::parse(host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET));
    let Ok(secret) = secret else {
        unreachable!("the development secret parses");
    };
    let now = timestamp
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|s| UNIX_EPOCH.checked_add(Duration::from_secs(s)))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    if verify_webhook(&secret, &id, &timestamp, &header, body, now).is_ok() {
        let ts: i64 = timestamp.trim().parse().unwrap_or_default();
        let expected = sign_webhook(&secret, &id, ts, body);
        let expected = expected.trim_start_matches("v1,");
        // Signatures are separated by whitespace, as the verifier reads them.
        let signed = header.split_whitespace().any(|s| {
            s.strip_prefix("v1,").is_some_and(|sig| {
                let decode = |t: &str| base64::engine::general_purpose::STANDARD.decode(t).ok();
                decode(sig).is_some() && decode(sig) == decode(expected)
            })
        });
        assert!(
            signed,
            "accepted without the signature: {header:?} for {id:?} at {timestamp:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Whole requests: the tower service, Lambda, Workers

/// The 5xx answers the interface documents for this handler: an answer of the vendor's that the
/// runtime refuses (502). Keys are inline, the deduplication store is in memory and the handler
/// fast, so 500, 503 and 504 would each be a bug here.
fn check_answer(status: u16, body: &[u8], took: Duration, what: &str) {
    // `HOST_FUZZ_SHOW=1` prints each answer, to see what a corpus reaches.
    if std::env::var_os("HOST_FUZZ_SHOW").is_some() {
        let shown: String = String::from_utf8_lossy(body).chars().take(160).collect();
        eprintln!("{what}: {status} {shown}");
    }
    assert!(
        took < REQUEST_BUDGET,
        "{what} took {took:?}, over {REQUEST_BUDGET:?}"
    );
    if status >= 500 {
        let code = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_owned))
            .unwrap_or_default();
        assert!(
            status == 502 && code.parse::<host_runtime::ErrorCode>().is_ok(),
            "{what}: {status} {code}: {}",
            String::from_utf8_lossy(body)
        );
    }
}

/// A request in the text format of [`wire`], through the handler as a `tower` service.
pub fn request(data: &[u8]) {
    use tower::ServiceExt as _;
    let wire = wire::parse(data);
    let Some(request) = wire::to_http(&wire, &wire.target) else {
        return;
    };
    let request = request.map(http_body_util::Full::new);
    let started = Instant::now();
    let Ok(response) = runtime().block_on(handler().clone().oneshot(request));
    let took = started.elapsed();
    let (parts, body) = response.into_parts();
    let body = runtime()
        .block_on(http_body_util::BodyExt::collect(body))
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    check_answer(parts.status.as_u16(), &body, took, "the request");
}

/// A Workers request: a full URL, as the Worker sees it, turned into the handler's request by the
/// steps the Workers adapter takes (`target_of`, the method, each header), run as an invocation.
pub fn workers(data: &[u8]) {
    let wire = wire::parse(data);
    let target = host_runtime::route::target_of(&wire.target).into_owned();
    let Some(request) = wire::to_http(&wire, &target) else {
        return;
    };
    let started = Instant::now();
    let (answer, _) =
        runtime().block_on(host_runtime::outbox::Invocation::new().run(handler().handle(request)));
    check_answer(
        answer.status().as_u16(),
        answer.body(),
        started.elapsed(),
        "the Workers request",
    );
}

/// An API Gateway (REST or HTTP API) or Function URL event, through the Lambda adapter.
pub fn lambda(data: &[u8]) {
    use host_runtime::lambda::lambda_http;
    let text = String::from_utf8_lossy(data).replace("$TOKEN", wire::token());
    // lambda_http 1.3.2 panics on events whose host and path make no URL (an IDNA error, a bad
    // port, an invalid character: `request.rs`, `unwrap`), before anything of the SDK runs; see
    // FUZZING.md. Such an event is skipped so that the SDK's part stays reachable.
    // afl.rs's panic hook aborts even on a panic that is caught: a quiet hook stands in meanwhile.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let read = std::panic::catch_unwind(|| lambda_http::request::from_str(&text));
    std::panic::set_hook(hook);
    let Ok(Ok(request)) = read else {
        return;
    };
    let started = Instant::now();
    let response = runtime().block_on(host_runtime::lambda::respond(handler(), request));
    let body: &[u8] = match response.body() {
        lambda_http::Body::Text(t) => t.as_bytes(),
        lambda_http::Body::Binary(b) => b,
        _ => &[],
    };
    check_answer(
        response.status().as_u16(),
        body,
        started.elapsed(),
        "the Lambda event",
    );
}

// ---------------------------------------------------------------------------------------------
// The outbox record codec

/// Any bytes read back as an outbox record: what decodes, encoded and decoded again, is the same
/// entry and owner (the bytes may differ: an absent owner is written as an empty one).
pub fn outbox(data: &[u8]) {
    if let Ok((entry, owner)) = host_runtime::fuzzing::outbox_decode(data) {
        let again = host_runtime::fuzzing::outbox_encode(&entry, &owner);
        let back = host_runtime::fuzzing::outbox_decode(&again);
        assert!(
            back.as_ref().is_ok_and(|(e, o)| *e == entry && *o == owner),
            "a record that does not read back the same: {entry:?} {owner:?} {back:?}"
        );
    }
}
