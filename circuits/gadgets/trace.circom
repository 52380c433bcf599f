pragma circom 2.1.0;

include "leaf.circom";
include "merkle.circom";
include "checkpoints.circom";

// The frame every whole-claim circuit (circuits/main/aapN_*.circom) shares, before its predicate's own logic:
// - public inputs, all built by the escrow from its own storage (docs/PROTOCOL.md):
//     context        keccak(chainid, escrow, sessionId, promiseId) >> 3: binds the pair (P4)
//     finalRoot, n   the session's final commitment and record count (P1)
//     checkpointAcc  the fold of every on-chain checkpoint and receipt (P1)
//     paramsHash     the promise's θ hash (P5)
//     outcome        1 = violated, 0 = satisfied; computed by the circuit, not chosen (P2)
// - contextSquared <== context * context: context enters no other constraint, squaring keeps it in the proof;
// - `trace` = CommittedTrace(D, K) below, whose active[] says which rows are records;
// - `theta` = AapNTheta (circuits/predicates/aapN_*.circom): paramsHash is the hash of the private θ;
// - outcome === the predicate's verdict.
// The wiring is written out in each main rather than wrapped in one template: circom lays out a template's
// constraints in the lexicographic order of its sub-components' names (`trace`, `theta`, an anonymous
// `AnyOf_<line>_<col>`, ...), so moving them under a wrapper would reorder the r1cs and change every
// verification key (and verifier contract). For the same reason they keep their names.

// Everything a predicate circuit needs to know about the committed trace, checked:
// the first n records (slots, digests) are exactly the ones behind `finalRoot`, and
// every on-chain checkpoint folded into `checkpointAcc` is the chain head of a prefix
// of them. Outputs `active[i]` (i < n) so that predicates look at exactly the first n
// records.
//
// Rows at index >= n have leaf 0, so nothing else binds their slots: a prover
// could fill them after seeing any in-circuit challenge. Every slot of such a row
// is therefore constrained to 0, an invariant each predicate inherits (a padding
// row reads as "no record": kind 0, every value absent). The digest is left free:
// it enters only the leaf, which is gated by `active`. docs/SOUNDNESS.md,
// "Rows past n". Cost: S constraints per row.
template CommittedTrace(D, K) {
    var N = 1 << D;
    var S = slotCount();
    signal input n;
    signal input finalRoot;
    signal input checkpointAcc;
    signal input slots[N][S];
    signal input digest[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal output active[N];

    active <== PrefixMask(D)(n);

    component leaf[N];
    component tree = MerkleTree(D);
    for (var i = 0; i < N; i++) {
        leaf[i] = RecordLeaf();
        leaf[i].slots <== slots[i];
        leaf[i].digest <== digest[i];
        if (i == 0) {
            leaf[i].prev <== 0;
        } else {
            leaf[i].prev <== leaf[i - 1].leaf;
        }
        leaf[i].active <== active[i];
        tree.leaves[i] <== leaf[i].leaf;
        for (var j = 0; j < S; j++) (1 - active[i]) * slots[i][j] === 0;
    }

    signal committed <== CommitmentRoot(D)(n, tree.nodes);
    finalRoot === committed;

    component fold = CheckpointFold(K);
    fold.cpN <== cpN;
    fold.cpHead <== cpHead;
    fold.cpActive <== cpActive;
    checkpointAcc === fold.acc;

    component heads = CheckpointHeads(D, K);
    heads.n <== n;
    heads.finalRoot <== finalRoot;
    heads.checkpointAcc <== checkpointAcc;
    for (var i = 0; i < N; i++) heads.leaves[i] <== leaf[i].leaf;
    heads.active <== active;
    heads.cpN <== cpN;
    heads.cpHead <== cpHead;
    heads.cpActive <== cpActive;
    heads.hits <== cpHits;
}
