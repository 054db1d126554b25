//! Fresh credentials for tests and local runs: a CA and one certificate
//! and key per role, written as PEM files into a directory.
//!
//! Files: `ca.pem` (the CA certificate, the trust root of every role),
//! `<role>.pem` (the role's certificate) and `<role>-key.pem` (its private
//! key, created with mode 0600 on Unix), where `<role>` is `server` or
//! `party-<i>`. Role certificates carry the role's DNS name
//! ([`PeerId::dns_name`]) as their only subject alternative name, allow
//! TLS server and client authentication, and use ECDSA P-256. The CA key
//! stays in memory and is never written. Certificates have rcgen's default
//! validity (1975 to 4096): these are credentials for one session on
//! trusted machines, not for a public PKI.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use crate::config::Credentials;
use crate::error::{Error, Result};
use crate::peer::PeerId;

/// A certificate authority in memory whose certificate is written to a
/// directory; it issues role certificates into the same directory.
pub struct CertAuthority {
    dir: PathBuf,
    cert: Certificate,
    key: KeyPair,
}

impl std::fmt::Debug for CertAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CertAuthority")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

fn generation_error(what: &str, e: rcgen::Error) -> Error {
    Error::io(
        format!("generating {what}"),
        std::io::Error::other(e.to_string()),
    )
}

/// Writes `contents` to `path`, readable by the owner only when `secret`.
fn write_file(path: &Path, contents: &str, secret: bool) -> Result<()> {
    let context = || format!("writing {}", path.display());
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(|e| Error::io(context(), e))?;
    // The mode above applies to new files only; an old file is narrowed too.
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(context(), e))?;
    }
    file.write_all(contents.as_bytes())
        .map_err(|e| Error::io(context(), e))
}

impl CertAuthority {
    /// A fresh CA named `name`; writes its certificate to `dir/ca.pem`
    /// (creating `dir`).
    ///
    /// # Errors
    /// [`Error::Io`] when generating or writing fails.
    pub fn new(dir: &Path, name: &str) -> Result<CertAuthority> {
        fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let mut params = CertificateParams::new(Vec::<String>::new())
            .map_err(|e| generation_error("the CA", e))?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().map_err(|e| generation_error("the CA key", e))?;
        let cert = params
            .self_signed(&key)
            .map_err(|e| generation_error("the CA", e))?;
        let ca = CertAuthority {
            dir: dir.to_owned(),
            cert,
            key,
        };
        write_file(&ca.ca_path(), &ca.cert.pem(), false)?;
        Ok(ca)
    }

    /// The path of the CA certificate.
    pub fn ca_path(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// Issues a certificate for `role` and writes it with its key.
    ///
    /// # Errors
    /// [`Error::Io`] when generating or writing fails.
    pub fn issue(&self, role: PeerId) -> Result<Credentials> {
        self.issue_named(&role.slug(), &[role.dns_name()])
    }

    /// Issues a certificate carrying the DNS names `names` (for tests of
    /// certificates that name other or several roles) and writes it to
    /// `<stem>.pem` with its key in `<stem>-key.pem`.
    ///
    /// # Errors
    /// [`Error::Io`] when generating or writing fails (also for a name that
    /// is no valid DNS name).
    pub fn issue_named(&self, stem: &str, names: &[String]) -> Result<Credentials> {
        let mut params = CertificateParams::new(names.to_vec())
            .map_err(|e| generation_error("a role certificate", e))?;
        if let Some(first) = names.first() {
            params
                .distinguished_name
                .push(DnType::CommonName, first.as_str());
        }
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().map_err(|e| generation_error("a role key", e))?;
        let cert = params
            .signed_by(&key, &self.cert, &self.key)
            .map_err(|e| generation_error("a role certificate", e))?;
        let creds = Credentials {
            cert_chain: self.dir.join(format!("{stem}.pem")),
            private_key: self.dir.join(format!("{stem}-key.pem")),
            ca: self.ca_path(),
        };
        write_file(&creds.private_key, &key.serialize_pem(), true)?;
        write_file(&creds.cert_chain, &cert.pem(), false)?;
        Ok(creds)
    }
}

/// Writes a fresh CA and one certificate and key per role into `dir`;
/// returns each role's credentials.
///
/// # Errors
/// [`Error::Io`] when generating or writing fails.
pub fn generate(
    dir: &Path,
    roles: impl IntoIterator<Item = PeerId>,
) -> Result<BTreeMap<PeerId, Credentials>> {
    let ca = CertAuthority::new(dir, "he-net session CA")?;
    roles
        .into_iter()
        .map(|role| Ok((role, ca.issue(role)?)))
        .collect()
}

/// The roles of a session with `parties` computing parties: the server,
/// then parties `0..parties`.
pub fn session_roles(parties: u32) -> impl Iterator<Item = PeerId> {
    std::iter::once(PeerId::Server).chain((0..parties).map(PeerId::Party))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::{check_names, TlsContext};
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::CertificateDer;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("he-net-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn generated_credentials_load_and_name_their_role() {
        let dir = temp_dir("certs");
        let creds = generate(&dir, session_roles(2)).expect("generation");
        assert_eq!(creds.len(), 3);
        for (role, c) in &creds {
            TlsContext::load(c).expect("the credentials load");
            let leaf = CertificateDer::from_pem_file(&c.cert_chain).expect("a certificate");
            check_names(&leaf, *role).expect("the certificate names its role");
            let other = if *role == PeerId::Server {
                PeerId::Party(0)
            } else {
                PeerId::Server
            };
            assert!(check_names(&leaf, other).is_err());
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = fs::metadata(&c.private_key)
                    .expect("the key file")
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o777, 0o600, "{}", c.private_key.display());
            }
        }
        fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn missing_or_empty_files_are_named() {
        let dir = temp_dir("badcreds");
        let ca = CertAuthority::new(&dir, "t").expect("a CA");
        let mut c = ca.issue(PeerId::Server).expect("a certificate");
        c.ca = dir.join("absent.pem");
        let err = TlsContext::load(&c).err().expect("no CA file").to_string();
        assert!(err.contains("absent.pem"), "{err}");
        write_file(&dir.join("empty.pem"), "", false).expect("write");
        c.ca = dir.join("empty.pem");
        let err = TlsContext::load(&c)
            .err()
            .expect("empty CA file")
            .to_string();
        assert!(err.contains("no certificate"), "{err}");
        fs::remove_dir_all(&dir).expect("cleanup");
    }
}
