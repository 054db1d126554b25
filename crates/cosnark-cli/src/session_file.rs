//! `session.json`: what every process of a session agrees on before it
//! starts — the session id, the parties, the threshold, the circuit's domain
//! size (which fixes the encryption parameters) and every role's address.
//! Public; the certificates come from their own files.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;

use ark_bn254::Fr;
use he_net::{Credentials, NetConfig, PeerId, SessionId};
use he_threshold::Session;
use helib_rs::Context;
use serde::{Deserialize, Serialize};

use crate::error::{CliError, CliResult};
use crate::net::TAGS;

/// The public description of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionFile {
    /// The session id, 64 hex digits.
    pub id: String,
    /// Computing parties.
    pub parties: u32,
    /// Parties needed for a proof (the number of parties for N-out-of-N).
    pub threshold: u32,
    /// The circuit's evaluation domain (a power of two).
    pub domain_size: usize,
    /// Each role's `host:port` (`server`, `party-<i>`).
    pub addresses: BTreeMap<String, String>,
}

impl SessionFile {
    /// A new session with a fresh random id, every role on `host` at a port
    /// free now.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a threshold outside `1..=parties` or fewer
    /// than 2 parties; a file error when no port can be found.
    pub fn new(parties: u32, threshold: u32, domain_size: usize, host: &str) -> CliResult<Self> {
        if parties < 2 || !(1..=parties).contains(&threshold) {
            return Err(CliError::Usage(format!(
                "a session needs at least 2 parties and a threshold in 1..=parties, got {parties} parties and threshold {threshold}"
            )));
        }
        let mut id = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut id);
        let mut addresses = BTreeMap::new();
        for role in he_net::certs::session_roles(parties) {
            addresses.insert(role.slug(), format!("{host}:{}", free_port(host)?));
        }
        Ok(Self {
            id: hex(&id),
            parties,
            threshold,
            domain_size,
            addresses,
        })
    }

    /// Reads and checks `path`.
    ///
    /// # Errors
    /// A file error, or [`CliError::Malformed`] naming the field.
    pub fn read(path: &Path) -> CliResult<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, e))?;
        let file: Self =
            serde_json::from_str(&text).map_err(|e| CliError::malformed(path, e.to_string()))?;
        file.check()
            .map_err(|reason| CliError::malformed(path, reason))?;
        Ok(file)
    }

    /// Writes the file (atomically).
    ///
    /// # Errors
    /// A file error.
    pub fn write(&self, path: &Path) -> CliResult<()> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| CliError::malformed(path, e.to_string()))?;
        he_circom::atomic_file::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::file(path, e))
    }

    fn check(&self) -> Result<(), String> {
        self.id_bytes()?;
        if self.parties < 2 || !(1..=self.parties).contains(&self.threshold) {
            return Err(format!(
                "{} parties with threshold {}",
                self.parties, self.threshold
            ));
        }
        if !self.domain_size.is_power_of_two() {
            return Err(format!(
                "domain_size {} is no power of two",
                self.domain_size
            ));
        }
        for role in he_net::certs::session_roles(self.parties) {
            if !self.addresses.contains_key(&role.slug()) {
                return Err(format!("no address for {}", role.slug()));
            }
        }
        if self.addresses.len() != self.parties as usize + 1 {
            return Err("addresses name roles outside the session".into());
        }
        Ok(())
    }

    /// The session id.
    ///
    /// # Errors
    /// A message when `id` is not 64 hex digits.
    pub fn id_bytes(&self) -> Result<[u8; 32], String> {
        let bytes = self.id.as_bytes();
        if bytes.len() != 64 {
            return Err("the id is not 64 hex digits".into());
        }
        let mut id = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let digits = std::str::from_utf8(pair).map_err(|_| "the id is not hex")?;
            id[i] = u8::from_str_radix(digits, 16).map_err(|_| "the id is not hex")?;
        }
        Ok(id)
    }

    /// The encryption context and the threshold session every role derives
    /// from this file: ≥128-bit parameters for the domain and parties.
    ///
    /// # Errors
    /// The prover's and engine's errors.
    pub fn session(&self) -> CliResult<Session> {
        let (parameters, _) = he_cosnark::parameters_for::<Fr>(self.domain_size, self.parties)?;
        let context = Context::new(&parameters)?;
        let id = self.id_bytes().map_err(CliError::Usage)?;
        Ok(Session::new(&context, id, self.parties)?)
    }

    /// The network configuration of role `me` with `credentials`, in a
    /// mesh of the server and `parties` (all of the session's parties when
    /// `None`: the key session, N-out-of-N proofs).
    ///
    /// # Errors
    /// [`CliError::Usage`] for a role outside the session or the mesh, or an
    /// address that does not parse.
    pub fn net_config(
        &self,
        me: PeerId,
        credentials: Credentials,
        parties: Option<&[u32]>,
    ) -> CliResult<NetConfig> {
        let all: Vec<u32> = (0..self.parties).collect();
        let parties = parties.unwrap_or(&all);
        let mut roles = BTreeMap::new();
        for role in std::iter::once(PeerId::Server).chain(parties.iter().map(|&i| PeerId::Party(i)))
        {
            let address = self
                .addresses
                .get(&role.slug())
                .ok_or_else(|| CliError::Usage(format!("{role} is not a role of this session")))?;
            roles.insert(role, address.clone());
        }
        let address = roles
            .get(&me)
            .ok_or_else(|| CliError::Usage(format!("{me} does not take part")))?;
        let listen: SocketAddr = address
            .parse()
            .map_err(|e| CliError::Usage(format!("the address of {me}, {address}: {e}")))?;
        let id = self.id_bytes().map_err(CliError::Usage)?;
        let mut config = NetConfig::new(me, listen, roles, credentials, SessionId(id));
        config.rounds = TAGS;
        Ok(config)
    }
}

/// A port on `host` that is free now.
fn free_port(host: &str) -> CliResult<u16> {
    let listener = TcpListener::bind((host, 0))
        .map_err(|e| CliError::Usage(format!("cannot find a free port on {host}: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| CliError::Usage(format!("cannot find a free port on {host}: {e}")))?
        .port();
    Ok(port)
}

/// Lower-case hex digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_reads_back_and_bad_fields_are_named() {
        let file = SessionFile::new(3, 2, 1 << 10, "127.0.0.1").unwrap();
        assert_eq!(file.id_bytes().unwrap().len(), 32);
        assert_eq!(file.addresses.len(), 4);
        let dir = std::env::temp_dir().join(format!("cosnark-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session.json");
        file.write(&path).unwrap();
        assert_eq!(SessionFile::read(&path).unwrap(), file);

        for (field, value) in [
            ("id", serde_json::json!("00")),
            ("threshold", serde_json::json!(4)),
            ("domain_size", serde_json::json!(1000)),
            ("addresses", serde_json::json!({"server": "127.0.0.1:1"})),
        ] {
            let mut json = serde_json::to_value(&file).unwrap();
            json[field] = value;
            std::fs::write(&path, json.to_string()).unwrap();
            let error = SessionFile::read(&path).unwrap_err().to_string();
            assert!(error.contains("session.json"), "{field}: {error}");
        }
        assert!(SessionFile::new(1, 1, 8, "127.0.0.1").is_err());
        assert!(SessionFile::new(3, 4, 8, "127.0.0.1").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
