//! Export and import of what a party keeps between processes (secret): its
//! N-out-of-N state ([`Party::export_secret`]) and its re-shared key
//! ([`ShamirShare::export_secret`]).
//!
//! Both take the engine's consent token ([`ExportSecret`]), as
//! [`SecretKey::export_secret`] does: the bytes are the party's secret, and
//! the call that writes them says so. They come in a [`Zeroizing`] buffer,
//! written in place (the capacity is reserved up front, so no reallocation
//! leaves a copy behind), and import reads straight from the caller's slice
//! into the engine (the party's key) or into one wiped buffer (the residues
//! of a re-shared key). Neither format is encrypted or authenticated: the
//! checksum trailer catches corruption, not forgery. Encrypt the bytes before
//! they leave the process or the machine, and wipe them after import.
//!
//! Each is bound to its session: import refuses bytes of another context
//! (fingerprint), session id, number of parties or security parameter
//! ([`Error::ForeignSession`] naming the field).

use helib_rs::threshold as engine;
use helib_rs::zeroize::Zeroizing;
use helib_rs::{ExportSecret, SecretKey};

use crate::checksum::{append_checksum, CHECKSUM_BYTES};
use crate::error::{Error, Result};
use crate::message::{open_frame, write_frame_header, Reader, FRAME_HEADER};
use crate::party::Party;
use crate::residues::{extend_from_le_bytes, with_le_bytes};
use crate::session::Session;
use crate::shamir::ShamirShare;

const PARTY_MAGIC: &[u8; 4] = b"HETP";
/// Version 2: the checksum is BLAKE3 (version 1 ended with SHA-256).
const PARTY_VERSION: u8 = 2;
/// Frame header, parties, security bits, index, key length.
const PARTY_HEADER: usize = FRAME_HEADER + 4 + 4 + 4 + 8;
const PARTY_WHAT: &str = "party state";

const SHARE_MAGIC: &[u8; 4] = b"HETR";
/// Version 2: the checksum is BLAKE3 (version 1 ended with SHA-256).
const SHARE_VERSION: u8 = 2;
/// Frame header, parties, security bits, index, threshold, residue count.
const SHARE_HEADER: usize = FRAME_HEADER + 4 + 4 + 4 + 4 + 8;
const SHARE_WHAT: &str = "re-shared key";

/// Appends the session's frame header, number of parties and security bits.
fn write_session(out: &mut Vec<u8>, magic: &[u8; 4], version: u8, session: &Session) {
    write_frame_header(out, magic, version, session.fingerprint(), session.id());
    out.extend_from_slice(&session.parties().to_le_bytes());
    out.extend_from_slice(&session.security_bits().to_le_bytes());
}

/// Reads the number of parties, the security bits and the party index
/// written after the frame header, and checks them against `session`.
fn read_session(r: &mut Reader<'_>, session: &Session, what: &'static str) -> Result<u32> {
    if r.u32()? != session.parties() {
        return Err(Error::ForeignSession {
            what,
            field: "number of parties",
        });
    }
    if r.u32()? != session.security_bits() {
        return Err(Error::ForeignSession {
            what,
            field: "security bits",
        });
    }
    let index = r.u32()?;
    if index >= session.parties() {
        return Err(Error::UnknownParty {
            party: index,
            parties: session.parties(),
        });
    }
    Ok(index)
}

impl Party {
    /// Exports the party's long-lived state (secret): its index and its
    /// secret share `s_i`, bound to its session. **The bytes are the
    /// party's key share.** Layout (integers little-endian): magic `HETP`,
    /// version 2, context fingerprint (32 bytes), session id (32), number of
    /// parties (`u32`), security bits (`u32`), index (`u32`), the length of
    /// the key (`u64`) and the key in the engine's checked secret-key format
    /// ([`SecretKey::export_secret`]), then a checksum of all of it (BLAKE3).
    ///
    /// A party in the middle of a relinearization-key run (committed or
    /// opened, round 2 not made) refuses: the run's ephemeral secret is not
    /// exported, so a restored party could not finish it. Finish the run
    /// ([`relin_key_round2`](Self::relin_key_round2)) or drop it
    /// ([`abandon_relin_key_run`](Self::abandon_relin_key_run)) first.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] during a relinearization-key run; the
    /// engine's error if its export fails internally.
    pub fn export_secret(&self, consent: ExportSecret) -> Result<Zeroizing<Vec<u8>>> {
        if let Some((run, stage)) = self.relin_run_in_progress() {
            return Err(Error::InvalidArgument(format!(
                "party {} has {stage} round 1 of relinearization-key run {run}: its ephemeral \
                 secret is not exported; finish the run or abandon it before exporting",
                self.index()
            )));
        }
        let key = self.secret_share().export_secret(consent)?;
        let mut out = Zeroizing::new(Vec::with_capacity(
            PARTY_HEADER + key.len() + CHECKSUM_BYTES,
        ));
        write_session(&mut out, PARTY_MAGIC, PARTY_VERSION, self.session());
        out.extend_from_slice(&self.index().to_le_bytes());
        out.extend_from_slice(&(key.len() as u64).to_le_bytes());
        out.extend_from_slice(&key);
        append_checksum(&mut out);
        Ok(out)
    }

    /// Restores a party of `session` from [`export_secret`](Self::export_secret)'s
    /// bytes: the same index and secret share, no relinearization-key run in
    /// progress. Checks the checksum, magic and version, the context
    /// fingerprint, session id, number of parties and security bits against
    /// `session`, the index, and the key through the engine's checked import
    /// under the session's context (frame, checksum, fingerprint, ternary
    /// coefficients). The key goes from `bytes` straight into engine memory
    /// that is wiped; wipe `bytes` afterwards (a [`Zeroizing`] buffer does so
    /// when dropped).
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] naming the field for a truncated,
    /// corrupted or inconsistent input (a key the engine refuses included);
    /// [`Error::ForeignSession`] for state of another context, session,
    /// number of parties or security parameter; [`Error::UnknownParty`] for
    /// an index outside the session.
    pub fn import_secret(session: &Session, bytes: &[u8]) -> Result<Party> {
        let bad = |detail: String| Error::MalformedMessage(format!("{PARTY_WHAT}: {detail}"));
        let mut r = open_frame(
            session,
            bytes,
            PARTY_WHAT,
            PARTY_MAGIC,
            PARTY_VERSION,
            PARTY_HEADER,
        )?;
        let index = read_session(&mut r, session, PARTY_WHAT)?;
        let len = r.u64()?;
        if len != r.bytes.len() as u64 {
            return Err(bad(format!(
                "a key length of {len} bytes where {} remain",
                r.bytes.len()
            )));
        }
        let secret = SecretKey::import_secret(session.context(), r.bytes).map_err(|e| match e {
            helib_rs::Error::Malformed(_) | helib_rs::Error::ContextMismatch => {
                bad(format!("secret key share: {e}"))
            }
            other => Error::Engine(other),
        })?;
        Ok(Party::from_parts(session, index, secret))
    }
}

impl ShamirShare {
    /// Exports the re-shared key `S_j` (secret): any `threshold` of these
    /// determine the collective secret. Layout (integers little-endian):
    /// magic `HETR`, version 2, context fingerprint (32 bytes), session id
    /// (32), number of parties (`u32`), security bits (`u32`), index
    /// (`u32`), threshold (`u32`), residue count (`u64`) and the residues
    /// (`u64` each: a chain share at the top level, NTT form, standard
    /// residues, prime-major), then a checksum of all of it (BLAKE3).
    ///
    /// # Errors
    /// None at present; `Result` leaves room for a fallible engine export.
    pub fn export_secret(&self, consent: ExportSecret) -> Result<Zeroizing<Vec<u8>>> {
        let ExportSecret::IUnderstandTheBytesAreTheKey = consent;
        let residues = self.residues();
        let mut out = Zeroizing::new(Vec::with_capacity(
            SHARE_HEADER + 8 * residues.len() + CHECKSUM_BYTES,
        ));
        write_session(&mut out, SHARE_MAGIC, SHARE_VERSION, self.session());
        out.extend_from_slice(&self.index().to_le_bytes());
        out.extend_from_slice(&self.threshold().to_le_bytes());
        out.extend_from_slice(&(residues.len() as u64).to_le_bytes());
        with_le_bytes(residues, |bytes| out.extend_from_slice(bytes));
        append_checksum(&mut out);
        Ok(out)
    }

    /// Restores a re-shared key of `session` from
    /// [`export_secret`](Self::export_secret)'s bytes. Checks the checksum,
    /// magic and version, the context fingerprint, session id, number of
    /// parties and security bits against `session`, the index, the threshold
    /// (`1..=parties`), the residue count (one chain share at the top level)
    /// and every residue reduced modulo its prime. The residues are read
    /// into one wiped buffer; wipe `bytes` afterwards.
    ///
    /// # Errors
    /// [`Error::MalformedMessage`] naming the field for a truncated,
    /// corrupted or inconsistent input; [`Error::ForeignSession`] for a key
    /// of another context, session, number of parties or security parameter;
    /// [`Error::UnknownParty`] for an index outside the session.
    pub fn import_secret(session: &Session, bytes: &[u8]) -> Result<ShamirShare> {
        let bad = |detail: String| Error::MalformedMessage(format!("{SHARE_WHAT}: {detail}"));
        let mut r = open_frame(
            session,
            bytes,
            SHARE_WHAT,
            SHARE_MAGIC,
            SHARE_VERSION,
            SHARE_HEADER,
        )?;
        let index = read_session(&mut r, session, SHARE_WHAT)?;
        let threshold = r.u32()?;
        if threshold == 0 || threshold > session.parties() {
            return Err(bad(format!(
                "threshold {threshold} outside 1..={}",
                session.parties()
            )));
        }
        let context = session.context();
        let expected = engine::chain_share_len(context, context.max_level());
        let count = r.u64()?;
        if count != expected as u64 {
            return Err(bad(format!(
                "a residue count of {count}, expected {expected}"
            )));
        }
        if r.bytes.len() != 8 * expected {
            return Err(bad(format!(
                "{} bytes of residues for a count of {count}",
                r.bytes.len()
            )));
        }
        let mut residues = Zeroizing::new(Vec::with_capacity(expected));
        extend_from_le_bytes(&mut residues, r.bytes);
        let n = context.ring_degree();
        let primes = &context.chain_primes()[..=context.max_level()];
        for (prime, (block, &q)) in residues.chunks_exact(n).zip(primes).enumerate() {
            if let Some(k) = block.iter().position(|&x| x >= q) {
                return Err(bad(format!("residue {k} of prime {prime} is not reduced")));
            }
        }
        ShamirShare::from_residues(session, index, threshold, residues)
    }
}
