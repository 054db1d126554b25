//! The checked reader of ptau files.

use super::*;

/// A checked ptau file: the container, the header, and every section's
/// size against the header's power; points are decoded on request.
///
/// Reads snarkjs's files as well as [`write_prepared`]'s: the
/// contributions section may hold any contributions (its body is not
/// interpreted), and the Lagrange sections 12–15 are optional but all or
/// none.
#[derive(Clone, Debug)]
pub struct Ptau<'a> {
    header: PtauHeader,
    file: BinFile<'a>,
    prepared: bool,
}

impl<'a> Ptau<'a> {
    /// Parses and checks the layout of a ptau file.
    ///
    /// # Errors
    /// Any [`Error`] of the container ([`BinFile::parse`]);
    /// [`Error::WrongPrime`] for another curve's modulus; an `n8` other
    /// than 32, a power outside [`MIN_POWER`]`..=`[`MAX_POWER`], a
    /// ceremony power below it, a section whose size does not fit the
    /// power, or only some of sections 12–15 ([`Error::Invalid`],
    /// [`Error::MissingSection`]).
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let file = BinFile::parse(KIND, bytes, PTAU_VERSION)?;
        let mut h = file.reader(HEADER)?;
        let n8 = h.u32("n8")?;
        if n8 != FIELD_BYTES as u32 {
            return Err(Error::invalid(
                h.loc("n8"),
                format!("{n8} bytes per field element; BN254 has {FIELD_BYTES}"),
            ));
        }
        if !is_modulus::<Fq>(h.take(FIELD_BYTES as u64, "q")?) {
            return Err(Error::WrongPrime {
                at: h.loc("q"),
                expected: "base field",
            });
        }
        let power = h.u32("power")?;
        if check_power(power).is_err() {
            return Err(Error::invalid(
                h.loc("power"),
                format!("power {power} is not from {MIN_POWER} to {MAX_POWER}"),
            ));
        }
        let ceremony_power = h.u32("ceremonyPower")?;
        if ceremony_power < power {
            return Err(Error::invalid(
                h.loc("ceremonyPower"),
                format!("ceremony power {ceremony_power} is below the power {power}"),
            ));
        }
        h.finish("ceremonyPower")?;
        let mut lagrange = 0;
        for (section, size) in layout(power)? {
            let body = match file.optional_section(section) {
                Some(body) => body,
                None if section >= LAGRANGE_G1 => continue,
                None => {
                    return Err(Error::MissingSection {
                        kind: KIND,
                        section,
                    })
                }
            };
            if section >= LAGRANGE_G1 {
                lagrange += 1;
            }
            let fits = match section {
                HEADER => true,
                CONTRIBUTIONS => body.len() >= 4,
                _ => body.len() as u64 == size,
            };
            if !fits {
                return Err(Error::invalid(
                    Location::section(KIND, section, "section size"),
                    format!("{} bytes; power {power} gives {size}", body.len()),
                ));
            }
        }
        if lagrange != 0 && lagrange != 4 {
            let section = (LAGRANGE_G1..=LAGRANGE_BETA_G1)
                .find(|s| file.optional_section(*s).is_none())
                .unwrap_or(LAGRANGE_G1);
            return Err(Error::MissingSection {
                kind: KIND,
                section,
            });
        }
        Ok(Ptau {
            header: PtauHeader {
                power,
                ceremony_power,
            },
            file,
            prepared: lagrange == 4,
        })
    }

    /// The header.
    pub fn header(&self) -> PtauHeader {
        self.header
    }

    /// Whether the file has the Lagrange sections 12–15 (is prepared for
    /// phase 2).
    pub fn is_prepared(&self) -> bool {
        self.prepared
    }

    /// The body of section `section` (sizes already checked).
    ///
    /// # Errors
    /// [`Error::MissingSection`].
    pub fn section(&self, section: u32) -> Result<&'a [u8]> {
        self.file.section(section)
    }

    /// The points of a G1 section (2, 4, 5, 12, 14, 15), each checked on
    /// the curve.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another section;
    /// [`Error::MissingSection`]; [`Error::NotCanonical`] coordinates;
    /// [`Error::NotOnCurve`].
    pub fn g1_points(&self, section: u32) -> Result<Vec<G1Affine>> {
        self.points(section, G1_BYTES, |r, field| r.g1(field))
    }

    /// The points of a G2 section (3, 6, 13), each checked on the curve
    /// and in the prime-order subgroup.
    ///
    /// # Errors
    /// As [`g1_points`](Self::g1_points), and [`Error::NotInSubgroup`].
    pub fn g2_points(&self, section: u32) -> Result<Vec<G2Affine>> {
        self.points(section, G2_BYTES, |r, field| r.g2(field))
    }

    fn points<P>(
        &self,
        section: u32,
        size: usize,
        read: impl Fn(&mut crate::binfile::Reader<'a>, &str) -> Result<P>,
    ) -> Result<Vec<P>> {
        if !point_sections(self.header.power)
            .iter()
            .any(|(s, bytes, _, _)| *s == section && *bytes == size)
        {
            return Err(Error::InvalidArgument(format!(
                "ptau section {section} ({}) does not hold {} points",
                KIND.section_name(section),
                if size == G1_BYTES { "G1" } else { "G2" }
            )));
        }
        let mut r = self.file.reader(section)?;
        let count = r.remaining() / size;
        let mut points = Vec::with_capacity(count);
        for i in 0..count as u64 {
            r.index = Some(i);
            points.push(read(&mut r, "point")?);
        }
        Ok(points)
    }
}
