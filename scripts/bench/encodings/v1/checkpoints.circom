// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/checkpoints.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
pragma circom 2.1.0;

include "poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "merkle.circom";

// Ties the on-chain checkpoint accumulator to the proven trace.
// The escrow folds every checkpoint as acc = Poseidon(acc, n_k, root_k) from 0.
// Here the prover supplies that list (up to K entries, `active` a prefix of it);
// each active entry must be the commitment of the first n_k records of this very
// tree, with 1 <= n_k <= n, and the fold must reproduce the public accumulator.
// So every root the provider ever committed is a prefix of the trace proven now
// (P1). Assumes n in [0, 2^D] (PrefixMask).
template CheckpointChain(D, K) {
    signal input n;
    signal input nodes[nodeCount(D)];
    signal input cpN[K];
    signal input cpRoot[K];
    signal input cpActive[K];
    signal output acc;

    signal chain[K + 1];
    signal rootDiff[K];
    signal folded[K];
    component prefix[K];
    component hash[K];
    component isZero[K];
    component withinTrace[K];
    chain[0] <== 0;
    for (var k = 0; k < K; k++) {
        cpActive[k] * (cpActive[k] - 1) === 0;
        if (k > 0) cpActive[k] * (1 - cpActive[k - 1]) === 0;

        // Range first: n_k < 2^(D+1) (PrefixCommitment's Num2Bits) before comparing.
        prefix[k] = PrefixCommitment(D);
        prefix[k].k <== cpN[k];
        for (var i = 0; i < nodeCount(D); i++) prefix[k].nodes[i] <== nodes[i];

        isZero[k] = IsZero();
        isZero[k].in <== cpN[k];
        cpActive[k] * isZero[k].out === 0;
        withinTrace[k] = LessThan(D + 2);
        withinTrace[k].in <== [cpN[k], n + 1];
        cpActive[k] * (1 - withinTrace[k].out) === 0;

        rootDiff[k] <== prefix[k].root - cpRoot[k];
        cpActive[k] * rootDiff[k] === 0;

        hash[k] = PoseidonHash(3);
        hash[k].inputs[0] <== chain[k];
        hash[k].inputs[1] <== cpN[k];
        hash[k].inputs[2] <== cpRoot[k];
        folded[k] <== cpActive[k] * (hash[k].out - chain[k]);
        chain[k + 1] <== chain[k] + folded[k];
    }
    acc <== chain[K];
}
