//! TLS to the database: what a URL's `sslmode` asks for, what the connection got, what to say when
//! that is less than a database across a network should get, and what a failed handshake means.
//!
//! The modes are PostgreSQL's (`disable`, `allow`, `prefer`, `require`, `verify-ca`,
//! `verify-full`), with `sslrootcert` naming the CA to trust beside the public ones. As in libpq,
//! `require` with a root certificate checks the certificate (`verify-ca`). sqlx's `allow` connects
//! without TLS, and its `verify-ca` also checks the host name (a rustls error it matches was
//! renamed in rustls 0.23.24; fixed in sqlx 0.9, which needs Rust 1.94): stricter, never weaker.

use sqlx::postgres::{PgConnectOptions, PgSslMode};

/// Whether the URL (or `PGSSLROOTCERT`) names a root certificate.
pub(crate) fn root_cert_given(url: &str) -> bool {
    let in_url = url.split_once('?').is_some_and(|(_, query)| {
        form_urlencoded::parse(query.as_bytes())
            .any(|(k, v)| matches!(&*k, "sslrootcert" | "ssl-root-cert") && !v.is_empty())
    });
    in_url || std::env::var_os("PGSSLROOTCERT").is_some_and(|v| !v.is_empty())
}

/// The mode a connection of `options` uses: as asked, except `require` with a root certificate,
/// which verifies it (libpq's rule).
pub(crate) fn effective(options: PgConnectOptions, root_cert: bool) -> PgConnectOptions {
    if root_cert && matches!(options.get_ssl_mode(), PgSslMode::Require) {
        options.ssl_mode(PgSslMode::VerifyCa)
    } else {
        options
    }
}

/// Whether the database is on this machine: a Unix socket, `localhost` or a loopback address.
pub(crate) fn local(options: &PgConnectOptions) -> bool {
    if options.get_socket().is_some() {
        return true;
    }
    let host = options
        .get_host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    host == "localhost"
        || host.starts_with('/')
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The mode as a URL writes it.
pub(crate) fn mode_name(mode: PgSslMode) -> &'static str {
    match mode {
        PgSslMode::Disable => "disable",
        PgSslMode::Allow => "allow",
        PgSslMode::Prefer => "prefer",
        PgSslMode::Require => "require",
        PgSslMode::VerifyCa => "verify-ca",
        PgSslMode::VerifyFull => "verify-full",
    }
}

/// What to say at start when a connection to a database across a network gets less than
/// `verify-full`; `None` when there is nothing to say. `secured` is whether the connection made
/// is encrypted, when known.
pub(crate) fn advice(mode: PgSslMode, local: bool, secured: Option<bool>) -> Option<String> {
    const ASK: &str = "ask for sslmode=verify-full in the URL (with sslrootcert=/path/to/ca.pem \
                       when the provider's CA is not a public one)";
    if local {
        return None;
    }
    let said = match (mode, secured) {
        (PgSslMode::VerifyFull, _) => return None,
        (_, Some(false)) if matches!(mode, PgSslMode::Prefer) => format!(
            "sslmode=prefer fell back to plaintext: the server does not offer TLS, so the password \
             and every row cross the network unencrypted; {ASK}, which refuses instead"
        ),
        (PgSslMode::Disable | PgSslMode::Allow, _) => format!(
            "sslmode={} connects without TLS: the password and every row cross the network \
             unencrypted; {ASK}",
            mode_name(mode)
        ),
        (PgSslMode::Prefer, _) => format!(
            "sslmode=prefer (the default) encrypts, but does not check who answers and falls back \
             to plaintext when the server stops offering TLS; {ASK}"
        ),
        (PgSslMode::Require, _) => {
            format!("sslmode=require encrypts, but does not check who answers; {ASK}")
        }
        (PgSslMode::VerifyCa, _) => format!(
            "sslmode=verify-ca checks the server's certificate but not that it names the host; \
             {ASK}"
        ),
    };
    Some(said)
}

/// What a failed connection means for TLS, in words, when it is about TLS.
pub(crate) fn explain(e: &sqlx::Error, mode: PgSslMode) -> Option<&'static str> {
    // A refused certificate comes back as an I/O error of the handshake.
    let text = match e {
        sqlx::Error::Tls(inner) => inner.to_string(),
        sqlx::Error::Database(db) => db.message().to_owned(),
        sqlx::Error::Io(io) => io.to_string(),
        _ => return None,
    };
    let said = if text.contains("does not support TLS") {
        "the server does not accept TLS (its `ssl` setting is off) and the URL's sslmode requires \
         it: turn TLS on in the server, or ask for less only on a network you trust"
    } else if text.contains("UnknownIssuer") || text.contains("BadSignature") {
        "the server's certificate is not signed by a CA this client trusts: give that CA with \
         sslrootcert=/path/to/ca.pem (managed providers publish theirs)"
    } else if (text.contains("NotValidForName") || text.contains("not valid for name"))
        && matches!(mode, PgSslMode::VerifyCa)
    {
        // sqlx 0.8 skips the name check on a rustls error that rustls 0.23.24 renamed, so its
        // verify-ca checks the name too: stricter than asked, never weaker.
        "the server's certificate does not name the host in the URL, and this driver (sqlx 0.8) \
         checks the name under sslmode=verify-ca too: connect by a name the certificate carries"
    } else if text.contains("NotValidForName") || text.contains("not valid for name") {
        "the server's certificate does not name the host in the URL: connect by a name the \
         certificate carries"
    } else if text.contains("Expired") {
        "the server's certificate has expired"
    } else if text.contains("no encryption") {
        "the server takes only TLS connections: ask for sslmode=verify-full"
    } else if matches!(e, sqlx::Error::Tls(_)) {
        "the TLS handshake with the server failed"
    } else {
        return None;
    };
    Some(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(url: &str) -> PgConnectOptions {
        url.parse().unwrap()
    }

    #[test]
    fn loopback_and_sockets_are_local() {
        for url in [
            "postgres://u@localhost/db",
            "postgres://u@127.0.0.1/db",
            "postgres://u@[::1]/db",
            "postgres://u@%2Fvar%2Frun%2Fpostgresql/db",
        ] {
            assert!(local(&options(url)), "{url}");
        }
        for url in ["postgres://u@db.example.com/db", "postgres://u@10.0.0.5/db"] {
            assert!(!local(&options(url)), "{url}");
        }
    }

    #[test]
    fn less_than_verify_full_across_a_network_is_said() {
        assert_eq!(advice(PgSslMode::VerifyFull, false, Some(true)), None);
        assert_eq!(advice(PgSslMode::Disable, true, Some(false)), None);
        let fell_back = advice(PgSslMode::Prefer, false, Some(false)).unwrap();
        assert!(fell_back.contains("fell back to plaintext"), "{fell_back}");
        for mode in [
            PgSslMode::Disable,
            PgSslMode::Allow,
            PgSslMode::Prefer,
            PgSslMode::Require,
            PgSslMode::VerifyCa,
        ] {
            let said = advice(mode, false, Some(true)).unwrap();
            assert!(said.contains("sslmode=verify-full"), "{said}");
        }
    }

    #[test]
    fn require_with_a_root_certificate_verifies_it() {
        let url = "postgres://u@db.example.com/db?sslmode=require&sslrootcert=/ca.pem";
        assert!(root_cert_given(url));
        assert_eq!(
            mode_name(effective(options(url), true).get_ssl_mode()),
            "verify-ca"
        );
        let plain = "postgres://u@db.example.com/db?sslmode=require";
        assert!(!root_cert_given(plain) || std::env::var_os("PGSSLROOTCERT").is_some());
        assert_eq!(
            mode_name(effective(options(plain), false).get_ssl_mode()),
            "require"
        );
    }
}
