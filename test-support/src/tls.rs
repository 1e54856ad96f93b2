//! Certificates for tests of TLS: a certificate authority made on the spot, and a server
//! certificate it signed.

use std::io;
use std::path::Path;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

use crate::PostgresServer;

/// A fresh CA, and a server certificate it signed, all in PEM.
#[derive(Debug, Clone)]
pub struct Certificates {
    /// The CA's certificate: what a client trusts (`sslrootcert`).
    pub ca_pem: String,
    /// The server's certificate.
    pub server_pem: String,
    /// The server certificate's private key.
    pub server_key_pem: String,
}

impl Certificates {
    /// A CA named "host-sdk test CA", and a server certificate for `names` (DNS names or IP
    /// addresses) signed by it.
    pub fn for_names(names: &[&str]) -> io::Result<Certificates> {
        let failed = |what: &str, e: rcgen::Error| io::Error::other(format!("{what}: {e}"));
        let ca_key = KeyPair::generate().map_err(|e| failed("the CA's key", e))?;
        let mut ca = CertificateParams::new(Vec::<String>::new())
            .map_err(|e| failed("the CA's parameters", e))?;
        ca.distinguished_name
            .push(DnType::CommonName, "host-sdk test CA");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca
            .self_signed(&ca_key)
            .map_err(|e| failed("the CA's certificate", e))?;
        let server_key = KeyPair::generate().map_err(|e| failed("the server's key", e))?;
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let server = CertificateParams::new(names)
            .map_err(|e| failed("the server's names", e))?
            .signed_by(&server_key, &ca, &ca_key)
            .map_err(|e| failed("the server's certificate", e))?;
        Ok(Certificates {
            ca_pem: ca.pem(),
            server_pem: server.pem(),
            server_key_pem: server_key.serialize_pem(),
        })
    }
}

impl PostgresServer {
    /// A server as a managed database runs it: TLS only, with a certificate for `localhost` from
    /// a CA made here (written to `dir/ca.pem`), and the URL a client verifying it uses
    /// (`sslmode=verify-full`, `sslrootcert`).
    pub fn start_verified_tls(
        settings: &[(&str, &str)],
        dir: &Path,
    ) -> io::Result<(PostgresServer, String)> {
        let certificates = Certificates::for_names(&["localhost"])?;
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, &certificates.ca_pem)?;
        let server = PostgresServer::start_with_tls(
            settings,
            &certificates.server_pem,
            &certificates.server_key_pem,
            true,
        )?;
        let url = format!(
            "postgres://postgres@localhost:{}/postgres?sslmode=verify-full&sslrootcert={}",
            server.port(),
            ca_file.display()
        );
        Ok((server, url))
    }
}
