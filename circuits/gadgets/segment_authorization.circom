pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "hash.circom";
include "multiset.circom";
include "segment_argument.circom";
include "segment_repeats.circom";
include "../predicates/aap1_authorization.circom";

// Aap1Authorization (predicates/aap1_authorization.circom) over a session cut into segments. An action id
// is the other set of a session without bound, so its members' chains run over the whole session, as
// RepeatHitsFrom runs AAP-5's repeat labels: a member's rank is its rank among its action's members in the
// whole session, pred is its predecessor's session position, last marks the session's last member, and
// validIn, usedIn and coversIn are the state after that predecessor, wherever it lies. Positions are the
// session's, start + i, so the tuples of two segments never share a position. Each segment multiplies its
// members into the two sides of the single circuit's identity
//   {(A, rank, j, stateOut) : member} = {(A, rank − 1, pred, stateIn) : member, rank ≥ 2} ⊎ {(A, rank, j, stateOut) : last}
// (states and handOffs) and its rank-1 members' actions into the distinctness certificate
// (DistinctRootsFrom), carries them, and SessionArgumentClose checks them at the last segment. The
// challenges are global: beta is pinned to HashVector(finalRoot, packChain), where packChain is the hash
// chain of every segment's packed labels and coversIn, and zeta to HashVector(beta, weightChain).
// seed (the final root, public in every segment) fingerprints (tool, args) as in the single circuit.
// Labels: rank − 1 and pred in 24 bits (SESSION_COUNT_BITS: a session holds at most 2^24 records).
// The carried values in: packChain, weightChain (0 at the start), states, handOffs, roots (1), fractions,
// firsts (0). Assumes active[] a prefix mask of the session (SegmentRows), accepted[] boolean, and
// start = index·S + 0 with start + N ≤ 2^24 (SegmentRows bounds the index).
template AuthorizationChainFrom(N, T) {
    signal input start;
    signal input active[N];
    signal input kind[N];
    signal input tool[N];
    signal input args[N];
    signal input action[N];
    signal input aux[N];
    signal input ref[N];
    signal input tools[T];
    signal input accepted[3];
    signal input seed;
    signal input rank[N];
    signal input last[N];
    signal input pred[N];
    signal input validIn[N];
    signal input usedIn[N];
    signal input coversIn[N];
    signal input weight[N];
    signal input beta;
    signal input zeta;
    signal input packChainIn;
    signal input weightChainIn;
    signal input statesIn;
    signal input handOffsIn;
    signal input rootsIn;
    signal input fractionsIn;
    signal input firstsIn;
    signal output violations[N];
    signal output packChainOut;
    signal output weightChainOut;
    signal output statesOut;
    signal output handOffsOut;
    signal output rootsOut;
    signal output fractionsOut;
    signal output firstsOut;

    var B = SESSION_COUNT_BITS();
    // Labels: rank − 1 (B bits), last, pred (B bits), validIn, usedIn.
    var WIDTH = 2 * B + 3;
    var PER = labelsPerElement(WIDTH);
    var PACKS = (N + PER - 1) \ PER;

    component record[N];
    component rankBits[N];
    component predBits[N];
    component gapBits[N];
    component isFirst[N];
    signal auth[N];
    signal member[N];
    signal first[N];
    signal step[N];
    signal covers[N];
    signal validOut[N];
    signal usedOut[N];
    signal coversOut[N];
    var packs[PACKS];
    for (var k = 0; k < PACKS; k++) packs[k] = 0;
    for (var i = 0; i < N; i++) {
        record[i] = Aap1Record(T);
        record[i].active <== active[i];
        record[i].kind <== kind[i];
        record[i].tool <== tool[i];
        record[i].aux <== aux[i];
        record[i].ref <== ref[i];
        record[i].tools <== tools;
        record[i].accepted <== accepted;
        auth[i] <== active[i] * record[i].isAuth;
        // An authorization is never a call, so the sum is boolean.
        member[i] <== auth[i] + record[i].gated;

        rankBits[i] = Num2Bits(B);
        rankBits[i].in <== rank[i] - 1;
        isFirst[i] = IsZero();
        isFirst[i].in <== rank[i] - 1;
        first[i] <== member[i] * isFirst[i].out;
        step[i] <== member[i] - first[i];
        last[i] * (last[i] - member[i]) === 0;
        predBits[i] = Num2Bits(B);
        predBits[i].in <== pred[i];
        // pred < start + i for every member with a predecessor: an earlier session position. Session
        // position 0 has none (its gap would be −1, which no B-bit value is).
        gapBits[i] = Num2Bits(B);
        gapBits[i].in <== step[i] * (start + i - 1 - pred[i]);

        validIn[i] * (validIn[i] - 1) === 0;
        usedIn[i] * (usedIn[i] - 1) === 0;
        first[i] * validIn[i] === 0;
        first[i] * usedIn[i] === 0;
        first[i] * coversIn[i] === 0;

        covers[i] <== tool[i] + seed * args[i];
        validOut[i] <== validIn[i] + auth[i] * (record[i].valid - validIn[i]);
        coversOut[i] <== coversIn[i] + auth[i] * (covers[i] - coversIn[i]);
        usedOut[i] <== usedIn[i] + record[i].gated * (1 - usedIn[i]);

        var label = rank[i] - 1 + (1 << B) * last[i] + (1 << (B + 1)) * pred[i]
            + (1 << (2 * B + 1)) * validIn[i] + (1 << (2 * B + 2)) * usedIn[i];
        packs[i \ PER] += label * (2 ** (WIDTH * (i % PER)));
    }

    // This segment's link of the two hash chains the last segment pins the challenges to.
    component packLink = HashVector(1 + PACKS + N);
    packLink.in[0] <== packChainIn;
    for (var k = 0; k < PACKS; k++) packLink.in[1 + k] <== packs[k];
    for (var i = 0; i < N; i++) packLink.in[1 + PACKS + i] <== coversIn[i];
    packChainOut <== packLink.out;
    component weightLink = HashVector(1 + N);
    weightLink.in[0] <== weightChainIn;
    for (var i = 0; i < N; i++) weightLink.in[1 + i] <== weight[i];
    weightChainOut <== weightLink.out;

    // Tuple fingerprints, as in the single circuit: action + beta·small + beta²·covers, where small packs
    // (rank − 1, session position, valid, used) injectively (each part range-checked or boolean).
    signal betaSquared <== beta * beta;
    signal betaSmallOut[N];
    signal betaSmallIn[N];
    signal tupleOut[N];
    signal tupleIn[N];
    for (var i = 0; i < N; i++) {
        betaSmallOut[i] <== beta * (rank[i] - 1 + (1 << B) * (start + i)
            + (1 << (2 * B)) * validOut[i] + (1 << (2 * B + 1)) * usedOut[i]);
        betaSmallIn[i] <== beta * (rank[i] - 2 + (1 << B) * pred[i]
            + (1 << (2 * B)) * validIn[i] + (1 << (2 * B + 1)) * usedIn[i]);
        tupleOut[i] <== action[i] + betaSmallOut[i] + betaSquared * coversOut[i];
        tupleIn[i] <== action[i] + betaSmallIn[i] + betaSquared * coversIn[i];
    }
    signal states <== SelectedProduct(N)(member, tupleOut, zeta);
    statesOut <== statesIn * states;
    component handOffs = SelectedProduct(2 * N);
    handOffs.z <== zeta;
    for (var i = 0; i < N; i++) {
        handOffs.sel[i] <== step[i];
        handOffs.f[i] <== tupleIn[i];
        handOffs.sel[N + i] <== last[i];
        handOffs.f[N + i] <== tupleOut[i];
    }
    handOffsOut <== handOffsIn * handOffs.out;

    component distinct = DistinctRootsFrom(N);
    distinct.first <== first;
    distinct.key <== action;
    distinct.weight <== weight;
    distinct.zeta <== zeta;
    distinct.rootsIn <== rootsIn;
    distinct.fractionsIn <== fractionsIn;
    distinct.firstsIn <== firstsIn;
    rootsOut <== distinct.rootsOut;
    fractionsOut <== distinct.fractionsOut;
    firstsOut <== distinct.firstsOut;

    // The verdict on each gated call, from its state in: the rules (a)–(c) of the single circuit.
    component noAction[N];
    component sameCover[N];
    signal fresh[N];
    signal covered[N];
    signal ok[N];
    for (var i = 0; i < N; i++) {
        noAction[i] = IsZero();
        noAction[i].in <== action[i];
        sameCover[i] = IsEqual();
        sameCover[i].in <== [coversIn[i], covers[i]];
        fresh[i] <== validIn[i] * (1 - usedIn[i]);
        covered[i] <== fresh[i] * sameCover[i].out;
        ok[i] <== covered[i] * (1 - noAction[i].out);
        violations[i] <== record[i].gated * (1 - ok[i]);
    }
}
