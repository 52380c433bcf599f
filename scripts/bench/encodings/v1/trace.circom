// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/trace.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
pragma circom 2.1.0;

include "leaf.circom";
include "merkle.circom";
include "checkpoints.circom";

// Everything a predicate circuit needs to know about the committed trace, checked:
// the first n records (slots) are exactly the ones behind `finalRoot` and behind
// every on-chain checkpoint folded into `checkpointAcc`. Outputs `active[i]`
// (i < n) so that predicates look at exactly the first n records.
//
// Rows at index >= n have leaf 0, so nothing else binds their slots: a prover
// could fill them after seeing any in-circuit challenge. Every slot of such a row
// is therefore constrained to 0, an invariant each predicate inherits (a padding
// row reads as "no record": kind 0, every value absent). The salt is left free:
// it enters only the leaf, which is gated by `active`. docs/SOUNDNESS.md,
// "Rows past n". Cost: S constraints per row.
template CommittedTrace(D, K) {
    var N = 1 << D;
    var S = slotCount();
    signal input n;
    signal input finalRoot;
    signal input checkpointAcc;
    signal input slots[N][S];
    signal input salt[N];
    signal input cpN[K];
    signal input cpRoot[K];
    signal input cpActive[K];
    signal output active[N];

    active <== PrefixMask(D)(n);

    component leaf[N];
    component tree = MerkleTree(D);
    for (var i = 0; i < N; i++) {
        leaf[i] = RecordLeaf();
        leaf[i].slots <== slots[i];
        leaf[i].salt <== salt[i];
        leaf[i].active <== active[i];
        tree.leaves[i] <== leaf[i].leaf;
        for (var j = 0; j < S; j++) (1 - active[i]) * slots[i][j] === 0;
    }

    signal committed <== CommitmentRoot(D)(n, tree.nodes);
    finalRoot === committed;

    component checkpoints = CheckpointChain(D, K);
    checkpoints.n <== n;
    checkpoints.nodes <== tree.nodes;
    checkpoints.cpN <== cpN;
    checkpoints.cpRoot <== cpRoot;
    checkpoints.cpActive <== cpActive;
    checkpointAcc === checkpoints.acc;
}
