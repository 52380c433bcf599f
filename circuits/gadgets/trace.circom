pragma circom 2.1.0;

include "leaf.circom";
include "merkle.circom";
include "checkpoints.circom";

// Everything a predicate circuit needs to know about the committed trace, checked:
// the first n records (slots) are exactly the ones behind `finalRoot` and behind
// every on-chain checkpoint folded into `checkpointAcc`. Outputs `active[i]`
// (i < n) so that predicates look at exactly the first n records.
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
