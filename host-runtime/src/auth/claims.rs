//! The strict claim checks of install tokens, run on the payload of a token whose signature verified,
//! producing the [`Claims`] handlers receive.
//!
//! Types are exact: `iat`, `exp`, `nbf` and `generation` are JSON integers (a float, a string or a bool
//! is refused), strings are strings. Unknown claims are tolerated. Time is checked with the leeway on
//! both sides, inclusively: a token is valid while `nbf - leeway <= now <= exp + leeway`.

use serde_json::{Map, Value};

use super::AuthError;
use crate::calls::call::Claims;

/// What the claims are checked against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expected<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) extension_id: &'a str,
    /// Seconds.
    pub(crate) leeway: i64,
    /// Unix seconds.
    pub(crate) now: i64,
}

/// Checks `payload` and builds the claims.
pub(crate) fn check(payload: &Value, expected: &Expected<'_>) -> Result<Claims, AuthError> {
    let Value::Object(c) = payload else {
        return Err(AuthError::BadClaims(
            "the token payload is not a JSON object",
        ));
    };
    let iss = string(c, "iss", "`iss` is missing or not a string")?;
    if iss != expected.issuer {
        return Err(AuthError::WrongIssuer);
    }
    let aud = audience(c.get("aud"))?;
    if !aud.iter().any(|a| a == expected.extension_id) {
        return Err(AuthError::WrongAudience);
    }
    let iat = integer(c, "iat", "`iat` is missing or not an integer")?;
    let exp = integer(c, "exp", "`exp` is missing or not an integer")?;
    let nbf = match c.get("nbf") {
        None => None,
        Some(v) => Some(
            v.as_i64()
                .ok_or(AuthError::BadClaims("`nbf` is not an integer"))?,
        ),
    };
    check_time(exp, nbf, expected)?;
    Ok(Claims {
        iss,
        aud,
        sub: string(c, "sub", "`sub` is missing or not a string")?,
        iat,
        exp,
        nbf,
        jti: optional_string(c, "jti", "`jti` is not a string")?,
        organization_id: string(
            c,
            "organizationId",
            "`organizationId` is missing or not a string",
        )?,
        project_id: project_id(c.get("projectId"))?,
        generation: c
            .get("generation")
            .and_then(Value::as_u64)
            .ok_or(AuthError::BadClaims(
                "`generation` is missing or not a non-negative integer",
            ))?,
        scopes: scopes(c.get("scopes"))?,
    })
}

/// `exp + leeway >= now` and `nbf - leeway <= now`, both inclusive, without overflow.
fn check_time(exp: i64, nbf: Option<i64>, expected: &Expected<'_>) -> Result<(), AuthError> {
    if exp.saturating_add(expected.leeway) < expected.now {
        return Err(AuthError::Expired);
    }
    if let Some(nbf) = nbf
        && nbf.saturating_sub(expected.leeway) > expected.now
    {
        return Err(AuthError::NotYetValid);
    }
    Ok(())
}

fn string(c: &Map<String, Value>, name: &str, why: &'static str) -> Result<String, AuthError> {
    match c.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(AuthError::BadClaims(why)),
    }
}

fn optional_string(
    c: &Map<String, Value>,
    name: &str,
    why: &'static str,
) -> Result<Option<String>, AuthError> {
    match c.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(AuthError::BadClaims(why)),
    }
}

/// A JSON integer that fits `i64`; `serde_json` keeps `1.0` and `1e9` as floats, so they fail here.
fn integer(c: &Map<String, Value>, name: &str, why: &'static str) -> Result<i64, AuthError> {
    c.get(name)
        .and_then(Value::as_i64)
        .ok_or(AuthError::BadClaims(why))
}

/// `aud`: a string or an array of strings, normalised to a list.
fn audience(aud: Option<&Value>) -> Result<Vec<String>, AuthError> {
    const WHY: &str = "`aud` is missing or not a string or an array of strings";
    match aud {
        Some(Value::String(a)) => Ok(vec![a.clone()]),
        Some(Value::Array(items)) => strings(items).ok_or(AuthError::BadClaims(WHY)),
        _ => Err(AuthError::BadClaims(WHY)),
    }
}

/// `projectId`: present, a string or `null` (an organization install).
fn project_id(value: Option<&Value>) -> Result<Option<String>, AuthError> {
    match value {
        Some(Value::String(p)) => Ok(Some(p.clone())),
        Some(Value::Null) => Ok(None),
        _ => Err(AuthError::BadClaims(
            "`projectId` is missing or not a string or null",
        )),
    }
}

/// `scopes`: an array of strings; absent means none.
fn scopes(value: Option<&Value>) -> Result<Vec<String>, AuthError> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            strings(items).ok_or(AuthError::BadClaims("`scopes` is not an array of strings"))
        }
        Some(_) => Err(AuthError::BadClaims("`scopes` is not an array of strings")),
    }
}

fn strings(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}
