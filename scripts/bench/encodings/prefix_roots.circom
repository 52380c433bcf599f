pragma circom 2.1.0;

// Encoding E1 (protocol v1), bench only (scripts/bench/encodings.ts): every checkpoint is the Merkle root
// of the first n_k records, recomputed in-circuit by PrefixCommitment over the tree given as input. Exactly
// what v1's CommittedTrace adds for checkpoints (v1/trace.circom), with the accumulator as an input.
include "v1/checkpoints.circom";

template PrefixRootCheckpoints(D, K) {
    signal input n;
    signal input checkpointAcc;
    signal input nodes[nodeCount(D)];
    signal input cpN[K];
    signal input cpRoot[K];
    signal input cpActive[K];

    component chain = CheckpointChain(D, K);
    chain.n <== n;
    chain.nodes <== nodes;
    chain.cpN <== cpN;
    chain.cpRoot <== cpRoot;
    chain.cpActive <== cpActive;
    checkpointAcc === chain.acc;
}
