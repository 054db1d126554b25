//! TLS 1.3 with mutual authentication: loading a role's PEM credentials,
//! the client and server configurations, and the check that a peer's
//! certificate names the role it claims.
//!
//! Both sides require a chain to the configured CA. The dialing side
//! verifies the acceptor's certificate for the DNS name of the role it
//! dials ([`PeerId::dns_name`]); the accepting side learns the dialer's
//! claimed role from its hello and checks the client certificate for that
//! name with [`check_names`].

use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};

use crate::config::Credentials;
use crate::error::{Error, Result};
use crate::peer::PeerId;

/// A role's TLS configurations, one per direction of connection setup.
#[derive(Clone)]
pub(crate) struct TlsContext {
    /// For connections this role dials.
    pub client: Arc<ClientConfig>,
    /// For connections this role accepts.
    pub server: Arc<ServerConfig>,
}

fn credentials_error(path: &Path, reason: impl ToString) -> Error {
    Error::Credentials {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

/// Every certificate of a PEM file (at least one).
fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| credentials_error(path, e))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| credentials_error(path, e))?;
    if certs.is_empty() {
        return Err(credentials_error(path, "no certificate in the file"));
    }
    Ok(certs)
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl TlsContext {
    /// Loads the credentials and builds both configurations (TLS 1.3 only,
    /// ring's cipher suites, client certificates required).
    ///
    /// # Errors
    /// [`Error::Credentials`] naming the file that cannot be read or used.
    pub fn load(creds: &Credentials) -> Result<TlsContext> {
        let chain = load_certs(&creds.cert_chain)?;
        let key = PrivateKeyDer::from_pem_file(&creds.private_key)
            .map_err(|e| credentials_error(&creds.private_key, e))?;
        let mut roots = RootCertStore::empty();
        for ca in load_certs(&creds.ca)? {
            roots.add(ca).map_err(|e| credentials_error(&creds.ca, e))?;
        }
        let roots = Arc::new(roots);

        let ca_error = |e: rustls::Error| credentials_error(&creds.ca, e);
        let key_error = |e: rustls::Error| credentials_error(&creds.private_key, e);
        let client_verifier =
            WebPkiClientVerifier::builder_with_provider(roots.clone(), provider())
                .build()
                .map_err(|e| credentials_error(&creds.ca, e))?;
        let server = ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(ca_error)?
            .with_client_cert_verifier(client_verifier)
            .with_single_cert(chain.clone(), key.clone_key())
            .map_err(key_error)?;
        let client = ClientConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(ca_error)?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)
            .map_err(key_error)?;
        // One connection per pair and session: nothing to resume, so no
        // tickets on the wire.
        let mut server = server;
        server.send_tls13_tickets = 0;
        let mut client = client;
        client.resumption = rustls::client::Resumption::disabled();
        Ok(TlsContext {
            client: Arc::new(client),
            server: Arc::new(server),
        })
    }
}

/// The name the dialing side verifies the acceptor's certificate for.
///
/// # Errors
/// None in practice: a role's DNS name is ASCII letters, digits, `-` and `.`.
pub(crate) fn server_name(role: PeerId) -> std::result::Result<ServerName<'static>, String> {
    ServerName::try_from(role.dns_name()).map_err(|e| format!("{}: {e}", role.dns_name()))
}

/// Checks that a (chain-verified) leaf certificate is valid for `role`'s
/// DNS name.
///
/// # Errors
/// A description naming the role and the names the certificate carries.
pub(crate) fn check_names(
    leaf: &CertificateDer<'_>,
    role: PeerId,
) -> std::result::Result<(), String> {
    let cert = webpki::EndEntityCert::try_from(leaf)
        .map_err(|e| format!("unparsable certificate: {e}"))?;
    match cert.verify_is_valid_for_subject_name(&server_name(role)?) {
        Ok(()) => Ok(()),
        Err(e) => {
            let names: Vec<&str> = cert.valid_dns_names().collect();
            Err(format!(
                "its certificate names {names:?}, not {} ({e})",
                role.dns_name()
            ))
        }
    }
}
