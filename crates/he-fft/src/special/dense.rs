//! The one-level (dense) maps, from Lagrange's formula.

use super::*;

impl<F: PrimeField + FftField> Geometry<F> {
    /// Whether a one-level plan exists for the direction: converting back
    /// reads each output's coset of H, which lies in one row only for n ≤ N/4.
    pub(crate) fn dense_supported(&self, conversion: Conversion) -> bool {
        conversion == Conversion::SlotsToCoefficients || 2 * self.n <= self.row
    }

    /// The one-level slots-to-coefficients map: output slot p (point x_p) is
    /// `Σ_i basis_i(x_p)·v_i` for the slot-side vector v, and the `Row`
    /// packing puts v at every rotation below n.
    pub(super) fn dense_to_coefficients(&self) -> SlotTransform<F> {
        let n = self.n;
        let n_f = F::from(n as u64);
        let points: Vec<F> = (0..self.slots).map(|p| self.point(p)).collect();
        let vanishing: Vec<F> = points
            .iter()
            .map(|x| x.pow([n as u64]) - F::one())
            .collect();
        let mut t = SlotTransform::zero(self.row);
        for rho in 0..n {
            let index = |p: usize| self.index_at(((p % self.row) + rho) % n);
            let diagonal: Vec<F> = match self.form {
                SlotForm::Coefficients => points
                    .iter()
                    .enumerate()
                    .map(|(p, x)| x.pow([index(p) as u64]))
                    .collect(),
                SlotForm::Evaluations => {
                    // L_i(x) = ω^i (x^n − 1) / (n (x − ω^i)).
                    let mut denominators: Vec<F> = points
                        .iter()
                        .enumerate()
                        .map(|(p, x)| n_f * (*x - self.omega(index(p) as i64)))
                        .collect();
                    batch_inversion(&mut denominators);
                    (0..self.slots)
                        .map(|p| self.omega(index(p) as i64) * vanishing[p] * denominators[p])
                        .collect()
                }
            };
            t.add_term(
                Shift {
                    swap: false,
                    rotation: rho,
                },
                &diagonal,
            );
        }
        t
    }

    /// The one-level coefficients-to-slots map (n ≤ N/4): output slot (r, c)
    /// reads the n slots of its own coset of H, (r, c mod R/n + t·R/n), at
    /// the rotations τ·R/n, τ < n, and interpolates.
    pub(super) fn dense_to_slots(&self) -> SlotTransform<F> {
        let (n, row) = (self.n, self.row);
        let stride = row / n;
        let n_f = F::from(n as u64);
        let n_inv = n_f.inverse().unwrap_or(F::one());
        let mut t = SlotTransform::zero(row);
        for tau in 0..n {
            let source = |p: usize| {
                let (r, c) = (p / row, p % row);
                let t = (tau + c / stride) % n;
                r * row + c % stride + t * stride
            };
            let index = |p: usize| self.index_at((p % row) % n);
            let diagonal: Vec<F> = match self.form {
                // A_i = (1/n) Σ_t s_t z_t^(−i).
                SlotForm::Coefficients => {
                    let mut z: Vec<F> = (0..self.slots)
                        .map(|p| self.point(source(p)).pow([index(p) as u64]))
                        .collect();
                    batch_inversion(&mut z);
                    z.into_iter().map(|v| v * n_inv).collect()
                }
                // a_i = Σ_t s_t ℓ_t(ω^i), ℓ_t(y) = (y^n − Z) z_t / (n Z (y − z_t)), Z = z_t^n.
                SlotForm::Evaluations => {
                    let z: Vec<F> = (0..self.slots).map(|p| self.point(source(p))).collect();
                    let big_z: Vec<F> = z.iter().map(|z| z.pow([n as u64])).collect();
                    let mut denominators: Vec<F> = (0..self.slots)
                        .map(|p| n_f * big_z[p] * (self.omega(index(p) as i64) - z[p]))
                        .collect();
                    batch_inversion(&mut denominators);
                    (0..self.slots)
                        .map(|p| (F::one() - big_z[p]) * z[p] * denominators[p])
                        .collect()
                }
            };
            t.add_term(
                Shift {
                    swap: false,
                    rotation: tau * stride,
                },
                &diagonal,
            );
        }
        t
    }
}
