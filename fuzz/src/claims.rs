//! The `token_claims` target's input: an install token's claim set built from the fuzzer's choices,
//! signed with the development key so that it gets past the signature to the claim checks, and an
//! oracle that says, from the interface's claim rules alone, whether a verifier must accept it.
//!
//! Every claim the interface names (`iss`, `aud`, `sub`, `iat`, `exp`, `nbf`, `jti`,
//! `organizationId`, `projectId`, `generation`, `scopes`) is present or absent, and when present a
//! value of any JSON type: the right one, near misses (a trailing slash, another case, a float for an
//! integer, a number as a string), times at and around "now" and the leeway's edges, and the
//! integer limits. Unknown claims, some spelled like known ones, come on top. The verifier's own
//! settings vary too: the leeway, the issuer, the extension id, the token cache, and whether the token
//! comes bare or in an `Authorization` header.
//!
//! Choice 0 of every decision is the valid one, so an empty input is a token the verifier accepts
//! and the fuzzer starts from acceptance.
//!
//! The oracle ([`judge`]) reads the rules as `host-runtime/docs/interface.md` ("Claims") and the
//! claim tests of `host-runtime/src/auth/tests/claims.rs` state them, on this module's own model of
//! the values ([`Json`]), without serde_json's number accessors or any function of the verifier:
//!
//! | claim | accepted when |
//! |---|---|
//! | `iss` | a string equal to the configured issuer (else `WrongIssuer`; not a string: `BadClaims`) |
//! | `aud` | a string, or an array of strings, that is or holds the extension id (else `WrongAudience`) |
//! | `sub`, `organizationId` | present, a string |
//! | `iat` | present, a JSON integer from `i64::MIN` to `i64::MAX` (not compared with the clock) |
//! | `exp` | as `iat`, and `now <= exp + leeway` (else `Expired`) |
//! | `nbf` | absent, or as `iat` and `nbf - leeway <= now` (else `NotYetValid`); `null` is refused |
//! | `jti` | absent, or a string |
//! | `projectId` | present, a string or `null` |
//! | `generation` | present, a JSON integer from 0 to `u64::MAX` |
//! | `scopes` | absent, or an array of strings |
//!
//! and the payload is a JSON object, and the token at most 8 KiB.

use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::{Result, Unstructured};
use host_runtime::auth::AuthError;
use serde_json::{Map, Value};

/// The issuer install tokens carry by default, as the interface states it.
pub const ISSUER: &str = "https://auth.host.example";
/// The leeway the interface states, in seconds.
pub const LEEWAY_SECS: u64 = 60;
/// The largest token a verifier reads, in bytes (8 KiB).
pub const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// A JSON value as this module models it: integers apart from floats, at any width serde_json can
/// write (`i64::MIN` to `u64::MAX`), so that the oracle needs no JSON library to tell them apart.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer, written without a fraction or exponent.
    Int(i128),
    /// A finite float, written with a fraction or exponent (`1.0`, `1e300`).
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object (names are distinct).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value as serde_json writes it.
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(n) => match (i64::try_from(*n), u64::try_from(*n)) {
                (Ok(n), _) => Value::from(n),
                (_, Ok(n)) => Value::from(n),
                _ => unreachable!("an integer outside what JSON is written with: {n}"),
            },
            Json::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The strings of an array whose items are all strings.
    fn as_strings(&self) -> Option<Vec<String>> {
        match self {
            Json::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        }
    }

    /// A JSON integer that fits `i64`.
    fn as_time(&self) -> Option<i64> {
        match self {
            Json::Int(n) => i64::try_from(*n).ok(),
            _ => None,
        }
    }
}

/// The claims the interface names, in the order the table above lists them.
pub const CLAIMS: [&str; 11] = [
    "iss",
    "aud",
    "sub",
    "iat",
    "exp",
    "nbf",
    "jti",
    "organizationId",
    "projectId",
    "generation",
    "scopes",
];

/// Names of claims no rule reads: they must change nothing. Some differ from a known claim only in
/// case or form.
const UNKNOWN: &[&str] = &[
    "x-host-extra",
    "typ",
    "azp",
    "EXP",
    "Iss",
    "scope",
    "install_id",
    "extensionId",
    "",
];

/// What the verifier is set up with for one input.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The configured issuer.
    pub issuer: String,
    /// The configured extension id.
    pub extension_id: String,
    /// The configured leeway.
    pub leeway: Duration,
    /// Whether the verified-token cache is on; the token is then verified three times (it is cached
    /// from its second sighting, so the third answer comes from the cache).
    pub cache: bool,
    /// How the token reaches the verifier: bare (`None`) or after this `Authorization` scheme text.
    pub scheme: Option<&'static str>,
}

impl Setup {
    /// The leeway as the interface counts it: whole seconds. Past `i64::MAX` seconds (292 billion
    /// years) the verifier counts `i64::MAX`, which the interface does not state; it changes a
    /// verdict only for an `exp` or `nbf` near the `i64` limits, and the oracle follows it.
    pub fn leeway_secs(&self) -> i128 {
        i128::from(self.leeway.as_secs().min(i64::MAX.unsigned_abs()))
    }
}

/// One input: the verifier's setup, the payload (`None` for each claim left out) and unknown claims.
#[derive(Debug, Clone)]
pub struct Case {
    /// The verifier's settings.
    pub setup: Setup,
    /// The payload when it is not an object (it must then be refused as malformed).
    pub not_an_object: Option<Json>,
    /// Each claim of [`CLAIMS`], by position, with its value, or `None` when absent.
    pub claims: Vec<Option<Json>>,
    /// Claims no rule reads.
    pub unknown: Vec<(String, Json)>,
}

impl Case {
    /// The value of the claim `name`, when present.
    pub fn claim(&self, name: &str) -> Option<&Json> {
        let at = CLAIMS.iter().position(|c| *c == name)?;
        self.claims.get(at)?.as_ref()
    }

    /// The payload as the token carries it.
    pub fn payload(&self) -> Value {
        if let Some(other) = &self.not_an_object {
            return other.to_value();
        }
        let mut map = Map::new();
        for (name, value) in &self.unknown {
            map.insert(name.clone(), value.to_value());
        }
        for (name, value) in CLAIMS.iter().zip(&self.claims) {
            if let Some(value) = value {
                map.insert((*name).to_owned(), value.to_value());
            }
        }
        Value::Object(map)
    }
}

// ---------------------------------------------------------------------------------------------
// Generation

/// Offsets from "now" that sit at the leeway's edges, for a leeway of `leeway` seconds.
fn time_near(u: &mut Unstructured<'_>, now: i128, leeway: i128) -> Result<i128> {
    let offset = match u.int_in_range(0..=13u8)? {
        0 => 0,
        1 => 1,
        2 => -1,
        3 => leeway,
        4 => leeway + 1,
        5 => leeway - 1,
        6 => -leeway,
        7 => -leeway - 1,
        8 => -leeway + 1,
        9 => 3600,
        10 => -3600,
        11 => i128::from(u.arbitrary::<i16>()?),
        12 => i128::from(u.arbitrary::<i32>()?),
        _ => i128::from(u.arbitrary::<i64>()?),
    };
    Ok(clamp(now + offset))
}

/// `n` within the integers JSON is written with here.
fn clamp(n: i128) -> i128 {
    n.clamp(i128::from(i64::MIN), i128::from(u64::MAX))
}

/// An integer at an edge of `i64` or `u64`.
fn extreme(u: &mut Unstructured<'_>) -> Result<i128> {
    Ok(match u.int_in_range(0..=8u8)? {
        0 => i128::from(i64::MAX),
        1 => i128::from(i64::MIN),
        2 => i128::from(i64::MAX) - 1,
        3 => i128::from(i64::MIN) + 1,
        4 => i128::from(i64::MAX) + 1,
        5 => i128::from(u64::MAX),
        6 => 0,
        7 => -1,
        _ => i128::from(u.arbitrary::<i64>()?),
    })
}

/// A finite float, often one that reads like a time or an integer.
fn float(u: &mut Unstructured<'_>, near: i128) -> Result<f64> {
    #[allow(clippy::cast_precision_loss)]
    let near = near as f64;
    let f = match u.int_in_range(0..=6u8)? {
        0 => near,
        1 => near + 0.5,
        2 => 1e300,
        3 => -0.0,
        4 => 1.0,
        5 => 9_223_372_036_854_775_807.0,
        _ => u.arbitrary::<f64>()?,
    };
    Ok(if f.is_finite() { f } else { 0.5 })
}

/// A string: one of `words`, or arbitrary text.
fn text(u: &mut Unstructured<'_>, words: &[&str]) -> Result<String> {
    if !words.is_empty() && u.int_in_range(0..=3u8)? > 0 {
        return Ok((*u.choose(words)?).to_owned());
    }
    u.arbitrary()
}

/// A value of any type, at most `depth` levels deep, with strings from `words` and numbers near
/// `near`.
fn any(u: &mut Unstructured<'_>, depth: u8, words: &[&str], near: i128) -> Result<Json> {
    let last = if depth == 0 { 5 } else { 7 };
    Ok(match u.int_in_range(0..=last)? {
        0 => Json::Null,
        1 => Json::Bool(u.arbitrary()?),
        2 => Json::Int(extreme(u)?),
        3 => Json::Int(near),
        4 => Json::Float(float(u, near)?),
        5 => Json::Str(text(u, words)?),
        6 => {
            let n = u.int_in_range(0..=3usize)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(any(u, depth - 1, words, near)?);
            }
            Json::Array(items)
        }
        _ => {
            let n = u.int_in_range(0..=2usize)?;
            let mut members: Vec<(String, Json)> = Vec::with_capacity(n);
            for _ in 0..n {
                let name = text(u, words)?;
                let value = any(u, depth - 1, words, near)?;
                if !members.iter().any(|(k, _)| *k == name) {
                    members.push((name, value));
                }
            }
            Json::Object(members)
        }
    })
}

/// A string claim: the right value (choice 0), another word, absent, or a value of another type.
fn string_claim(
    u: &mut Unstructured<'_>,
    right: &str,
    words: &[&str],
    near: i128,
) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => Some(Json::Str(right.to_owned())),
        1 => Some(Json::Str(text(u, words)?)),
        2 => None,
        3 => Some(Json::Null),
        _ => Some(any(u, 2, words, near)?),
    })
}

/// A time claim: `right` (choice 0), a time near now, an integer limit, absent, or another type.
fn time_claim(
    u: &mut Unstructured<'_>,
    right: Option<i128>,
    now: i128,
    leeway: i128,
) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => right.map(Json::Int),
        1..=3 => Some(Json::Int(time_near(u, now, leeway)?)),
        4 => Some(Json::Int(extreme(u)?)),
        5 => None,
        6 => Some(Json::Float(float(u, now)?)),
        7 => Some(Json::Str(time_near(u, now, leeway)?.to_string())),
        8 => Some(Json::Null),
        _ => Some(any(u, 2, &[], now)?),
    })
}

/// Each scope key a test host grants (every key of the interface), and near misses.
fn scope_words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let host = host_runtime::testing::TestHost::development(crate::wire::EXTENSION_ID);
        let mut words: Vec<&'static str> =
            host.scopes.into_iter().map(|s| &*String::leak(s)).collect();
        words.extend(["", "AI:TOOLS", "ai:tools ", "*", "ai"]);
        words
    })
}

fn scopes_claim(u: &mut Unstructured<'_>, words: &[&str], near: i128) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=6u8)? {
        0 => Some(Json::Array(vec![Json::Str("ai:tools".to_owned())])),
        1 => None,
        2 => Some(Json::Array(Vec::new())),
        3 | 4 => {
            let n = u.int_in_range(0..=4usize)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(Json::Str(text(u, words)?));
            }
            Some(Json::Array(items))
        }
        5 => {
            // Strings with one value of another type among them.
            let mut items = vec![Json::Str("ai:tools".to_owned())];
            let at = u.int_in_range(0..=1usize)?;
            items.insert(at, any(u, 1, words, near)?);
            Some(Json::Array(items))
        }
        _ => Some(any(u, 2, words, near)?),
    })
}

fn audience_claim(
    u: &mut Unstructured<'_>,
    extension_id: &str,
    near: i128,
) -> Result<Option<Json>> {
    let id = || Json::Str(extension_id.to_owned());
    let upper = extension_id.to_uppercase();
    let spaced = format!("{extension_id} ");
    let words = [extension_id, "other-extension", &upper, &spaced, ""];
    Ok(match u.int_in_range(0..=8u8)? {
        0 => Some(id()),
        1 => Some(Json::Array(vec![id()])),
        2 => Some(Json::Array(vec![
            Json::Str("other-extension".to_owned()),
            id(),
        ])),
        3 => Some(Json::Str(text(u, &words)?)),
        4 => {
            let n = u.int_in_range(0..=4usize)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(Json::Str(text(u, &words)?));
            }
            Some(Json::Array(items))
        }
        5 => {
            let mut items = vec![id()];
            let at = u.int_in_range(0..=1usize)?;
            items.insert(at, any(u, 1, &words, near)?);
            Some(Json::Array(items))
        }
        6 => None,
        7 => Some(Json::Object(vec![("aud".to_owned(), id())])),
        _ => Some(any(u, 2, &words, near)?),
    })
}

fn generation_claim(u: &mut Unstructured<'_>, near: i128) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=8u8)? {
        0 => Some(Json::Int(3)),
        1 => Some(Json::Int(0)),
        2 => Some(Json::Int(-1)),
        3 => Some(Json::Int(extreme(u)?)),
        4 => Some(Json::Float(if u.arbitrary()? { 3.0 } else { 1.5 })),
        5 => Some(Json::Str("3".to_owned())),
        6 => None,
        7 => Some(Json::Null),
        _ => Some(any(u, 2, &[], near)?),
    })
}

fn project_claim(u: &mut Unstructured<'_>, near: i128) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => Some(Json::Str("prj_1".to_owned())),
        1 => Some(Json::Null),
        2 => None,
        3 => Some(Json::Str(text(u, &["", "prj_2", "null"])?)),
        _ => Some(any(u, 2, &["prj_1"], near)?),
    })
}

fn jti_claim(u: &mut Unstructured<'_>, near: i128) -> Result<Option<Json>> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => None,
        1 => Some(Json::Str(text(u, &["tok_1", ""])?)),
        2 => Some(Json::Null),
        _ => Some(any(u, 2, &["tok_1"], near)?),
    })
}

fn setup(u: &mut Unstructured<'_>) -> Result<Setup> {
    let leeway = match u.int_in_range(0..=6u8)? {
        0 => Duration::from_secs(LEEWAY_SECS),
        1 => Duration::ZERO,
        2 => Duration::from_secs(1),
        // Whole seconds count: this is 59 s.
        3 => Duration::new(59, 999_999_999),
        4 => Duration::from_secs(u64::MAX),
        5 => Duration::from_secs(i64::MAX.unsigned_abs()),
        _ => Duration::from_secs(u64::from(u.arbitrary::<u32>()?)),
    };
    let issuer = match u.int_in_range(0..=3u8)? {
        0 | 1 => ISSUER,
        2 => "https://auth.staging.example",
        _ => "",
    };
    let extension_id = match u.int_in_range(0..=3u8)? {
        0 | 1 => crate::wire::EXTENSION_ID,
        2 => "ext-é",
        _ => "",
    };
    let scheme = match u.int_in_range(0..=3u8)? {
        0 => None,
        1 => Some("Bearer "),
        2 => Some("bearer "),
        _ => Some("BEARER   "),
    };
    Ok(Setup {
        issuer: issuer.to_owned(),
        extension_id: extension_id.to_owned(),
        leeway,
        cache: u.arbitrary()?,
        scheme,
    })
}

/// A case from the fuzzer's choices, with times around `now` (unix seconds).
pub fn case(u: &mut Unstructured<'_>, now: i64) -> Result<Case> {
    let setup = setup(u)?;
    let now = i128::from(now);
    let leeway = setup.leeway_secs();
    let not_an_object = match u.int_in_range(0..=31u8)? {
        // Any JSON value but an object; an object drawn is put in an array.
        31 => Some(match any(u, 2, &[], now)? {
            object @ Json::Object(_) => Json::Array(vec![object]),
            other => other,
        }),
        _ => None,
    };
    let issuers = [
        setup.issuer.as_str(),
        ISSUER,
        "https://auth.host.example/",
        "https://AUTH.host.example",
        "http://auth.host.example",
        "https://auth.evil.example",
        "",
    ];
    let install = ["ins_1", "", "ins_2", "\u{0}"];
    let organizations = ["org_1", "", "null"];
    let words = scope_words();
    let claims = vec![
        string_claim(u, &setup.issuer, &issuers, now)?,
        audience_claim(u, &setup.extension_id, now)?,
        string_claim(u, "ins_1", &install, now)?,
        time_claim(u, Some(now), now, leeway)?,
        time_claim(u, Some(now + 3600), now, leeway)?,
        time_claim(u, None, now, leeway)?,
        jti_claim(u, now)?,
        string_claim(u, "org_1", &organizations, now)?,
        project_claim(u, now)?,
        generation_claim(u, now)?,
        scopes_claim(u, words, now)?,
    ];
    let mut unknown = Vec::new();
    for _ in 0..u.int_in_range(0..=2u8)? {
        let name = (*u.choose(UNKNOWN)?).to_owned();
        let value = any(u, 2, words, now)?;
        if !unknown.iter().any(|(k, _)| *k == name) {
            unknown.push((name, value));
        }
    }
    Ok(Case {
        setup,
        not_an_object,
        claims,
        unknown,
    })
}

// ---------------------------------------------------------------------------------------------
// The oracle

/// Why the rules refuse a token: each maps to the [`AuthError`] a verifier must answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defect {
    /// The token is over 8 KiB, or its payload is not a JSON object: `Malformed`.
    Malformed,
    /// `iss` is a string but not the configured issuer: `WrongIssuer`.
    WrongIssuer,
    /// `aud` has the right type but does not hold the extension id: `WrongAudience`.
    WrongAudience,
    /// `exp + leeway` is before now: `Expired`.
    Expired,
    /// `nbf - leeway` is after now: `NotYetValid`.
    NotYetValid,
    /// The claim is missing or of the wrong type: `BadClaims`, naming the claim.
    Bad(&'static str),
}

impl Defect {
    /// Whether `error` is the answer to this defect.
    pub fn answered_by(&self, error: &AuthError) -> bool {
        match (self, error) {
            (Defect::Malformed, AuthError::Malformed(_))
            | (Defect::WrongIssuer, AuthError::WrongIssuer)
            | (Defect::WrongAudience, AuthError::WrongAudience)
            | (Defect::Expired, AuthError::Expired)
            | (Defect::NotYetValid, AuthError::NotYetValid) => true,
            (Defect::Bad(claim), AuthError::BadClaims(why)) => why.contains(&format!("`{claim}`")),
            _ => false,
        }
    }
}

/// What the rules say of a case at one moment: its defects (none: it must be accepted) and, when it
/// has none, the claims a verifier must return.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// Every rule the case breaks.
    pub defects: Vec<Defect>,
    /// The claims of an accepted token, as the rules read them.
    pub claims: Option<host_runtime::Claims>,
}

/// Judges `case`, whose token is `token_bytes` long, at `now` (unix seconds).
pub fn judge(case: &Case, token_bytes: usize, now: i64) -> Judgement {
    let mut defects = Vec::new();
    if token_bytes > MAX_TOKEN_BYTES || case.not_an_object.is_some() {
        return Judgement {
            defects: vec![Defect::Malformed],
            claims: None,
        };
    }
    let now = i128::from(now);
    let leeway = case.setup.leeway_secs();
    let mut bad = |claim: &'static str| defects.push(Defect::Bad(claim));

    let iss = case.claim("iss").and_then(Json::as_str);
    if iss.is_none() {
        bad("iss");
    }
    let aud = match case.claim("aud") {
        Some(Json::Str(a)) => Some(vec![a.clone()]),
        Some(list @ Json::Array(_)) => list.as_strings(),
        _ => None,
    };
    if aud.is_none() {
        bad("aud");
    }
    let sub = case.claim("sub").and_then(Json::as_str);
    if sub.is_none() {
        bad("sub");
    }
    let iat = case.claim("iat").and_then(Json::as_time);
    if iat.is_none() {
        bad("iat");
    }
    let exp = case.claim("exp").and_then(Json::as_time);
    if exp.is_none() {
        bad("exp");
    }
    let nbf = match case.claim("nbf") {
        None => Some(None),
        Some(v) => v.as_time().map(Some),
    };
    if nbf.is_none() {
        bad("nbf");
    }
    let jti = match case.claim("jti") {
        None => Some(None),
        Some(Json::Str(s)) => Some(Some(s.clone())),
        Some(_) => None,
    };
    if jti.is_none() {
        bad("jti");
    }
    let organization = case.claim("organizationId").and_then(Json::as_str);
    if organization.is_none() {
        bad("organizationId");
    }
    let project = match case.claim("projectId") {
        Some(Json::Str(p)) => Some(Some(p.clone())),
        Some(Json::Null) => Some(None),
        _ => None,
    };
    if project.is_none() {
        bad("projectId");
    }
    let generation = match case.claim("generation") {
        Some(Json::Int(n)) => u64::try_from(*n).ok(),
        _ => None,
    };
    if generation.is_none() {
        bad("generation");
    }
    let scopes = match case.claim("scopes") {
        None => Some(Vec::new()),
        Some(list) => list.as_strings(),
    };
    if scopes.is_none() {
        bad("scopes");
    }

    if iss.is_some_and(|i| i != case.setup.issuer) {
        defects.push(Defect::WrongIssuer);
    }
    if aud
        .as_ref()
        .is_some_and(|a| !a.contains(&case.setup.extension_id))
    {
        defects.push(Defect::WrongAudience);
    }
    if exp.is_some_and(|exp| i128::from(exp) + leeway < now) {
        defects.push(Defect::Expired);
    }
    if nbf
        .flatten()
        .is_some_and(|nbf| i128::from(nbf) - leeway > now)
    {
        defects.push(Defect::NotYetValid);
    }

    // Every claim read (each absent one is a defect above), or no claims at all.
    let read = || {
        Some(host_runtime::Claims {
            iss: iss?.to_owned(),
            aud: aud?,
            sub: sub?.to_owned(),
            iat: iat?,
            exp: exp?,
            nbf: nbf.flatten(),
            jti: jti.flatten(),
            organization_id: organization?.to_owned(),
            project_id: project.flatten(),
            generation: generation?,
            scopes: scopes?,
        })
    };
    let claims = if defects.is_empty() { read() } else { None };
    Judgement { defects, claims }
}
