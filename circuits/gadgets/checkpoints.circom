pragma circom 2.1.0;

include "poseidon.circom";
include "hash.circom";

// Checkpoints, protocol v2 (docs/PROTOCOL.md "Checkpoints", docs/SOUNDNESS.md
// "Checkpoint heads"). The escrow folds every checkpoint (and every receipt the user
// posts) as acc = Poseidon(acc, n_k, head_k) from 0; head_k is the chain head of the
// first n_k records, leaf_{n_k - 1} of the chained leaves (leaf.circom).

// The fold over the active prefix of K entries, exactly as the escrow computes it.
// Inactive entries are free and fold nothing.
template CheckpointFold(K) {
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal output acc;

    signal chain[K + 1];
    signal folded[K];
    component hash[K];
    chain[0] <== 0;
    for (var k = 0; k < K; k++) {
        cpActive[k] * (cpActive[k] - 1) === 0;
        if (k > 0) cpActive[k] * (1 - cpActive[k - 1]) === 0;
        hash[k] = PoseidonHash(3);
        hash[k].inputs[0] <== chain[k];
        hash[k].inputs[1] <== cpN[k];
        hash[k].inputs[2] <== cpHead[k];
        folded[k] <== cpActive[k] * (hash[k].out - chain[k]);
        chain[k + 1] <== chain[k] + folded[k];
    }
    acc <== chain[K];
}

// weight / (alpha - key). `inv` is a hint, pinned by its one constraint (so alpha - key
// must be invertible: an honest key equals alpha with probability ~1/r).
template LogTerm() {
    signal input alpha;
    signal input key;
    signal input weight;
    signal output out;

    signal inv;
    inv <-- 1 / (alpha - key);
    inv * (alpha - key) === 1;
    out <== weight * inv;
}

// Every active checkpoint (n_k, head_k) is a row of the trace: head_k = leaf[n_k - 1]
// with 1 <= n_k <= n. A log-derivative lookup of the entries into the table
// {(i + 1, leaf_i) : i < n}:
//     sum_k active_k / (alpha - (head_k + beta n_k)) == sum_i m_i / (alpha - (leaf_i + beta (i + 1)))
// with the multiplicity m_i in [0, 3] (two bits, the hint `hits`) and 0 past n.
// Soundness needs every value the prover picks to be fixed before (alpha, beta):
//   leaves   by finalRoot (public; CommittedTrace recomputes it from them),
//   entries  by checkpointAcc (public; CheckpointFold recomputes it),
//   m_i      by the seed, which hashes them packed 126 to a field element,
//   inverses by their constraints (each has exactly one value).
// (alpha, beta) = (seed, Poseidon(seed)), seed = HashVector(n, finalRoot, acc, packed m).
// Then the two sides are equal rational functions unless an event of probability
// <= (N + K) / r per try happens, and equal rational functions mean the entries'
// keys are, as a multiset, the table rows taken m_i times: each entry is a row, and
// by beta each key is one (position, head) pair. A row may be hit up to 3 times
// (a provider checkpoint and the user's spare receipt for the same n hit it twice).
// Cost: 5 constraints per row, ~270 per entry (its fold hash included, CheckpointFold).
template CheckpointHeads(D, K) {
    var N = 1 << D;
    var PACK = 126;
    var J = (N + PACK - 1) \ PACK;
    signal input n;
    signal input finalRoot;
    signal input checkpointAcc;
    signal input leaves[N];
    signal input active[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input hits[N][2];

    signal m[N];
    var packed[J];
    for (var j = 0; j < J; j++) packed[j] = 0;
    for (var i = 0; i < N; i++) {
        hits[i][0] * (hits[i][0] - 1) === 0;
        hits[i][1] * (hits[i][1] - 1) === 0;
        m[i] <== hits[i][0] + 2 * hits[i][1];
        // Rows past n have leaf 0: a hit there would let an entry with head 0 pass.
        m[i] * (1 - active[i]) === 0;
        packed[i \ PACK] += m[i] * (4 ** (i % PACK));
    }

    component seed = HashVector(3 + J);
    seed.in[0] <== n;
    seed.in[1] <== finalRoot;
    seed.in[2] <== checkpointAcc;
    for (var j = 0; j < J; j++) seed.in[3 + j] <== packed[j];
    signal alpha <== seed.out;
    signal beta <== PoseidonHash(1)([alpha]);

    component row[N];
    var tableSum = 0;
    for (var i = 0; i < N; i++) {
        row[i] = LogTerm();
        row[i].alpha <== alpha;
        row[i].key <== leaves[i] + beta * (i + 1);
        row[i].weight <== m[i];
        tableSum += row[i].out;
    }

    component entry[K];
    signal entryBeta[K];
    var entrySum = 0;
    for (var k = 0; k < K; k++) {
        entryBeta[k] <== beta * cpN[k];
        entry[k] = LogTerm();
        entry[k].alpha <== alpha;
        entry[k].key <== cpHead[k] + entryBeta[k];
        entry[k].weight <== cpActive[k];
        entrySum += entry[k].out;
    }
    tableSum === entrySum;
}
