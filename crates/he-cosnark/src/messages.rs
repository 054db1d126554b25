//! The messages of one proof, each in the checked frame of [`crate::wire`]
//! and bound to its circuit, session, proof and sender. A receiver decodes
//! a message against what it expects ([`Expect`]) and gets a typed error
//! naming the sender for anything else.

use ark_ec::pairing::Pairing;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use he_threshold::{Aggregate, Session, ShareMessage};
use helib_rs::{Ciphertext, Context};

use crate::error::{Error, Result};
use crate::transport::Role;
use crate::wire::{self, Header, Kind, Section};

/// What a receiver expects of a message: its binding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
    pub circuit: [u8; 32],
    pub session: [u8; 32],
    pub proof: u64,
}

impl Expect {
    pub(crate) fn header(&self, kind: Kind, sender: Role) -> Header {
        Header {
            kind,
            circuit: self.circuit,
            session: self.session,
            proof: self.proof,
            sender,
        }
    }

    /// The sections of `bytes`, a message of `kind` from `from`.
    pub(crate) fn open<'a>(
        &self,
        bytes: &'a [u8],
        kind: Kind,
        from: Role,
    ) -> Result<Vec<Section<'a>>> {
        let (header, sections) =
            wire::decode(bytes).map_err(|reason| Error::Malformed { from, reason })?;
        let expected = self.header(kind, from);
        if header != expected {
            return Err(Error::WrongBinding {
                from,
                expected: expected.to_string(),
                got: header.to_string(),
            });
        }
        Ok(sections)
    }
}

/// `count` sections exactly, or a malformed-message error.
pub(crate) fn exactly<'a>(
    sections: Vec<Section<'a>>,
    count: usize,
    from: Role,
) -> Result<Vec<Section<'a>>> {
    if sections.len() != count {
        return Err(Error::Malformed {
            from,
            reason: format!("{} sections, expected {count}", sections.len()),
        });
    }
    Ok(sections)
}

/// A group element or field element in ark's compressed form.
pub(crate) fn point_bytes<T: CanonicalSerialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.compressed_size());
    // Serializing into a Vec cannot fail.
    let _ = value.serialize_compressed(&mut out);
    out
}

/// The bytes of a section that must be sealed (for a reader that checks
/// its trailer) or plain, as `sealed` says; `what` names it in the error.
fn section_bytes<'a>(
    section: Section<'a>,
    sealed: bool,
    from: Role,
    what: &str,
) -> Result<&'a [u8]> {
    match (section, sealed) {
        (Section::Sealed(bytes), true) | (Section::Plain(bytes), false) => Ok(bytes),
        (_, sealed) => {
            let [got, belongs] = if sealed {
                ["plain", "sealed"]
            } else {
                ["sealed", "plain"]
            };
            Err(Error::Malformed {
                from,
                reason: format!("{what}: a {got} section where a {belongs} one belongs"),
            })
        }
    }
}

/// A value in ark's compressed form, checked (on the curve, in the subgroup).
pub(crate) fn read_point<T: CanonicalDeserialize>(
    section: Section<'_>,
    from: Role,
    what: &str,
) -> Result<T> {
    T::deserialize_compressed(section_bytes(section, false, from, what)?).map_err(|e| {
        Error::Malformed {
            from,
            reason: format!("{what}: {e}"),
        }
    })
}

/// A share message of he-threshold (which checks its own checksum).
pub(crate) fn read_share(section: Section<'_>, from: Role) -> Result<ShareMessage> {
    ShareMessage::from_bytes(section_bytes(section, true, from, "share")?).map_err(|e| {
        Error::Malformed {
            from,
            reason: format!("share: {e}"),
        }
    })
}

/// A ciphertext of `context`.
pub(crate) fn read_ciphertext(
    context: &Context,
    section: Section<'_>,
    from: Role,
) -> Result<Ciphertext> {
    let bytes = section_bytes(section, true, from, "ciphertext")?;
    Ciphertext::from_bytes(context, bytes).map_err(|e| Error::Malformed {
        from,
        reason: format!("ciphertext: {e}"),
    })
}

/// A party's upload: shares to encryption of A's and B's components and of
/// r and s·X^(N−1), and its shares of the proof's A (G1), B (G2) and B (G1).
pub(crate) struct Upload<E: Pairing> {
    pub a: Vec<ShareMessage>,
    pub b: Vec<ShareMessage>,
    pub r: ShareMessage,
    pub s: ShareMessage,
    pub a_point: E::G1Affine,
    pub b_point: E::G2Affine,
    pub b_g1: E::G1Affine,
}

impl<E: Pairing> Upload<E> {
    pub(crate) fn encode(&self, expect: &Expect, sender: Role) -> Vec<u8> {
        let shares = || self.a.iter().chain(&self.b).chain([&self.r, &self.s]);
        let points = [
            point_bytes(&self.a_point),
            point_bytes(&self.b_point),
            point_bytes(&self.b_g1),
        ];
        let body = (shares().map(ShareMessage::encoded_len))
            .chain(points.iter().map(Vec::len))
            .map(|len| len + wire::SECTION_HEADER)
            .sum();
        let mut message = wire::Writer::new(&expect.header(Kind::Upload, sender), body);
        for share in shares() {
            message.sealed(|out| share.write_to(out));
        }
        for point in &points {
            message.plain(point);
        }
        message.finish()
    }

    /// The upload of `components` components per interpolant in `bytes`,
    /// its frame and points checked and its shares left unread: the
    /// server reads each when it sums it ([`UploadView::share`]), so no
    /// copy of the whole upload is ever made.
    pub(crate) fn view<'a>(
        bytes: &'a [u8],
        expect: &Expect,
        from: Role,
        components: usize,
    ) -> Result<UploadView<'a, E>> {
        let shares = 2 * components + 2;
        let mut sections = exactly(expect.open(bytes, Kind::Upload, from)?, shares + 3, from)?;
        let points = sections.split_off(shares);
        Ok(UploadView {
            from,
            components,
            shares: sections,
            a_point: read_point(points[0], from, "A")?,
            b_point: read_point(points[1], from, "B")?,
            b_g1: read_point(points[2], from, "B in G1")?,
        })
    }
}

/// Which share of an upload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UploadShare {
    /// Of A's component k.
    A(usize),
    /// Of B's component k.
    B(usize),
    /// Of r.
    R,
    /// Of s·X^(N−1).
    S,
}

/// A checked upload frame whose shares are read one at a time
/// ([`Upload::view`]).
pub(crate) struct UploadView<'a, E: Pairing> {
    from: Role,
    components: usize,
    shares: Vec<Section<'a>>,
    pub a_point: E::G1Affine,
    pub b_point: E::G2Affine,
    pub b_g1: E::G1Affine,
}

impl<E: Pairing> UploadView<'_, E> {
    /// The share `which`, read (and its checksum checked) now.
    ///
    /// # Errors
    /// [`Error::Malformed`] naming the sender for a share that does not
    /// parse or a component past the upload's.
    pub(crate) fn share(&self, which: UploadShare) -> Result<ShareMessage> {
        let c = self.components;
        let index = match which {
            UploadShare::A(k) if k < c => k,
            UploadShare::B(k) if k < c => c + k,
            UploadShare::R => 2 * c,
            UploadShare::S => 2 * c + 1,
            UploadShare::A(k) | UploadShare::B(k) => {
                return Err(Error::Malformed {
                    from: self.from,
                    reason: format!("no component {k} in an upload of {c}"),
                })
            }
        };
        read_share(self.shares[index], self.from)
    }
}

/// The server's answer to the uploads: the product's components (of size 3
/// at the upload level), and the opened A and B in G1.
pub(crate) struct Broadcast<E: Pairing> {
    pub product: Vec<Ciphertext>,
    pub a: E::G1Affine,
    pub b_g1: E::G1Affine,
}

impl<E: Pairing> Broadcast<E> {
    pub(crate) fn encode(&self, expect: &Expect) -> Result<Vec<u8>> {
        let points = [point_bytes(&self.a), point_bytes(&self.b_g1)];
        let mut body = points.iter().map(|p| p.len() + wire::SECTION_HEADER).sum();
        for ct in &self.product {
            body += ct.serialized_len()? + wire::SECTION_HEADER;
        }
        let mut message = wire::Writer::new(&expect.header(Kind::Broadcast, Role::Server), body);
        for ct in &self.product {
            message.sealed(|out| ct.write_bytes(out))?;
        }
        for point in &points {
            message.plain(point);
        }
        Ok(message.finish())
    }

    /// A broadcast of `(components, level)`: that many products at that
    /// level.
    pub(crate) fn decode(
        bytes: &[u8],
        expect: &Expect,
        context: &Context,
        (components, level): (usize, usize),
    ) -> Result<Self> {
        let from = Role::Server;
        let sections = exactly(
            expect.open(bytes, Kind::Broadcast, from)?,
            components + 2,
            from,
        )?;
        let product = sections[..components]
            .iter()
            .enumerate()
            .map(|(index, &s)| {
                let ct = read_ciphertext(context, s, from)?;
                if ct.level() != level {
                    return Err(Error::Malformed {
                        from,
                        reason: format!(
                            "product {index} is at level {}, not at the upload level {level}",
                            ct.level()
                        ),
                    });
                }
                Ok(ct)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            product,
            a: read_point(sections[components], from, "A")?,
            b_g1: read_point(sections[components + 1], from, "B in G1")?,
        })
    }
}

/// A list of he-threshold share messages (encryption to shares of every
/// ciphertext of the broadcast, in its order).
pub(crate) fn encode_shares(shares: &[ShareMessage], expect: &Expect, sender: Role) -> Vec<u8> {
    let body = (shares.iter())
        .map(|s| s.encoded_len() + wire::SECTION_HEADER)
        .sum();
    let mut message = wire::Writer::new(&expect.header(Kind::Convert, sender), body);
    for share in shares {
        message.sealed(|out| share.write_to(out));
    }
    message.finish()
}

pub(crate) fn decode_shares(
    bytes: &[u8],
    expect: &Expect,
    from: Role,
    count: usize,
) -> Result<Vec<ShareMessage>> {
    exactly(expect.open(bytes, Kind::Convert, from)?, count, from)?
        .into_iter()
        .map(|s| read_share(s, from))
        .collect()
}

/// The sums of every participant's encryption-to-shares shares, one per
/// product, for the designated party to open.
pub(crate) fn encode_aggregates(aggregates: &[Aggregate], expect: &Expect) -> Vec<u8> {
    let owned: Vec<Vec<u8>> = aggregates.iter().map(Aggregate::to_bytes).collect();
    let sections: Vec<Section<'_>> = owned.iter().map(|a| Section::Sealed(a)).collect();
    wire::encode(&expect.header(Kind::Aggregates, Role::Server), &sections)
}

pub(crate) fn decode_aggregates(
    bytes: &[u8],
    expect: &Expect,
    session: &Session,
    count: usize,
) -> Result<Vec<Aggregate>> {
    let from = Role::Server;
    exactly(expect.open(bytes, Kind::Aggregates, from)?, count, from)?
        .into_iter()
        .map(|s| {
            Aggregate::from_bytes(session, section_bytes(s, true, from, "aggregate")?).map_err(
                |e| Error::Malformed {
                    from,
                    reason: format!("aggregate: {e}"),
                },
            )
        })
        .collect()
}

/// A party's share of C.
pub(crate) fn encode_c_share<E: Pairing>(
    c: &E::G1Affine,
    expect: &Expect,
    sender: Role,
) -> Vec<u8> {
    wire::encode(
        &expect.header(Kind::CShare, sender),
        &[Section::Plain(&point_bytes(c))],
    )
}

pub(crate) fn decode_c_share<E: Pairing>(
    bytes: &[u8],
    expect: &Expect,
    from: Role,
) -> Result<E::G1Affine> {
    let sections = exactly(expect.open(bytes, Kind::CShare, from)?, 1, from)?;
    read_point(sections[0], from, "C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_of_the_wrong_seal_is_refused_naming_both() {
        let from = Role::Party(2);
        let share = read_share(Section::Plain(b"not sealed"), from).unwrap_err();
        assert!(
            share
                .to_string()
                .contains("share: a plain section where a sealed one belongs"),
            "{share}"
        );
        let point = read_point::<u64>(Section::Sealed(&[0u8; 40]), from, "A").unwrap_err();
        assert!(
            point
                .to_string()
                .contains("A: a sealed section where a plain one belongs"),
            "{point}"
        );
        assert_eq!(
            section_bytes(Section::Sealed(b"x"), true, from, "y").unwrap(),
            b"x"
        );
    }

    #[test]
    fn a_broadcast_of_products_at_another_level_is_refused_naming_the_server() {
        use ark_bn254::Bn254;
        use ark_ec::AffineRepr;
        use helib_rs::{Parameters, Plaintext, SecretKey};

        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let ct = sk
            .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
            .unwrap();
        let product = ct.multiply(&ct).unwrap();
        let top = product.level();
        let expect = Expect {
            circuit: [1; 32],
            session: [2; 32],
            proof: 3,
        };
        let generator = <Bn254 as Pairing>::G1Affine::generator();
        let encode = |product: Vec<Ciphertext>| {
            let broadcast = Broadcast::<Bn254> {
                product,
                a: generator,
                b_g1: generator,
            };
            broadcast.encode(&expect).unwrap()
        };
        let honest = encode(vec![product.try_clone().unwrap()]);
        let decoded = Broadcast::<Bn254>::decode(&honest, &expect, &context, (1, top)).unwrap();
        assert_eq!(decoded.product[0].level(), top);

        let switched = encode(vec![product.mod_switch_to(top - 1).unwrap()]);
        let err = Broadcast::<Bn254>::decode(&switched, &expect, &context, (1, top))
            .err()
            .unwrap();
        assert!(
            matches!(&err, Error::Malformed { from: Role::Server, reason }
                if reason.contains(&format!("product 0 is at level {}", top - 1))),
            "{err}"
        );
    }
}
