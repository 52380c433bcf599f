pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "hash.circom";
include "multiset.circom";
include "poseidon.circom";
include "segment_repeats.circom";

// StrictGrounding (grounding.circom) over a session cut into segments of N records: the same two
// arguments, with the session's record indices and the running values carried from segment to segment
// (circuits/segments/aap6_grounding.circom hashes them into the predicate state). Element e of a segment
// is value e % O of the session's record rec(e) = start + e \ O, start = index·N.
//
// Carried (in, and out where they change):
//   b, V        the claimed verdict and, in violation mode, the picked value: the prover's, fixed in
//               segment 0 and carried unchanged (nothing pins them: see the table below)
//   picked      the picks so far; running = ∏ (V − value[g]) over the ground elements so far (1 at the
//               start); acc = Σ over picks of `running` just before the picked element's record
//   querySum, groundSum  the two sides of the log-derivative lookup so far (0 at the start)
//   packChain   HashVector chain over every segment's packed gap/mult labels (0 at the start)
//   beta, z     the lookup's challenges: the prover's in segment 0, carried unchanged
// Per segment, every element gets StrictGrounding's constraints with those carried values. The last
// segment (isLast = 1) closes the arguments:
//   picked = b,  acc·accInv = b,  (1 − b)·querySum = groundSum,
//   beta = HashVector(finalRoot, packChain),  z = Poseidon(beta).
//
// Violation mode (b = 1). Each pick is boolean and sits on a query whose value is V
// (pick·(pick − query) = 0, pick·(value − V) = 0), at most one per segment (pickedHere boolean), and
// the session's total is b = 1: exactly one query q is picked, and V = value[q]. acc is then the product
// of (V − value[g]) over the ground elements of the records before rec(q) in the whole session (earlier
// segments through `running`, this one through the running product), and acc·accInv = 1 needs it
// nonzero: no earlier ground has value V, q is ungrounded. With b = 0 nothing is picked and acc = 0.
// Deterministic: it uses no challenge, so V and the picks may be chosen at any time.
//
// Satisfied mode (b = 0). Each query names the record j(e) = rec(e) − 1 − gap[e] holding its ground,
// gap in SESSION_COUNT_BITS() = 24 bits: j(e) ∈ [rec(e) − 2^24, rec(e) − 1], below rec(e), and where it
// wraps below 0 a field element near r that no record index (< 2^24, SegmentRows) equals. The lookup
// (1 − b)·Σ_query 1/(z − value − β·j) = Σ_ground mult/(z − value − β·rec), mult in 24 + 2 bits (a
// session holds at most 2^25 queries), holds over the whole session, each segment adding its share; the
// argument is StrictGrounding's at the session's size M ≤ 2^25 elements: a false lookup survives only a
// β that makes two of the ≤ 2M pairs share a fingerprint (≤ (2M)² values) or a z among the ≤ 4M roots of
// the difference of two distinct rational functions, both below 2^−190 at M = 2^25.
//
// Prover-chosen value → what binds it before the challenge that tests it:
//   value, ground, query (obs, status, slots, θ's roles)  finalRoot (leaves bind slots and digests;
//                                  RecordDigest binds status and obs of every row read as observed),
//                                  hashed into β; θ is the claim's (paramsHash, public via claimDigest)
//   gap, mult (every segment's)    packChain, hashed into β; the packing is injective as both are
//                                  range-checked (WIDTH = 50 bits, 5 labels a field element)
//   β, z                           pinned by the last segment to HashVector(finalRoot, packChain) and
//                                  Poseidon(β); carried unchanged, so every segment used the pinned ones
//   queryInv, groundInv (<--)      fixed by their two constraints once z and β are
//   b, V, pick, accInv             nothing needed: the violation argument uses no challenge, and b only
//                                  switches the lookup's left side between 0 and the query set, which
//                                  finalRoot fixes; b = 1 must then pass the deterministic argument
//   carried values at a boundary   the state commitment (SegmentState): changing one breaks stateIn
//
// Assumes ground[] and query[] boolean (Aap6RecordRoles), query only on present (nonzero) values, isLast
// boolean and start = index·N with start + N ≤ 2^24 (SegmentRows).
template StrictGroundingFrom(N, O) {
    var M = N * O;
    var G = SESSION_COUNT_BITS();
    var BM = G + 2;
    var WIDTH = G + BM;
    var PER = labelsPerElement(WIDTH);
    var PACKS = (M + PER - 1) \ PER;

    signal input value[M];
    signal input ground[M];
    signal input query[M];
    signal input start;
    signal input isLast;
    signal input finalRoot;
    signal input pick[M];
    signal input gap[M];
    signal input mult[M];
    signal input accInv;
    signal input b;
    signal input V;
    signal input beta;
    signal input z;
    signal input pickedIn;
    signal input runningIn;
    signal input accIn;
    signal input querySumIn;
    signal input groundSumIn;
    signal input packChainIn;
    signal output pickedHere;
    signal output pickedOut;
    signal output runningOut;
    signal output accOut;
    signal output querySumOut;
    signal output groundSumOut;
    signal output packChainOut;

    b * (b - 1) === 0;

    // Violation mode: picks on queries of value V, at most one in this segment.
    var picked = 0;
    for (var e = 0; e < M; e++) {
        pick[e] * (pick[e] - query[e]) === 0;
        pick[e] * (value[e] - V) === 0;
        picked += pick[e];
    }
    pickedHere <== picked;
    pickedHere * (pickedHere - 1) === 0;
    pickedOut <== pickedIn + pickedHere;

    // before[g] = running · ∏ (V − value[k]) over this segment's ground elements k <= g.
    signal term[M];
    signal before[M];
    for (var g = 0; g < M; g++) {
        term[g] <== ground[g] * (V - value[g] - 1);
        if (g == 0) before[g] <== runningIn * (term[g] + 1);
        else before[g] <== before[g - 1] * (term[g] + 1);
    }
    runningOut <== before[M - 1];
    // lead[r] = (pick in record r)·(the product over every ground element before record r).
    signal lead[N];
    var acc = accIn;
    for (var r = 0; r < N; r++) {
        var pickedInRecord = 0;
        for (var k = 0; k < O; k++) pickedInRecord += pick[r * O + k];
        if (r == 0) lead[r] <== pickedInRecord * runningIn;
        else lead[r] <== pickedInRecord * before[r * O - 1];
        acc += lead[r];
    }
    accOut <== acc;

    // Satisfied mode: range checks, which also make the packing injective.
    component gapBits[M];
    component multBits[M];
    var packs[PACKS];
    for (var k = 0; k < PACKS; k++) packs[k] = 0;
    for (var e = 0; e < M; e++) {
        gapBits[e] = Num2Bits(G);
        gapBits[e].in <== gap[e];
        multBits[e] = Num2Bits(BM);
        multBits[e].in <== mult[e];
        packs[e \ PER] += (gap[e] + (1 << G) * mult[e]) * (2 ** (WIDTH * (e % PER)));
    }
    component packLink = HashVector(1 + PACKS);
    packLink.in[0] <== packChainIn;
    for (var k = 0; k < PACKS; k++) packLink.in[1 + k] <== packs[k];
    packChainOut <== packLink.out;

    // A table row's print is value + β·(start + rec) and a query's value + β·(start + rec − 1 − gap):
    // linear in betaStart, one product per query for β·gap.
    signal betaStart <== beta * start;
    signal betaGap[M];
    signal queryInv[M];
    signal groundInv[M];
    signal share[M];
    var queries = 0;
    var grounds = 0;
    for (var e = 0; e < M; e++) {
        var rec = e \ O;
        betaGap[e] <== beta * gap[e];
        var groundPrint = value[e] + betaStart + beta * rec;
        var queryPrint = groundPrint - beta - betaGap[e];
        queryInv[e] <-- query[e] != 0 ? 1 / (z - queryPrint) : 0;
        queryInv[e] * (z - queryPrint) === query[e];
        queryInv[e] * (1 - query[e]) === 0;
        queries += queryInv[e];
        groundInv[e] <-- ground[e] != 0 ? 1 / (z - groundPrint) : 0;
        groundInv[e] * (z - groundPrint) === ground[e];
        groundInv[e] * (1 - ground[e]) === 0;
        share[e] <== mult[e] * groundInv[e];
        grounds += share[e];
    }
    querySumOut <== querySumIn + queries;
    groundSumOut <== groundSumIn + grounds;

    // The last segment closes both arguments and pins the challenges.
    isLast * (pickedOut - b) === 0;
    signal accProduct <== accOut * accInv;
    isLast * (accProduct - b) === 0;
    signal lookupLeft <== (1 - b) * querySumOut;
    isLast * (lookupLeft - groundSumOut) === 0;
    signal betaSeed <== HashVector(2)([finalRoot, packChainOut]);
    isLast * (beta - betaSeed) === 0;
    signal zSeed <== PoseidonHash(1)([beta]);
    isLast * (z - zSeed) === 0;
}
