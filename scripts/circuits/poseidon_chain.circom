pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// A hash chain of circomlib's Poseidon(2): h[0] = seed,
// h[i+1] = Poseidon(h[i], i + salt), out = h[K]. The seed and the salt are
// public, the output too; every intermediate hash is private. Poseidon(2)
// is 240 constraints, so K = 280 gives 67,200 constraints (a domain of
// 2^17 points).
template PoseidonChain(K) {
    signal input seed;
    signal input salt;
    signal output out;

    component hash[K];
    signal h[K + 1];
    h[0] <== seed;
    for (var i = 0; i < K; i++) {
        hash[i] = Poseidon(2);
        hash[i].inputs[0] <== h[i];
        hash[i].inputs[1] <== salt + i;
        h[i + 1] <== hash[i].out;
    }
    out <== h[K];
}

component main {public [seed, salt]} = PoseidonChain(CHAIN_LENGTH);
