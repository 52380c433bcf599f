pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "hash.circom";
include "multiset.circom";
include "segment_argument.circom";
include "segment.circom";

// RepeatHits (repeats.circom) over a session cut into segments. The labels are the session's: count[i] is
// row i's occurrence number within its (tool, args) key over the whole session, last[i] marks the session's
// last occurrence. The two identities of RepeatHits hold over the whole session, so each segment multiplies
// its rows into running products and sums it carries, and the last segment checks them
// (SessionArgumentClose in segment_argument.circom). The challenges are global too: the prover picks beta
// and zeta in segment 0, every segment uses the carried values, and the last one requires
//     beta = HashVector(finalRoot, packChain),  zeta = HashVector(beta, weightChain),
// where packChain and weightChain are hash chains over every segment's packed labels and certificate
// weights, in segment order. So every value a test reads was fixed before the challenge that tests it,
// as in the single circuit: tool and args by finalRoot, the labels by packChain (in beta), the weights
// by weightChain (in zeta). docs/SOUNDNESS.md "Segment chains" has the table.
// Labels: count − 1 in 24 bits, since a session holds at most 16^6 = 2^24 records.
function SESSION_COUNT_BITS() { return 4 * segmentTreeHeight(); }

// One segment's share. The carried values, in: packChain, weightChain (hash chains, 0 at the start),
// labelled = ∏ (zeta − entry) over live rows, steps = ∏ (zeta − (entry − beta²)) over live rows with
// count ≥ 2 times ∏ (zeta − entry) over last rows, roots = ∏ (zeta − key) over live rows labelled 1 and
// fractions = Σ weight/(zeta − key) over them, firsts = their number (1, 1, 1, 0, 0 at the start).
// Assumes live[] boolean and beta, zeta the carried challenges.
template RepeatHitsFrom(N) {
    signal input live[N];
    signal input tool[N];
    signal input args[N];
    signal input bound;
    signal input count[N];
    signal input last[N];
    signal input weight[N];
    signal input beta;
    signal input zeta;
    signal input packChainIn;
    signal input weightChainIn;
    signal input labelledIn;
    signal input stepsIn;
    signal input rootsIn;
    signal input fractionsIn;
    signal input firstsIn;
    signal output hit[N];
    signal output packChainOut;
    signal output weightChainOut;
    signal output labelledOut;
    signal output stepsOut;
    signal output rootsOut;
    signal output fractionsOut;
    signal output firstsOut;

    var B = SESSION_COUNT_BITS();
    var PER = labelsPerElement(B + 1);
    var PACKS = (N + PER - 1) \ PER;

    // Labels range-checked and packed injectively, as in RepeatHits.
    component countBits[N];
    component isFirst[N];
    signal first[N];
    var packs[PACKS];
    for (var k = 0; k < PACKS; k++) packs[k] = 0;
    for (var i = 0; i < N; i++) {
        countBits[i] = Num2Bits(B);
        countBits[i].in <== count[i] - 1;
        last[i] * (last[i] - live[i]) === 0;
        isFirst[i] = IsZero();
        isFirst[i].in <== count[i] - 1;
        first[i] <== live[i] * isFirst[i].out;
        packs[i \ PER] += (count[i] - 1 + (1 << B) * last[i]) * (2 ** ((B + 1) * (i % PER)));
    }
    component packLink = HashVector(1 + PACKS);
    packLink.in[0] <== packChainIn;
    for (var k = 0; k < PACKS; k++) packLink.in[1 + k] <== packs[k];
    packChainOut <== packLink.out;
    component weightLink = HashVector(1 + N);
    weightLink.in[0] <== weightChainIn;
    for (var i = 0; i < N; i++) weightLink.in[1 + i] <== weight[i];
    weightChainOut <== weightLink.out;

    signal betaSquared <== beta * beta;
    signal key[N];
    signal entry[N];
    for (var i = 0; i < N; i++) {
        key[i] <== tool[i] + beta * args[i];
        entry[i] <== key[i] + betaSquared * count[i];
    }

    signal labelled <== SelectedProduct(N)(live, entry, zeta);
    labelledOut <== labelledIn * labelled;
    component steps = SelectedProduct(2 * N);
    steps.z <== zeta;
    for (var i = 0; i < N; i++) {
        steps.sel[i] <== live[i] - first[i];
        steps.f[i] <== entry[i] - betaSquared;
        steps.sel[N + i] <== last[i];
        steps.f[N + i] <== entry[i];
    }
    stepsOut <== stepsIn * steps.out;

    component distinct = DistinctRootsFrom(N);
    distinct.first <== first;
    distinct.key <== key;
    distinct.weight <== weight;
    distinct.zeta <== zeta;
    distinct.rootsIn <== rootsIn;
    distinct.fractionsIn <== fractionsIn;
    distinct.firstsIn <== firstsIn;
    rootsOut <== distinct.rootsOut;
    fractionsOut <== distinct.fractionsOut;
    firstsOut <== distinct.firstsOut;

    component atBound[N];
    for (var i = 0; i < N; i++) {
        atBound[i] = IsEqual();
        atBound[i].in <== [count[i], bound];
        hit[i] <== live[i] * atBound[i].out;
    }
}
