//! The Iris network in stochastic computing: conventional and concatenated, in the clear and over packed BGV.
//!
//! The concatenated form follows the paper: the activation is expanded,
//! z_j² = (1/25)·Σ_{a,b} t_a·t_b with t_a = w_{ja}·x_a (t₄ = b_j), so each
//! hidden unit is 25 product streams of length L, each made from two
//! independent copies of the inputs and weights (so that t_a·t_a is unbiased);
//! each output concatenates v_{kj}·(those 25 streams) for every j with 25
//! streams of its bias: 125·L bits representing o_k exactly in expectation.
//!
//! The circuit is written once over [`ScOps`] and run on the plaintext model
//! ([`Plain`]) and on [`PackedHesc`] — so the same streams give the same bits.

use ark_ff::{FftField, PrimeField};
use rand::Rng;

use super::network::{Network, HIDDEN, INPUTS, LAYER1_TERMS, LAYER2_TERMS, OUTPUTS};
use hesc::model;
use hesc::Selection;
use hesc::{B2s, Encoding, StochasticNumber};
use hesc::{Error, Result};
use hesc::{PackedHesc, PackedStream};

const IBP: Encoding = Encoding::InvertedBipolar;
/// Product streams per hidden unit in the expanded activation.
pub const HIDDEN_PARTS: usize = LAYER1_TERMS * LAYER1_TERMS;
/// Streams concatenated into each output.
pub const OUTPUT_PARTS: usize = LAYER2_TERMS * HIDDEN_PARTS;

/// The two operations the concatenated circuit needs.
pub trait ScOps {
    /// A (multi-lane) stochastic stream.
    type Stream;
    /// Stochastic multiplication (inverted bipolar XOR).
    ///
    /// # Errors
    /// Whatever the implementation reports.
    fn xor(&self, a: &Self::Stream, b: &Self::Stream) -> Result<Self::Stream>;
    /// Concatenated addition of owned parts (moved, not copied).
    ///
    /// # Errors
    /// Whatever the implementation reports.
    fn concat(&self, parts: Vec<Self::Stream>) -> Result<Self::Stream>;
}

/// The plaintext model: a stream is one stochastic number per lane.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl ScOps for Plain {
    type Stream = Vec<StochasticNumber>;

    fn xor(&self, a: &Self::Stream, b: &Self::Stream) -> Result<Self::Stream> {
        a.iter()
            .zip(b)
            .map(|(x, y)| model::multiply(x, y))
            .collect()
    }

    fn concat(&self, parts: Vec<Self::Stream>) -> Result<Self::Stream> {
        let lanes = parts.first().map_or(0, |p| p.len());
        (0..lanes)
            .map(|i| {
                let lane: Vec<&StochasticNumber> = parts.iter().map(|p| &p[i]).collect();
                model::concat_add(&lane)
            })
            .collect()
    }
}

impl<F: PrimeField + FftField> ScOps for PackedHesc<F> {
    type Stream = PackedStream;

    fn xor(&self, a: &PackedStream, b: &PackedStream) -> Result<PackedStream> {
        PackedHesc::xor(self, a, b)
    }

    fn concat(&self, parts: Vec<PackedStream>) -> Result<PackedStream> {
        PackedHesc::concat_owned(self, parts)
    }
}

/// The client's streams: two independent copies of each input feature.
#[derive(Debug, Clone)]
pub struct InputStreams<S> {
    /// Index `copy·4 + a`.
    pub x: Vec<S>,
}

/// The model's streams (the paper's "already encrypted" model).
#[derive(Debug, Clone)]
pub struct ModelStreams<S> {
    /// First-layer weights, index `copy·16 + j·4 + a`.
    pub w1: Vec<S>,
    /// First-layer biases, index `copy·4 + j`.
    pub b1: Vec<S>,
    /// Second-layer weights, one independent stream per hidden part, index `k·100 + j·25 + m`.
    pub w2: Vec<S>,
    /// Second-layer biases, 25 streams each, index `k·25 + m`.
    pub b2: Vec<S>,
}

/// Plaintext streams: one stochastic number per lane.
pub type Lanes = Vec<StochasticNumber>;

fn lanes_of(value: f64, lanes: usize, len: usize, rng: &mut impl Rng) -> Result<Lanes> {
    (0..lanes)
        .map(|_| StochasticNumber::encode(value, len, IBP, B2s::Bernoulli, rng))
        .collect()
}

impl InputStreams<Lanes> {
    /// B2S of the (normalized) `samples`, one lane per sample, two copies each.
    ///
    /// # Errors
    /// [`Error::ValueOutOfRange`] for a feature outside \[−1, 1\].
    pub fn generate(samples: &[[f64; INPUTS]], len: usize, rng: &mut impl Rng) -> Result<Self> {
        let mut x = Vec::with_capacity(2 * INPUTS);
        for _copy in 0..2 {
            for a in 0..INPUTS {
                x.push(
                    samples
                        .iter()
                        .map(|s| StochasticNumber::encode(s[a], len, IBP, B2s::Bernoulli, rng))
                        .collect::<Result<Lanes>>()?,
                );
            }
        }
        Ok(Self { x })
    }
}

impl ModelStreams<Lanes> {
    /// B2S of every weight, independently per lane.
    ///
    /// # Errors
    /// [`Error::ValueOutOfRange`] for a weight outside \[−1, 1\].
    pub fn generate(net: &Network, lanes: usize, len: usize, rng: &mut impl Rng) -> Result<Self> {
        let mut gen = |v: f64| lanes_of(v, lanes, len, rng);
        let mut w1 = Vec::new();
        let mut b1 = Vec::new();
        for _copy in 0..2 {
            for j in 0..HIDDEN {
                for a in 0..INPUTS {
                    w1.push(gen(net.w1[j][a])?);
                }
            }
        }
        for _copy in 0..2 {
            for j in 0..HIDDEN {
                b1.push(gen(net.b1[j])?);
            }
        }
        let mut w2 = Vec::new();
        let mut b2 = Vec::new();
        for k in 0..OUTPUTS {
            for j in 0..HIDDEN {
                for _m in 0..HIDDEN_PARTS {
                    w2.push(gen(net.w2[k][j])?);
                }
            }
        }
        for k in 0..OUTPUTS {
            for _m in 0..HIDDEN_PARTS {
                b2.push(gen(net.b2[k])?);
            }
        }
        Ok(Self { w1, b1, w2, b2 })
    }
}

impl<S> InputStreams<S> {
    /// Applies `f` (e.g. encryption) to every stream.
    ///
    /// # Errors
    /// The first error of `f`.
    pub fn map<T>(&self, f: impl FnMut(&S) -> Result<T>) -> Result<InputStreams<T>> {
        Ok(InputStreams {
            x: self.x.iter().map(f).collect::<Result<_>>()?,
        })
    }
}

impl<S> ModelStreams<S> {
    /// Applies `f` (e.g. encryption) to every stream.
    ///
    /// # Errors
    /// The first error of `f`.
    pub fn map<T>(&self, mut f: impl FnMut(&S) -> Result<T>) -> Result<ModelStreams<T>> {
        let mut all = |v: &[S]| v.iter().map(&mut f).collect::<Result<Vec<T>>>();
        Ok(ModelStreams {
            w1: all(&self.w1)?,
            b1: all(&self.b1)?,
            w2: all(&self.w2)?,
            b2: all(&self.b2)?,
        })
    }

    /// Checks the stream counts (the fields are public, so a caller may have
    /// built a malformed set).
    fn check(&self) -> Result<()> {
        check_len(
            "first-layer weight streams",
            self.w1.len(),
            2 * HIDDEN * INPUTS,
        )?;
        check_len("first-layer bias streams", self.b1.len(), 2 * HIDDEN)?;
        check_len(
            "second-layer weight streams",
            self.w2.len(),
            OUTPUTS * HIDDEN * HIDDEN_PARTS,
        )?;
        check_len(
            "second-layer bias streams",
            self.b2.len(),
            OUTPUTS * HIDDEN_PARTS,
        )
    }

    /// The number of streams.
    pub fn len(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + self.b2.len()
    }

    /// Whether there is no stream.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn check_len(what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{got} {what}, expected {want}"
        )))
    }
}

/// Layer 1 with the expanded x² activation: for each hidden unit j its 25
/// product streams t_a·t_b (index a·5 + b), t from copy 1 and copy 2.
///
/// # Errors
/// [`Error::InvalidArgument`] when a stream set has the wrong size;
/// whatever the operations report.
pub fn layer1<B: ScOps>(
    ops: &B,
    x: &InputStreams<B::Stream>,
    m: &ModelStreams<B::Stream>,
) -> Result<Vec<Vec<B::Stream>>> {
    check_len("input streams", x.x.len(), 2 * INPUTS)?;
    m.check()?;
    let mut hidden = Vec::with_capacity(HIDDEN);
    for j in 0..HIDDEN {
        let mut t: Vec<Vec<B::Stream>> = Vec::with_capacity(2);
        for copy in 0..2 {
            let products = (0..INPUTS)
                .map(|a| ops.xor(&m.w1[copy * 16 + j * INPUTS + a], &x.x[copy * INPUTS + a]))
                .collect::<Result<Vec<_>>>()?;
            t.push(products);
        }
        let term = |copy: usize, a: usize| {
            if a < INPUTS {
                &t[copy][a]
            } else {
                &m.b1[copy * HIDDEN + j]
            }
        };
        let mut parts = Vec::with_capacity(HIDDEN_PARTS);
        for a in 0..LAYER1_TERMS {
            for b in 0..LAYER1_TERMS {
                parts.push(ops.xor(term(0, a), term(1, b))?);
            }
        }
        hidden.push(parts);
    }
    Ok(hidden)
}

/// Layer 2: per output, v_{kj}·(each hidden part) for every j, then the
/// bias streams, all concatenated (125 streams of length L).
///
/// # Errors
/// [`Error::InvalidArgument`] when a stream set has the wrong size;
/// whatever the operations report.
pub fn layer2<B: ScOps>(
    ops: &B,
    hidden: &[Vec<B::Stream>],
    m: &ModelStreams<B::Stream>,
) -> Result<Vec<B::Stream>>
where
    B::Stream: Clone,
{
    m.check()?;
    check_len("hidden units", hidden.len(), HIDDEN)?;
    for parts in hidden {
        check_len("hidden parts", parts.len(), HIDDEN_PARTS)?;
    }
    (0..OUTPUTS)
        .map(|k| {
            let mut products = Vec::with_capacity(HIDDEN * HIDDEN_PARTS);
            for (j, parts) in hidden.iter().enumerate() {
                for (p, part) in parts.iter().enumerate() {
                    products.push(ops.xor(
                        &m.w2[k * HIDDEN * HIDDEN_PARTS + j * HIDDEN_PARTS + p],
                        part,
                    )?);
                }
            }
            products.extend_from_slice(&m.b2[k * HIDDEN_PARTS..(k + 1) * HIDDEN_PARTS]);
            ops.concat(products)
        })
        .collect()
}

/// The outputs o per lane from the decrypted (or plaintext) output streams.
pub fn outputs_per_lane(outputs: &[Lanes]) -> Vec<[f64; OUTPUTS]> {
    let lanes = outputs.first().map_or(0, Vec::len);
    (0..lanes)
        .map(|i| std::array::from_fn(|k| outputs.get(k).map_or(0.0, |o| o[i].value())))
        .collect()
}

/// Concatenated SC inference of one batch in the clear: outputs per sample.
///
/// # Errors
/// [`Error::ValueOutOfRange`] for inputs or weights outside \[−1, 1\].
pub fn concatenated(
    net: &Network,
    samples: &[[f64; INPUTS]],
    len: usize,
    rng: &mut impl Rng,
) -> Result<Vec<[f64; OUTPUTS]>> {
    let model = ModelStreams::generate(net, samples.len(), len, rng)?;
    let inputs = InputStreams::generate(samples, len, rng)?;
    let hidden = layer1(&Plain, &inputs, &model)?;
    Ok(outputs_per_lane(&layer2(&Plain, &hidden, &model)?))
}

/// Conventional SC inference of one sample: every normalized sum is a
/// uniform 5-input multiplexer, the square an XOR of two independent
/// evaluations of the hidden unit; all streams have length L.
///
/// # Errors
/// [`Error::ValueOutOfRange`] for inputs or weights outside \[−1, 1\].
pub fn conventional(
    net: &Network,
    x: &[f64; INPUTS],
    len: usize,
    rng: &mut impl Rng,
) -> Result<[f64; OUTPUTS]> {
    let enc = |v: f64, rng: &mut _| StochasticNumber::encode(v, len, IBP, B2s::Bernoulli, rng);
    let mut hidden = Vec::with_capacity(HIDDEN);
    for j in 0..HIDDEN {
        let mut copies = Vec::with_capacity(2);
        for _copy in 0..2 {
            let mut terms = Vec::with_capacity(LAYER1_TERMS);
            for (&w, &xa) in net.w1[j].iter().zip(x) {
                terms.push(model::multiply(&enc(w, rng)?, &enc(xa, rng)?)?);
            }
            terms.push(enc(net.b1[j], rng)?);
            let sel = Selection::uniform(LAYER1_TERMS, len, B2s::Bernoulli, rng)?;
            copies.push(model::mux_add(&terms.iter().collect::<Vec<_>>(), &sel)?);
        }
        hidden.push(model::multiply(&copies[0], &copies[1])?);
    }
    let mut out = [0.0; OUTPUTS];
    for (k, o) in out.iter_mut().enumerate() {
        let mut terms = Vec::with_capacity(LAYER2_TERMS);
        for (j, h) in hidden.iter().enumerate() {
            terms.push(model::multiply(&enc(net.w2[k][j], rng)?, h)?);
        }
        terms.push(enc(net.b2[k], rng)?);
        let sel = Selection::uniform(LAYER2_TERMS, len, B2s::Bernoulli, rng)?;
        *o = model::mux_add(&terms.iter().collect::<Vec<_>>(), &sel)?.value();
    }
    Ok(out)
}
