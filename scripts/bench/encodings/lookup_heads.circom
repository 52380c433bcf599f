pragma circom 2.1.0;

// Encoding E3 (protocol v2), bench only (scripts/bench/encodings.ts): the product's own CheckpointFold and
// CheckpointHeads (circuits/gadgets/checkpoints.circom), wired exactly as CommittedTrace wires them
// (circuits/gadgets/trace.circom), over leaves and the prefix mask given as inputs.
include "../../../circuits/gadgets/checkpoints.circom";

template LookupHeads(D, K) {
    var N = 1 << D;
    signal input n;
    signal input finalRoot;
    signal input checkpointAcc;
    signal input leaves[N];
    signal input active[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];

    component fold = CheckpointFold(K);
    fold.cpN <== cpN;
    fold.cpHead <== cpHead;
    fold.cpActive <== cpActive;
    checkpointAcc === fold.acc;

    component heads = CheckpointHeads(D, K);
    heads.n <== n;
    heads.finalRoot <== finalRoot;
    heads.checkpointAcc <== checkpointAcc;
    heads.leaves <== leaves;
    heads.active <== active;
    heads.cpN <== cpN;
    heads.cpHead <== cpHead;
    heads.cpActive <== cpActive;
    heads.hits <== cpHits;
}
