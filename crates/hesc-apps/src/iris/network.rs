//! The 4-4-3 network with x² activation, its float inference and a deterministic trainer.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Dataset;

/// Input features.
pub const INPUTS: usize = 4;
/// Hidden units.
pub const HIDDEN: usize = 4;
/// Output classes.
pub const OUTPUTS: usize = 3;
/// Terms of each layer's normalized sum: the inputs plus the bias.
pub(crate) const LAYER1_TERMS: usize = INPUTS + 1;
/// Terms of the second layer's normalized sum.
pub(crate) const LAYER2_TERMS: usize = HIDDEN + 1;

/// h_j = ((Σ_a w1\[j\]\[a\]·x_a + b1\[j\]) / 5)², o_k = (Σ_j w2\[k\]\[j\]·h_j + b2\[k\]) / 5.
///
/// The divisions by 5 are the normalized sums of SC; every weight is in \[−1, 1\].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// First-layer weights.
    pub w1: [[f64; INPUTS]; HIDDEN],
    /// First-layer biases.
    pub b1: [f64; HIDDEN],
    /// Second-layer weights.
    pub w2: [[f64; HIDDEN]; OUTPUTS],
    /// Second-layer biases.
    pub b2: [f64; OUTPUTS],
}

impl Network {
    /// The pre-activations z_j = (W₁x + b₁)_j / 5.
    pub fn layer1(&self, x: &[f64; INPUTS]) -> [f64; HIDDEN] {
        std::array::from_fn(|j| {
            let s: f64 = (0..INPUTS).map(|a| self.w1[j][a] * x[a]).sum();
            (s + self.b1[j]) / LAYER1_TERMS as f64
        })
    }

    /// The outputs o for hidden activations h.
    pub fn layer2(&self, h: &[f64; HIDDEN]) -> [f64; OUTPUTS] {
        std::array::from_fn(|k| {
            let s: f64 = (0..HIDDEN).map(|j| self.w2[k][j] * h[j]).sum();
            (s + self.b2[k]) / LAYER2_TERMS as f64
        })
    }

    /// Float inference: the outputs o.
    pub fn forward(&self, x: &[f64; INPUTS]) -> [f64; OUTPUTS] {
        let z = self.layer1(x);
        self.layer2(&z.map(|v| v * v))
    }

    fn params_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.w1
            .iter_mut()
            .flatten()
            .chain(self.b1.iter_mut())
            .chain(self.w2.iter_mut().flatten())
            .chain(self.b2.iter_mut())
    }

    fn params(&self) -> Vec<f64> {
        let mut copy = *self;
        copy.params_mut().map(|p| *p).collect()
    }
}

/// Settings of [`train`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Full-batch Adam steps.
    pub epochs: usize,
    /// Adam step size.
    pub learning_rate: f64,
    /// Softmax scale s on the outputs (o lies in \[−1, 1\]; a large s asks for wide margins).
    pub scale: f64,
    /// Weight λ of the center loss ½‖o − c_y‖².
    pub center_weight: f64,
    /// Update rate α of the class centers.
    pub center_rate: f64,
    /// Seed of the initial weights.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            epochs: 6000,
            learning_rate: 0.02,
            scale: 80.0,
            center_weight: 1.0,
            center_rate: 0.1,
            seed: 2024,
        }
    }
}

/// Trains the network on normalized data: deterministic for a given config.
///
/// Loss: softmax cross-entropy of s·o plus λ·½‖o − c_y‖² (center loss, with
/// class centers c moved towards the class means at rate α each step);
/// weights are clipped to \[−1, 1\] after every step.
pub fn train(data: &Dataset, config: &TrainConfig) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut net = Network {
        w1: [[0.0; INPUTS]; HIDDEN],
        b1: [0.0; HIDDEN],
        w2: [[0.0; HIDDEN]; OUTPUTS],
        b2: [0.0; OUTPUTS],
    };
    for p in net.params_mut() {
        *p = rng.gen_range(-0.5..0.5);
    }
    let count = net.params().len();
    let (mut m, mut v) = (vec![0.0; count], vec![0.0; count]);
    let mut centers = [[0.0; OUTPUTS]; OUTPUTS];
    let (beta1, beta2, eps) = (0.9, 0.999, 1e-8);
    let n = data.len().max(1) as f64;
    for step in 1..=config.epochs {
        let (grad, class_means) = gradient(&net, data, &centers, config);
        for (c, mean) in centers.iter_mut().zip(class_means) {
            if let Some(mean) = mean {
                for k in 0..OUTPUTS {
                    c[k] -= config.center_rate * (c[k] - mean[k]);
                }
            }
        }
        let t = step as i32;
        for (i, p) in net.params_mut().enumerate() {
            let g = grad[i] / n;
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(t));
            let v_hat = v[i] / (1.0 - beta2.powi(t));
            *p = (*p - config.learning_rate * m_hat / (v_hat.sqrt() + eps)).clamp(-1.0, 1.0);
        }
    }
    net
}

/// The summed gradient over `data` (parameter order of `params_mut`) and the
/// mean output of each class.
fn gradient(
    net: &Network,
    data: &Dataset,
    centers: &[[f64; OUTPUTS]; OUTPUTS],
    config: &TrainConfig,
) -> (Vec<f64>, [Option<[f64; OUTPUTS]>; OUTPUTS]) {
    let mut g = Network {
        w1: [[0.0; INPUTS]; HIDDEN],
        b1: [0.0; HIDDEN],
        w2: [[0.0; HIDDEN]; OUTPUTS],
        b2: [0.0; OUTPUTS],
    };
    let mut sums = [[0.0; OUTPUTS]; OUTPUTS];
    let mut counts = [0usize; OUTPUTS];
    let (d1, d2) = (LAYER1_TERMS as f64, LAYER2_TERMS as f64);
    for (x, &y) in data.features.iter().zip(&data.labels) {
        let z = net.layer1(x);
        let h = z.map(|v| v * v);
        let o = net.layer2(&h);
        counts[y] += 1;
        for k in 0..OUTPUTS {
            sums[y][k] += o[k];
        }
        let peak = o.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let e: Vec<f64> = o
            .iter()
            .map(|&ok| (config.scale * (ok - peak)).exp())
            .collect();
        let total: f64 = e.iter().sum();
        let d_o: [f64; OUTPUTS] = std::array::from_fn(|k| {
            let target = if k == y { 1.0 } else { 0.0 };
            config.scale * (e[k] / total - target) + config.center_weight * (o[k] - centers[y][k])
        });
        let mut d_h = [0.0; HIDDEN];
        for (k, &d) in d_o.iter().enumerate() {
            g.b2[k] += d / d2;
            for j in 0..HIDDEN {
                g.w2[k][j] += d * h[j] / d2;
                d_h[j] += d * net.w2[k][j] / d2;
            }
        }
        for j in 0..HIDDEN {
            let d_z = d_h[j] * 2.0 * z[j];
            g.b1[j] += d_z / d1;
            for (w, &xa) in g.w1[j].iter_mut().zip(x) {
                *w += d_z * xa / d1;
            }
        }
    }
    let means =
        std::array::from_fn(|c| (counts[c] > 0).then(|| sums[c].map(|s| s / counts[c] as f64)));
    (g.params(), means)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three separable blobs in [−1, 1]⁴.
    fn blobs() -> Dataset {
        let mut rng = ChaCha8Rng::seed_from_u64(40);
        let centers = [
            [-0.6, -0.5, -0.7, -0.6],
            [0.0, 0.1, 0.1, 0.0],
            [0.6, 0.5, 0.7, 0.6],
        ];
        let mut features = Vec::new();
        let mut labels = Vec::new();
        for (c, center) in centers.iter().enumerate() {
            for _ in 0..20 {
                features
                    .push(center.map(|v: f64| (v + rng.gen_range(-0.15..0.15)).clamp(-1.0, 1.0)));
                labels.push(c);
            }
        }
        Dataset::new(features, labels).unwrap()
    }

    #[test]
    fn trainer_is_deterministic_and_fits_separable_data() {
        let data = blobs();
        let config = TrainConfig {
            epochs: 800,
            ..TrainConfig::default()
        };
        let net = train(&data, &config);
        assert_eq!(net, train(&data, &config));
        assert!(net.params().iter().all(|p| (-1.0..=1.0).contains(p)));
        let acc = super::super::accuracy(&data, |x| Ok(net.forward(x))).unwrap();
        assert!(acc >= 0.95, "{acc}");
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let data = blobs();
        let config = TrainConfig::default();
        let net = train(
            &data,
            &TrainConfig {
                epochs: 5,
                ..config
            },
        );
        let centers = [[0.1, 0.0, -0.1], [0.0, 0.2, 0.0], [-0.1, 0.0, 0.3]];
        let loss = |n: &Network| -> f64 {
            data.features
                .iter()
                .zip(&data.labels)
                .map(|(x, &y)| {
                    let o = n.forward(x);
                    let lse = o
                        .iter()
                        .map(|&v| (config.scale * v).exp())
                        .sum::<f64>()
                        .ln();
                    let center: f64 = (0..OUTPUTS).map(|k| (o[k] - centers[y][k]).powi(2)).sum();
                    lse - config.scale * o[y] + config.center_weight * center / 2.0
                })
                .sum()
        };
        let (grad, _) = gradient(&net, &data, &centers, &config);
        for i in [0usize, 5, 17, 20, 27, 30] {
            let h = 1e-6;
            let mut up = net;
            let mut down = net;
            *up.params_mut().nth(i).unwrap() += h;
            *down.params_mut().nth(i).unwrap() -= h;
            let numeric = (loss(&up) - loss(&down)) / (2.0 * h);
            assert!(
                (numeric - grad[i]).abs() < 1e-4 * (1.0 + numeric.abs()),
                "param {i}: {numeric} vs {}",
                grad[i]
            );
        }
    }
}
