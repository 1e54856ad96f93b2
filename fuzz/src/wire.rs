//! The request targets' input: an HTTP request written as text, so that seeds are readable and the
//! fuzzer's byte mutations stay close to requests the host could send.
//!
//! ```text
//! POST /host/tools/keyword-ranks?q=1
//! authorization: Bearer $TOKEN
//! content-type: application/json
//!
//! {"input": {"keyword": "notes"}}
//! ```
//!
//! The first line is the method and the target (a full URL for the Workers target), then a header
//! per line until an empty line, then the body. In header values `$TOKEN` becomes a valid install
//! token of the development key, and `$TOKEN:a,b` one that grants only the scopes `a` and `b`: a
//! fuzzer cannot forge a signature, so without these nothing would get past the token check.

use std::sync::OnceLock;

use host_runtime::testing::{TestHost, TokenClaims};

/// The extension the request targets call: the keyword-tracker fixture.
pub const EXTENSION_ID: &str = "keyword-tracker";

/// Expiry of the tokens the targets mint: 2100-01-01, so committed seeds stay valid.
pub const TOKEN_EXP: i64 = 4_102_444_800;

/// The test host of the development key, which mints every token of the request targets.
pub fn host() -> &'static TestHost {
    static HOST: OnceLock<TestHost> = OnceLock::new();
    HOST.get_or_init(|| TestHost::development(EXTENSION_ID))
}

/// The claims of a valid token, fixed so that a minted token is the same on every run.
pub fn claims() -> TokenClaims {
    let mut c = host().claims();
    c.iat = 1_700_000_000;
    c.exp = TOKEN_EXP;
    c
}

/// A valid token granting every scope.
pub fn token() -> &'static str {
    static TOKEN: OnceLock<String> = OnceLock::new();
    TOKEN.get_or_init(|| host().mint(&claims()))
}

/// A valid token granting only `scopes`.
fn scoped_token(scopes: &str) -> String {
    let mut c = claims();
    c.scopes = scopes
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    host().mint(&c)
}

/// Replaces the `$TOKEN` placeholders of a header value.
pub fn tokens_in(value: &str) -> String {
    let Some(at) = value.find("$TOKEN") else {
        return value.to_owned();
    };
    let (before, rest) = value.split_at(at);
    let rest = &rest["$TOKEN".len()..];
    match rest.strip_prefix(':') {
        Some(scopes) => format!("{before}{}", scoped_token(scopes)),
        None => format!("{before}{}{rest}", token()),
    }
}

/// A request read from the text format: method, target, headers, body.
#[derive(Debug, Clone, Default)]
pub struct Wire {
    /// The method as written.
    pub method: String,
    /// The request target (a path and query, or a full URL).
    pub target: String,
    /// Header names and values, placeholders replaced.
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

/// Reads `data` as a request. Any bytes read as some request; text that is not UTF-8 is read
/// lossily in the head (the body keeps its bytes).
pub fn parse(data: &[u8]) -> Wire {
    let split = data
        .windows(2)
        .position(|w| w == b"\n\n")
        .map_or((data, &[][..]), |at| (&data[..at], &data[at + 2..]));
    let head = String::from_utf8_lossy(split.0);
    let mut lines = head.lines();
    let first = lines.next().unwrap_or_default();
    let (method, target) = first.split_once(' ').unwrap_or((first, "/"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), tokens_in(value.trim())))
        .collect();
    Wire {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
        body: split.1.to_vec(),
    }
}

/// `wire` as an `http` request, or `None` when `http` refuses its method, target or headers (the
/// servers in front of the handler refuse those too).
pub fn to_http(wire: &Wire, target: &str) -> Option<http::Request<bytes::Bytes>> {
    let mut builder = http::Request::builder()
        .method(wire.method.as_str())
        .uri(target);
    for (name, value) in &wire.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder.body(bytes::Bytes::from(wire.body.clone())).ok()
}
