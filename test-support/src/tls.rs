//! Certificates for tests of TLS: a certificate authority made on the spot, and a server
//! certificate it signed (a PostgreSQL server serves them: `PostgresServer::start_verified_tls`).

use std::io;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

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
