pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "hash.circom";
include "multiset.circom";

// The pieces of a session-wide multiset argument split over segments, shared by AAP-1's authorization
// chains (segment_authorization.circom) and AAP-5's repeat labels (segment_repeats.circom). Each segment
// multiplies its rows into two running products and a distinctness certificate and carries them; the
// challenges beta and zeta are picked by the prover in segment 0, carried unchanged, and pinned by the last
// segment to hashes of everything they test (SessionArgumentClose). docs/SOUNDNESS.md "Segment chains".

// DistinctRoots (multiset.circom) continued over segments: the rows with first[i] = 1 add key[i] to the
// running roots = ∏ (zeta − key) and fractions = Σ weight/(zeta − key), and count into firsts. The last
// segment requires roots · fractions = 1 (or no first row at all), which holds at a random zeta only if
// the session's first-row keys are pairwise distinct. inv[i] is pinned on every row: the inverse where
// first[i] = 1, and 0 elsewhere, so an unselected row adds nothing whatever its weight.
// Assumes first[] boolean.
template DistinctRootsFrom(N) {
    signal input first[N];
    signal input key[N];
    signal input weight[N];
    signal input zeta;
    signal input rootsIn;
    signal input fractionsIn;
    signal input firstsIn;
    signal output rootsOut;
    signal output fractionsOut;
    signal output firstsOut;

    signal inv[N];
    signal term[N];
    var fractions = 0;
    var firsts = 0;
    for (var i = 0; i < N; i++) {
        inv[i] <-- first[i] != 0 ? 1 / (zeta - key[i]) : 0;
        inv[i] * (zeta - key[i]) === first[i];
        inv[i] * (1 - first[i]) === 0;
        term[i] <== weight[i] * inv[i];
        fractions += term[i];
        firsts += first[i];
    }
    signal roots <== SelectedProduct(N)(first, key, zeta);
    rootsOut <== rootsIn * roots;
    fractionsOut <== fractionsIn + fractions;
    firstsOut <== firstsIn + firsts;
}

// The last segment's checks, enforced where isLast = 1: the challenges are the hashes of everything they
// test (beta of the final root and the hash chain of every segment's labels, zeta of beta and the chain
// of every segment's weights), the two running products agree (left = right: the multiset identity), and
// the first rows' keys are distinct (roots · fractions = 1, or no first row in the session). firsts is
// at most the session's length, 2^24 < r, so it is 0 only when none was counted.
template SessionArgumentClose() {
    signal input isLast;
    signal input finalRoot;
    signal input beta;
    signal input zeta;
    signal input packChain;
    signal input weightChain;
    signal input left;
    signal input right;
    signal input roots;
    signal input fractions;
    signal input firsts;

    signal betaSeed <== HashVector(2)([finalRoot, packChain]);
    isLast * (beta - betaSeed) === 0;
    signal zetaSeed <== HashVector(2)([beta, weightChain]);
    isLast * (zeta - zetaSeed) === 0;
    isLast * (left - right) === 0;
    signal empty <== IsZero()(firsts);
    signal certified <== roots * fractions;
    isLast * (certified - 1 + empty) === 0;
}
