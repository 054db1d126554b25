//! What a session binds shares to: the common reference seed of each run
//! and step, and the binding a share carries.

use helib_rs::threshold as engine;
use helib_rs::Ciphertext;
use sha2::{Digest, Sha256};

use super::Session;
use crate::error::Result;
use crate::message::{Binding, Step};

impl Session {
    /// The common reference seed of `run` and `step`: SHA-256 of the session
    /// id, the run and the step. Public, and distinct for every run, so no
    /// common polynomial is ever used twice.
    pub fn crs_seed(&self, run: u64, step: Step) -> engine::Seed {
        let mut h = Sha256::new();
        h.update(b"he-threshold common reference seed");
        h.update(self.id);
        h.update(run.to_le_bytes());
        h.update(step.id_bytes());
        h.finalize().into()
    }

    /// The binding of a share for `step` of `run` on `ciphertext`.
    pub(crate) fn binding_on(
        &self,
        run: u64,
        step: Step,
        ciphertext: &Ciphertext,
    ) -> Result<Binding> {
        Ok(Binding {
            run,
            step,
            level: ciphertext.level() as u32,
            subject: Self::ciphertext_digest(ciphertext)?,
            active: [0u8; 32],
        })
    }

    /// The binding of a key-generation share.
    pub(crate) fn binding_for_key(&self, run: u64, step: Step) -> Binding {
        Binding {
            run,
            step,
            level: self.context.max_level() as u32,
            subject: [0u8; 32],
            active: [0u8; 32],
        }
    }
}
