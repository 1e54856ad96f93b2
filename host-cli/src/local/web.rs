//! What the local host's two servers share: the loopback-only address, the body limit, JSON
//! answers and the error body `{"error":{"code","message"}}`, and serving an axum router.
//!
//! `dev` serves the host's side (the key set, the event inbox) and the console serves its page and
//! API; both are axum routers served here, and every refusal either makes is the same error body
//! the host itself answers with.

use std::net::SocketAddr;

use axum::response::{IntoResponse, Response};
use http::{Method, StatusCode, Uri, header};
use serde_json::{Value, json};

use super::Fail;

/// The largest request body either server reads: an event, or a call from the console's page.
pub(crate) const BODY_LIMIT: usize = 1024 * 1024;

/// A JSON answer that no cache keeps.
pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}

/// An error answer: `{"error":{"code","message"}}`, the host's own error body.
pub(crate) fn error(status: StatusCode, code: &str, message: &str) -> Response {
    json(
        status,
        &json!({ "error": { "code": code, "message": message } }),
    )
}

/// A route asked with a method it does not answer (axum sets `Allow`).
pub(crate) async fn method_not_allowed(method: Method, uri: Uri) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        &format!(
            "`{}` does not answer {method}; the Allow header says what it answers",
            uri.path()
        ),
    )
}

/// Parses a listen address and refuses anything but loopback: the development key is public, so
/// anyone who could reach the local host could mint tokens a vendor server in development accepts.
pub(crate) fn loopback(flag: &str, text: &str) -> Result<SocketAddr, Fail> {
    let addr = match text.strip_prefix("localhost:") {
        Some(port) => port
            .parse::<u16>()
            .map(|p| SocketAddr::from(([127, 0, 0, 1], p)))
            .ok(),
        None => text.parse::<SocketAddr>().ok(),
    };
    let Some(addr) = addr else {
        return Err(Fail::usage(format!(
            "`{flag} {text}` is not an address with a port, such as 127.0.0.1:8788"
        )));
    };
    if !addr.ip().is_loopback() {
        return Err(Fail::usage(format!(
            "refusing to listen on {addr}: the development key is public, so anyone who reaches the local host could mint tokens your server accepts; listen on loopback, e.g. 127.0.0.1:8788"
        )));
    }
    Ok(addr)
}

/// Serves `router` on `listener` until the process ends. A failed accept (a peer gone, a file
/// limit) concerns that connection only; axum's server carries on.
pub(crate) async fn serve(listener: tokio::net::TcpListener, router: axum::Router) {
    // `serve` only returns on an I/O error of the listener itself, which nothing here can mend.
    let _ = axum::serve(listener, router).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_served() {
        assert!(loopback("--listen", "127.0.0.1:0").is_ok());
        assert!(loopback("--listen", "[::1]:8788").is_ok());
        assert_eq!(
            loopback("--listen", "localhost:9000").ok(),
            Some(SocketAddr::from(([127, 0, 0, 1], 9000)))
        );
        let open = loopback("--listen", "0.0.0.0:8788")
            .err()
            .map(|f| (f.code, f.message));
        assert!(
            matches!(&open, Some((2, m)) if m.contains("refusing to listen")),
            "{open:?}"
        );
        let bad = loopback("--console", "8788").err().map(|f| f.message);
        assert!(bad.is_some_and(|m| m.contains("`--console 8788`")));
    }
}
