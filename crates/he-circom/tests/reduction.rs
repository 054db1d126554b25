//! The circom reduction's maths: the linear pieces are linear, the quotient
//! route gives the H scalars for any assignment, the H query scalars are
//! the odd-coset Lagrange basis, and ark-groth16's generator and prover
//! work end to end with `CircomReduction`.

use ark_bn254::{Bn254, Fr};
use ark_ff::{Field, UniformRand, Zero};
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_poly::{
    univariate::DensePolynomial, DenseUVPolynomial, EvaluationDomain, Polynomial,
    Radix2EvaluationDomain,
};
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
use ark_relations::lc;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use he_circom::matrices::Matrix;
use he_circom::reduction::{
    constraint_evaluations, domain_size, h_evaluations, h_query_scalars, odd_coset_evaluations,
    quotient_scalars,
};
use he_circom::CircomReduction;

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x5eed)
}

/// A random sparse matrix of `rows` rows over `wires` wires.
fn random_matrix(rows: usize, wires: usize, rng: &mut StdRng) -> Matrix<Fr> {
    use ark_std::rand::Rng;
    (0..rows)
        .map(|_| {
            (0..rng.gen_range(0..4))
                .map(|_| (Fr::rand(rng), rng.gen_range(0..wires)))
                .collect()
        })
        .collect()
}

fn random_vec(n: usize, rng: &mut StdRng) -> Vec<Fr> {
    (0..n).map(|_| Fr::rand(rng)).collect()
}

#[test]
fn domain_sizes_are_snarkjs_s() {
    assert_eq!(domain_size(0, 1), Some(2));
    assert_eq!(domain_size(1, 1), Some(2));
    assert_eq!(domain_size(1, 2), Some(4));
    assert_eq!(domain_size(240, 2), Some(256));
    assert_eq!(domain_size(251, 5), Some(256));
    assert_eq!(domain_size(252, 5), Some(512));
    assert_eq!(domain_size(usize::MAX, 1), None);
}

#[test]
fn the_pieces_for_shares_are_linear() {
    let mut rng = rng();
    let (m, wires, inputs) = (11, 9, 3);
    let a = random_matrix(m, wires, &mut rng);
    let b = random_matrix(m, wires, &mut rng);
    let z1 = random_vec(wires, &mut rng);
    let z2 = random_vec(wires, &mut rng);
    let sum: Vec<Fr> = z1.iter().zip(&z2).map(|(x, y)| *x + y).collect();
    let [a1, b1] = constraint_evaluations(&a, &b, inputs, &z1).unwrap();
    let [a2, b2] = constraint_evaluations(&a, &b, inputs, &z2).unwrap();
    let [a12, b12] = constraint_evaluations(&a, &b, inputs, &sum).unwrap();
    let add = |x: &[Fr], y: &[Fr]| x.iter().zip(y).map(|(p, q)| *p + q).collect::<Vec<_>>();
    assert_eq!(a12, add(&a1, &a2));
    assert_eq!(b12, add(&b1, &b2));
    assert_eq!(a1.len(), 16);
    assert_eq!(&a1[m..m + inputs], &z1[..inputs]);
    assert!(b1[m..].iter().all(Zero::is_zero));

    let o1 = odd_coset_evaluations(&a1).unwrap();
    let o2 = odd_coset_evaluations(&a2).unwrap();
    assert_eq!(odd_coset_evaluations(&a12).unwrap(), add(&o1, &o2));

    let h1 = random_vec(15, &mut rng);
    let h2 = random_vec(15, &mut rng);
    assert_eq!(
        quotient_scalars(&add(&h1, &h2), 16).unwrap(),
        add(
            &quotient_scalars(&h1, 16).unwrap(),
            &quotient_scalars(&h2, 16).unwrap()
        )
    );
}

#[test]
fn odd_coset_evaluations_are_evaluations_at_g_omega_i() {
    let mut rng = rng();
    let n = 8;
    let poly = DensePolynomial::from_coefficients_vec(random_vec(n, &mut rng));
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let g = Radix2EvaluationDomain::<Fr>::new(2 * n)
        .unwrap()
        .group_gen();
    let on_domain: Vec<Fr> = domain.elements().map(|x| poly.evaluate(&x)).collect();
    let expected: Vec<Fr> = domain.elements().map(|x| poly.evaluate(&(g * x))).collect();
    assert_eq!(odd_coset_evaluations(&on_domain).unwrap(), expected);
    assert!(odd_coset_evaluations(&on_domain[..7]).is_err());
}

/// ⌊A·B / Xⁿ⌋ for the interpolants of `a` and `b`.
fn floor_quotient(a: &[Fr], b: &[Fr]) -> Vec<Fr> {
    let n = a.len();
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let pa = DensePolynomial::from_coefficients_vec(domain.ifft(a));
    let pb = DensePolynomial::from_coefficients_vec(domain.ifft(b));
    let product = &pa * &pb;
    product.coeffs.get(n..).unwrap_or(&[]).to_vec()
}

#[test]
fn the_quotient_route_gives_the_h_scalars_for_any_assignment() {
    let mut rng = rng();
    for (m, wires, inputs) in [(1, 3, 2), (5, 7, 3), (29, 20, 3), (60, 40, 4)] {
        let a = random_matrix(m, wires, &mut rng);
        let b = random_matrix(m, wires, &mut rng);
        // A random assignment: far from satisfying anything.
        let z = random_vec(wires, &mut rng);
        let [ea, eb] = constraint_evaluations(&a, &b, inputs, &z).unwrap();
        let n = ea.len();
        let h = floor_quotient(&ea, &eb);
        assert!(h.len() < n);
        assert_eq!(
            quotient_scalars(&h, n).unwrap(),
            h_evaluations(&ea, &eb).unwrap(),
            "m = {m}"
        );
    }
    assert!(quotient_scalars(&[Fr::zero(); 5], 4).is_err());
    assert!(quotient_scalars(&[Fr::zero(); 3], 3).is_err());
}

#[test]
fn the_h_query_scalars_are_the_odd_lagrange_basis() {
    // Σ pᵢ·Hᵢ must be P(t)·δ⁻¹ for P = A·B − C.
    let mut rng = rng();
    let n = 16;
    let a = random_vec(n, &mut rng);
    let b = random_vec(n, &mut rng);
    let p = h_evaluations(&a, &b).unwrap();
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let pa = DensePolynomial::from_coefficients_vec(domain.ifft(&a));
    let pb = DensePolynomial::from_coefficients_vec(domain.ifft(&b));
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    let pc = DensePolynomial::from_coefficients_vec(domain.ifft(&c));
    let t = Fr::rand(&mut rng);
    let delta_inverse = Fr::rand(&mut rng);
    let scalars = h_query_scalars(n, t, delta_inverse).unwrap();
    let combined: Fr = p.iter().zip(&scalars).map(|(x, y)| *x * y).sum();
    let direct = (pa.evaluate(&t) * pb.evaluate(&t) - pc.evaluate(&t)) * delta_inverse;
    assert_eq!(combined, direct);
    // t on the odd coset itself: the basis is an indicator.
    let g = Radix2EvaluationDomain::<Fr>::new(2 * n)
        .unwrap()
        .group_gen();
    let at_root = h_query_scalars(n, g * domain.element(3), Fr::ONE).unwrap();
    assert_eq!(at_root.iter().filter(|x| !x.is_zero()).count(), 1);
    assert_eq!(at_root[3], Fr::ONE);
}

/// x³ + x + 5 = out with out public: four constraints.
#[derive(Clone)]
struct Cubic {
    x: Fr,
}

impl ConstraintSynthesizer<Fr> for Cubic {
    fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        let x = self.x;
        let out = cs.new_input_variable(|| Ok(x * x * x + x + Fr::from(5u64)))?;
        let xv = cs.new_witness_variable(|| Ok(x))?;
        let x2 = cs.new_witness_variable(|| Ok(x * x))?;
        let x3 = cs.new_witness_variable(|| Ok(x * x * x))?;
        cs.enforce_r1cs_constraint(|| lc!() + xv, || lc!() + xv, || lc!() + x2)?;
        cs.enforce_r1cs_constraint(|| lc!() + x2, || lc!() + xv, || lc!() + x3)?;
        cs.enforce_r1cs_constraint(
            || lc!() + x3 + xv + (Fr::from(5u64), ark_relations::gr1cs::Variable::One),
            || lc!() + ark_relations::gr1cs::Variable::One,
            || lc!() + out,
        )?;
        Ok(())
    }
}

#[test]
fn ark_generator_and_prover_work_with_the_circom_reduction() {
    let mut rng = rng();
    let pk = Groth16::<Bn254, CircomReduction>::generate_random_parameters_with_reduction(
        Cubic { x: Fr::from(3u64) },
        &mut rng,
    )
    .unwrap();
    assert!(pk.h_query.len().is_power_of_two());
    let proof = Groth16::<Bn254, CircomReduction>::create_random_proof_with_reduction(
        Cubic { x: Fr::from(3u64) },
        &pk,
        &mut rng,
    )
    .unwrap();
    let pvk = prepare_verifying_key(&pk.vk);
    assert!(Groth16::<Bn254>::verify_proof(&pvk, &proof, &[Fr::from(35u64)]).unwrap());
    assert!(!Groth16::<Bn254>::verify_proof(&pvk, &proof, &[Fr::from(36u64)]).unwrap());
}

#[test]
fn the_witness_map_refuses_bad_shapes_without_panicking() {
    use ark_groth16::r1cs_to_qap::R1CSToQAP;
    use ark_poly::GeneralEvaluationDomain;
    type D = GeneralEvaluationDomain<Fr>;
    let one = Fr::from(1u64);
    let a: Matrix<Fr> = vec![vec![(one, 5)]];
    let b: Matrix<Fr> = vec![vec![(one, 0)]];
    let z = [one, one];
    // A wire past the assignment, too few matrices, too few rows, too
    // short an assignment.
    assert!(
        CircomReduction::witness_map_from_matrices::<Fr, D>(&[a.clone(), b.clone()], 1, 1, &z)
            .is_err()
    );
    assert!(CircomReduction::witness_map_from_matrices::<Fr, D>(
        std::slice::from_ref(&b),
        1,
        1,
        &z
    )
    .is_err());
    assert!(
        CircomReduction::witness_map_from_matrices::<Fr, D>(&[b.clone(), b.clone()], 1, 2, &z)
            .is_err()
    );
    assert!(
        CircomReduction::witness_map_from_matrices::<Fr, D>(&[b.clone(), b.clone()], 3, 1, &z)
            .is_err()
    );
    assert!(CircomReduction::witness_map_from_matrices::<Fr, D>(&[b.clone(), b], 1, 1, &z).is_ok());
}
