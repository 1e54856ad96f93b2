//! Which redirects the native client follows, and how the request changes on the way.
//!
//! - 301, 302 and 303 with a `Location`: a `POST` (and, for 303, anything but `HEAD`) becomes a `GET`
//!   without a body or the headers describing one; another method is repeated as it was.
//! - 307 and 308: the same method and body again.
//! - At most [`LIMIT`] in a row; one more is an error.
//! - To another origin (scheme, host or port), the request's credentials stay behind:
//!   `Authorization`, `Cookie`, `Proxy-Authorization`, `WWW-Authenticate`.
//! - From https to plain http: refused, an error. Anyone on the path could answer the plain request.
//! - `Referer` names the address redirected from, its credentials left out.
//!
//! A `Location` that is not a URI reference leaves the redirect's answer as the answer.

use bytes::Bytes;
use http::header::{
    AUTHORIZATION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HeaderValue, LOCATION,
    PROXY_AUTHORIZATION, REFERER, TRANSFER_ENCODING, WWW_AUTHENTICATE,
};
use http::uri::Scheme;
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};

use super::{ClientError, ClientErrorKind};

/// How many redirects in a row are followed.
pub(super) const LIMIT: usize = 10;

/// One request of the chain: the first as the caller gave it, then each redirect's.
#[derive(Debug, Clone)]
pub(super) struct Hop {
    pub(super) method: Method,
    pub(super) uri: Uri,
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
}

impl Hop {
    /// The caller's request: an absolute http or https URL, or an error saying it is not one.
    pub(super) fn of(request: Request<Bytes>) -> Result<Hop, ClientError> {
        let (parts, body) = request.into_parts();
        if !is_web(&parts.uri) {
            return Err(ClientError::new(
                ClientErrorKind::Request,
                "the request could not be sent: its URL is not an absolute http or https URL",
            ));
        }
        Ok(Hop {
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
            body,
        })
    }
}

/// Whether `uri` is an absolute http or https URL with a host.
fn is_web(uri: &Uri) -> bool {
    matches!(uri.scheme_str(), Some("http" | "https")) && uri.host().is_some()
}

/// The request to send after `response` to `hop`, when it is a redirect to follow; `followed` is
/// how many were followed before it.
pub(super) fn next<B>(
    hop: &Hop,
    response: &Response<B>,
    followed: usize,
) -> Result<Option<Hop>, ClientError> {
    let status = response.status();
    let repeat = match status {
        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT => true,
        StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND | StatusCode::SEE_OTHER => false,
        _ => return Ok(None),
    };
    let Some(target) = response
        .headers()
        .get(LOCATION)
        .and_then(|l| l.to_str().ok())
        .and_then(|l| resolve(&hop.uri, l))
    else {
        return Ok(None);
    };
    if followed >= LIMIT {
        return Err(ClientError::new(
            ClientErrorKind::Other,
            format!("the request was redirected more than {LIMIT} times"),
        ));
    }
    if !is_web(&target) {
        return Err(ClientError::new(
            ClientErrorKind::Request,
            "the request was redirected to an address that is not http or https",
        ));
    }
    let secure = |uri: &Uri| uri.scheme() == Some(&Scheme::HTTPS);
    if secure(&hop.uri) && !secure(&target) {
        return Err(ClientError::new(
            ClientErrorKind::Request,
            "the request was redirected from https to plain http, which is refused",
        ));
    }
    let mut next = hop.clone();
    let to_get = !repeat
        && match status {
            StatusCode::SEE_OTHER => hop.method != Method::HEAD,
            _ => hop.method == Method::POST,
        };
    if to_get {
        next.method = Method::GET;
        next.body = Bytes::new();
        for described in [
            CONTENT_TYPE,
            CONTENT_LENGTH,
            CONTENT_ENCODING,
            TRANSFER_ENCODING,
        ] {
            next.headers.remove(described);
        }
    }
    if origin(&hop.uri) != origin(&target) {
        for credential in [AUTHORIZATION, COOKIE, PROXY_AUTHORIZATION, WWW_AUTHENTICATE] {
            next.headers.remove(credential);
        }
        next.headers.remove("cookie2");
    }
    // Never from https to http (refused above), so the address may be named.
    next.headers.remove(REFERER);
    if let Ok(referer) = HeaderValue::from_str(&without_credentials(&hop.uri)) {
        next.headers.insert(REFERER, referer);
    }
    next.uri = target;
    Ok(Some(next))
}

/// `location` resolved against `base` (RFC 3986, section 5), when it is a URI reference.
fn resolve(base: &Uri, location: &str) -> Option<Uri> {
    let base = fluent_uri::Uri::parse(base.to_string()).ok()?;
    let target = fluent_uri::UriRef::parse(location.trim())
        .ok()?
        .resolve_against(&base)
        .ok()?;
    // An http::Uri holds no fragment; the fragment is the client's own business anyway.
    target.strip_fragment().as_str().parse().ok()
}

/// Scheme, host and port (the scheme's own when none is written).
fn origin(uri: &Uri) -> (Option<&str>, Option<String>, Option<u16>) {
    let port = uri.port_u16().or(match uri.scheme_str() {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    });
    (
        uri.scheme_str(),
        uri.host().map(str::to_ascii_lowercase),
        port,
    )
}

/// `uri` without the user and password an authority may carry.
fn without_credentials(uri: &Uri) -> String {
    let authority = uri.authority().map_or("", |a| a.as_str());
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    format!("{}://{host}{path}", uri.scheme_str().unwrap_or("https"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(method: Method, uri: &str) -> Hop {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer secret"));
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert("webhook-id", HeaderValue::from_static("msg_1"));
        Hop {
            method,
            uri: uri.parse().unwrap(),
            headers,
            body: Bytes::from_static(b"{\"a\":1}"),
        }
    }

    fn redirect(status: u16, location: &str) -> Response<()> {
        Response::builder()
            .status(status)
            .header(LOCATION, location)
            .body(())
            .unwrap()
    }

    fn followed(hop: &Hop, status: u16, location: &str) -> Hop {
        next(hop, &redirect(status, location), 0)
            .unwrap()
            .expect("a redirect to follow")
    }

    #[test]
    fn a_post_redirected_with_303_301_or_302_becomes_a_get_without_its_body() {
        for status in [301, 302, 303] {
            let next = followed(&hop(Method::POST, "https://a.example/x"), status, "/y");
            assert_eq!(next.method, Method::GET, "{status}");
            assert!(next.body.is_empty(), "{status}");
            assert!(!next.headers.contains_key(CONTENT_TYPE), "{status}");
            assert_eq!(next.uri, "https://a.example/y", "{status}");
            // Same origin: the credentials and the other headers go along.
            assert_eq!(next.headers[AUTHORIZATION], "Bearer secret");
            assert_eq!(next.headers["webhook-id"], "msg_1");
        }
    }

    #[test]
    fn a_307_or_308_repeats_the_method_and_body() {
        for status in [307, 308] {
            let next = followed(&hop(Method::POST, "https://a.example/x"), status, "z");
            assert_eq!(next.method, Method::POST);
            assert_eq!(&next.body[..], b"{\"a\":1}");
            assert_eq!(next.headers[CONTENT_TYPE], "application/json");
            assert_eq!(next.uri, "https://a.example/z");
        }
    }

    #[test]
    fn methods_other_than_post_keep_theirs_through_301_and_302_and_head_through_303() {
        let next = followed(&hop(Method::PUT, "https://a.example/x"), 301, "/y");
        assert_eq!(
            (next.method, &next.body[..]),
            (Method::PUT, &b"{\"a\":1}"[..])
        );
        let next = followed(&hop(Method::HEAD, "https://a.example/x"), 303, "/y");
        assert_eq!(next.method, Method::HEAD);
        let next = followed(&hop(Method::PUT, "https://a.example/x"), 303, "/y");
        assert_eq!(next.method, Method::GET);
    }

    #[test]
    fn credentials_stay_behind_on_another_origin() {
        for (from, to) in [
            ("https://a.example/x", "https://b.example/y"),
            ("https://a.example/x", "https://a.example:8443/y"),
            ("http://a.example/x", "https://a.example/y"),
        ] {
            let mut from = hop(Method::GET, from);
            from.headers.insert(COOKIE, HeaderValue::from_static("s=1"));
            let next = followed(&from, 302, to);
            assert!(!next.headers.contains_key(AUTHORIZATION), "{to}");
            assert!(!next.headers.contains_key(COOKIE), "{to}");
            assert_eq!(next.headers["webhook-id"], "msg_1", "{to}");
        }
        // The port written or not, the host's case either way, it is the same origin.
        let next = followed(
            &hop(Method::GET, "https://a.example/x"),
            302,
            "https://A.example:443/y",
        );
        assert_eq!(next.headers[AUTHORIZATION], "Bearer secret");
    }

    #[test]
    fn https_to_plain_http_is_refused() {
        let e = next(
            &hop(Method::GET, "https://a.example/jwks"),
            &redirect(302, "http://a.example/jwks"),
            0,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::Request);
        assert!(e.to_string().contains("https to plain http"), "{e}");
    }

    #[test]
    fn the_eleventh_redirect_is_an_error_and_the_tenth_is_followed() {
        let from = hop(Method::GET, "https://a.example/x");
        assert!(
            next(&from, &redirect(302, "/y"), LIMIT - 1)
                .unwrap()
                .is_some()
        );
        let e = next(&from, &redirect(302, "/y"), LIMIT).unwrap_err();
        assert!(e.to_string().contains("more than 10"), "{e}");
    }

    #[test]
    fn what_is_not_a_redirect_to_follow_is_the_answer() {
        let from = hop(Method::GET, "https://a.example/x");
        // Not a redirect status; no Location; a Location that is no URI reference.
        assert!(next(&from, &redirect(200, "/y"), 0).unwrap().is_none());
        assert!(next(&from, &redirect(304, "/y"), 0).unwrap().is_none());
        let bare = Response::builder().status(302).body(()).unwrap();
        assert!(next(&from, &bare, 0).unwrap().is_none());
        assert!(next(&from, &redirect(302, "/a b"), 0).unwrap().is_none());
        // Another scheme is refused.
        let e = next(&from, &redirect(302, "ftp://a.example/y"), 0).unwrap_err();
        assert_eq!(e.kind(), ClientErrorKind::Request);
    }

    #[test]
    fn relative_locations_resolve_as_rfc_3986_says() {
        let from = hop(Method::GET, "https://a.example/keys/v1/jwks.json?x=1");
        for (location, expected) in [
            ("v2/jwks.json", "https://a.example/keys/v1/v2/jwks.json"),
            ("../v2/jwks.json", "https://a.example/keys/v2/jwks.json"),
            ("/root", "https://a.example/root"),
            ("//b.example/k", "https://b.example/k"),
            ("?y=2", "https://a.example/keys/v1/jwks.json?y=2"),
            ("https://c.example/k#frag", "https://c.example/k"),
        ] {
            assert_eq!(followed(&from, 302, location).uri, expected, "{location}");
        }
    }

    #[test]
    fn the_referer_names_where_the_redirect_came_from_without_credentials() {
        let from = hop(Method::GET, "https://user:pw@a.example/x?q=1");
        let next = followed(&from, 302, "https://b.example/y");
        assert_eq!(next.headers[REFERER], "https://a.example/x?q=1");
    }

    #[test]
    fn only_absolute_web_urls_are_sent() {
        for uri in ["/relative", "ftp://a.example/x", "mailto:a@b.example"] {
            let request = Request::builder().uri(uri).body(Bytes::new()).unwrap();
            let e = Hop::of(request).unwrap_err();
            assert_eq!(e.kind(), ClientErrorKind::Request, "{uri}");
        }
    }
}
