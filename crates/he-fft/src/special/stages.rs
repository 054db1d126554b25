//! The factored map's stages: butterflies and bit moves, materialized as
//! slot transforms and composed in canonical form.

use super::*;

impl<F: PrimeField + FftField> Geometry<F> {
    /// The stages of the slots-to-coefficients map, in the order they apply,
    /// and which slot-index bits the data is replicated in before each stage
    /// and after the last (one more entry than stages).
    pub(super) fn forward_stages(&self) -> (Vec<Stage>, Vec<u64>) {
        let (m, l) = (self.log_n, self.bits);
        let target = |u: u32| l - 1 - u;
        let mut stages = Vec::new();
        // Column bits the data depends on.
        let mut occupied: u64 = (1u64 << m) - 1;
        // coefficient bit u → the column bit holding it.
        let mut at: Vec<u32> = (0..m).map(|u| self.initial_position(u)).collect();
        if self.form == SlotForm::Evaluations {
            // Step u reads the index bit m-1-u and produces coefficient bit u.
            for u in 0..m {
                let read = self.initial_position(m - 1 - u);
                let free = occupied & (1u64 << target(u)) == 0;
                let write = if free || target(u) == read {
                    target(u)
                } else {
                    read
                };
                stages.push(Stage {
                    op: Op::Dif { step: u },
                    read,
                    write,
                });
                occupied = (occupied & !(1u64 << read)) | (1u64 << write);
                at[u as usize] = write;
            }
        }
        // Route every coefficient bit to its column: moves into free bits,
        // swaps where a target holds a bit that is itself misplaced.
        loop {
            let mut moved = false;
            for u in 0..m {
                let (from, to) = (at[u as usize], target(u));
                if from != to && occupied & (1u64 << to) == 0 {
                    stages.push(Stage {
                        op: Op::Move,
                        read: from,
                        write: to,
                    });
                    occupied = (occupied & !(1u64 << from)) | (1u64 << to);
                    at[u as usize] = to;
                    moved = true;
                }
            }
            let Some(u) = (0..m).find(|&u| at[u as usize] != target(u)) else {
                break;
            };
            if moved {
                continue;
            }
            let (from, to) = (at[u as usize], target(u));
            // The target is occupied, so it holds another coefficient bit
            // (occupied column bits are exactly those): exchange the two.
            match (0..m).find(|&v| at[v as usize] == to) {
                Some(other) => {
                    stages.push(Stage {
                        op: Op::Swap,
                        read: from,
                        write: to,
                    });
                    at[other as usize] = from;
                }
                None => {
                    stages.push(Stage {
                        op: Op::Move,
                        read: from,
                        write: to,
                    });
                    occupied = (occupied & !(1u64 << from)) | (1u64 << to);
                }
            }
            at[u as usize] = to;
        }
        for y in (l - m)..l {
            stages.push(Stage {
                op: Op::Special,
                read: y,
                write: y,
            });
        }
        // Replication before each stage.
        let mut rep = (self.column_mask() & !((1u64 << m) - 1)) | self.row_bit();
        let mut reps = vec![rep];
        for s in &stages {
            match s.op {
                Op::Dif { .. } | Op::Move => {
                    if s.read != s.write {
                        rep = (rep | (1u64 << s.read)) & !(1u64 << s.write);
                    }
                }
                Op::Swap => {}
                Op::Special => rep &= !((1u64 << (s.read + 1)) - 1) & !self.row_bit(),
            }
            reps.push(rep);
        }
        (stages, reps)
    }

    /// The two source slots of output slot `p`.
    pub(super) fn sources(&self, stage: &Stage, inverse: bool, p: usize) -> (usize, usize) {
        if stage.op == Op::Swap {
            let (a, b) = (stage.read, stage.write);
            let (x, y) = ((p >> a) & 1, (p >> b) & 1);
            let q = (p & !(1 << a) & !(1 << b)) | (y << a) | (x << b);
            return (q, q);
        }
        let bit = if inverse { stage.write } else { stage.read };
        (p & !(1 << bit), p | (1 << bit))
    }

    /// The coefficients of a stage (slots-to-coefficients direction).
    pub(super) fn forward_coefficients(&self, stage: &Stage) -> (Vec<F>, Vec<F>) {
        let (m, slots) = (self.log_n, self.slots);
        let one = F::one();
        let mut first = vec![F::zero(); slots];
        let mut second = vec![F::zero(); slots];
        let n_inv = F::from(self.n as u64).inverse().unwrap_or(one);
        for p in 0..slots {
            let select = (p >> stage.write) & 1;
            let (a, b) = match stage.op {
                Op::Swap => (one, F::zero()),
                Op::Move if select == 0 => (one, F::zero()),
                Op::Move => (F::zero(), one),
                Op::Dif { step } => {
                    // Lower index bits have not moved yet: read them where they started.
                    let span_bit = m - 1 - step;
                    let low = (0..span_bit)
                        .map(|b| ((p >> self.initial_position(b)) & 1) << b)
                        .sum::<usize>();
                    let scale = if step == 0 { n_inv } else { one };
                    if select == 0 {
                        (scale, scale)
                    } else {
                        let w = scale * self.omega(-((low << step) as i64));
                        (w, -w)
                    }
                }
                Op::Special => {
                    // Level M = 2^(y+2): twiddle ψ_M^(s_r·3^j), j = column mod M/2.
                    let y = stage.read;
                    let j = (p & self.column_mask() as usize) & ((1 << (y + 1)) - 1);
                    let slot = (p & self.row_bit() as usize) | j;
                    let e = (self.exponents[slot] * (slots >> (y + 2))) as i64;
                    (one, self.psi(e))
                }
            };
            first[p] = a;
            second[p] = b;
        }
        (first, second)
    }

    pub(super) fn materialize(&self, stage: &Stage, inverse: bool) -> Materialized<F> {
        let (first, second) = self.forward_coefficients(stage);
        if !inverse || stage.op == Op::Swap {
            return Materialized {
                stage: *stage,
                inverse,
                first,
                second,
            };
        }
        // Invert each 2×2 block: forward outputs (select bit `write` = 0, 1)
        // from sources (bit `read` = 0, 1).
        let (x, y) = (stage.read, stage.write);
        let block = |p: usize| {
            let (p0, p1) = (p & !(1 << y), p | (1 << y));
            (first[p0], second[p0], first[p1], second[p1])
        };
        let mut dets: Vec<F> = (0..self.slots)
            .map(|p| {
                let (a, b, c, d) = block(p);
                a * d - b * c
            })
            .collect();
        batch_inversion(&mut dets);
        let mut inv_first = vec![F::zero(); self.slots];
        let mut inv_second = vec![F::zero(); self.slots];
        for p in 0..self.slots {
            let (a, b, c, d) = block(p);
            let (u, v) = if (p >> x) & 1 == 0 { (d, -b) } else { (-c, a) };
            inv_first[p] = u * dets[p];
            inv_second[p] = v * dets[p];
        }
        Materialized {
            stage: *stage,
            inverse,
            first: inv_first,
            second: inv_second,
        }
    }

    /// The shift from output slot `p` to the canonical copy of source `q`.
    pub(super) fn canonical_shift(&self, canon: Canon, p: usize, q: usize) -> Shift {
        let row = self.row;
        let column = |s: usize| s & (row - 1);
        match canon {
            Canon::Periodic(period) => Shift {
                swap: false,
                rotation: ((column(q) + row - column(p)) % row) % period,
            },
            Canon::Bits(mask) => {
                let mask = mask as usize;
                let q = (q & !mask) | (p & mask);
                Shift {
                    swap: (q ^ p) & row != 0,
                    rotation: (column(q) + row - column(p)) % row,
                }
            }
        }
    }

    /// The source slot a shift reads for output slot p.
    pub(super) fn shifted(&self, p: usize, shift: Shift) -> usize {
        let row = self.row;
        let r = (p / row) ^ usize::from(shift.swap);
        r * row + (p % row + shift.rotation) % row
    }

    /// `stages` applied in order, as one canonical slot transform.
    pub(super) fn compose(&self, stages: &[Materialized<F>], canon: Canon) -> SlotTransform<F> {
        let identity = Shift {
            swap: false,
            rotation: 0,
        };
        let mut current = vec![(identity, vec![F::one(); self.slots])];
        for m in stages {
            let mut acc = Accumulator::new(self.row);
            for (shift, diagonal) in &current {
                for p in 0..self.slots {
                    let (q0, q1) = self.sources(&m.stage, m.inverse, p);
                    for (q, c) in [(q0, m.first[p]), (q1, m.second[p])] {
                        if c.is_zero() || diagonal[q].is_zero() {
                            continue;
                        }
                        let source = self.shifted(q, *shift);
                        acc.add(self.canonical_shift(canon, p, source), p, c * diagonal[q]);
                    }
                }
            }
            current = acc.into_terms();
        }
        let mut t = SlotTransform::zero(self.row);
        for (shift, diagonal) in current {
            t.add_term(shift, &diagonal);
        }
        t
    }
}
