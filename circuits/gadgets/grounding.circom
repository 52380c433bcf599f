pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "hash.circom";
include "multiset.circom";
include "poseidon.circom";

// AAP-6 strict grounding: is every queried value grounded by an equal value in a strictly earlier
// record? In linear cost, without comparing every pair of elements: the prover claims the verdict
// and the circuit checks whichever of two arguments the claim needs. predicates/aap6/grounding.ts
// computes the hints and mirrors the packing and the challenges; test/circuits/grounding.test.ts
// has the edges and the forged witnesses.

// violated = 1 iff some element e with query[e] = 1 has no element g with ground[g] = 1,
// value[g] = value[e] and rec(g) < rec(e), where rec(e) = e \ O: element e is observed value
// e % O of record e \ O, so a ground in the same record as the query does not ground it.
//
// Assumes ground[] and query[] boolean, and that `seed` binds value[], ground[] and query[]
// (the main circuit passes the trace's final root). The gadget compares field elements, 0 included,
// so the caller sets query only on present (nonzero) values; a ground of 0 then grounds nothing.
//
// Hints, all prover-chosen: pick[M], gap[M], mult[M] and accInv. b = Σ pick is the claimed verdict.
//
// Violation mode (b = 1). pick is boolean with Σ pick ∈ {0, 1}, and pick[e] = 1 only where
// query[e] = 1: it selects one query q, and V = value[q]. With
//   before(r) = ∏ (V − value[g]) over the ground elements g of records 0..r
// (a running product over the elements), acc = Σ_r pickedIn(r)·before(r − 1) = before(rec(q) − 1),
// the product over the grounds of strictly earlier records (1 for a query at record 0), and
// acc·accInv = b. So b = 1 needs acc ≠ 0: no earlier ground has value V, q is ungrounded.
// Deterministic: a satisfied input has acc = 0 for every q, and acc·accInv = 1 has no solution.
// With b = 0, no pick, acc = 0 and the constraint reads 0 = 0.
//
// Satisfied mode (b = 0). Each query e names the record j(e) = rec(e) − 1 − gap[e] holding its
// ground, gap[e] in D = countBits(N) bits for every element, so j(e) ∈ [rec(e) − 2^D, rec(e) − 1]:
// below rec(e), and where it wraps below 0, a field element near r that is no record index (a
// query at record 0 has no valid j at all). A log-derivative lookup of the pairs (value, j) into
// the table {(value[g], rec(g)) : ground[g] = 1}, fingerprinted as value + β·index:
//   (1 − b)·Σ_query 1/(z − value[e] − β·j(e))  =  Σ_ground mult[g]/(z − value[g] − β·rec(g)),
// mult[g] in Bm = countBits(M) bits (at most M − 1 queries point at one row). Each inverse is a
// signal inv·(z − f) = sel with inv·(1 − sel) = 0 (sel = query on the left, ground on the right),
// so an unselected element's
// inverse is 0 and cannot balance the sums; the left is gated by (1 − b) rather than each row, one
// constraint instead of M. If some query e is ungrounded, no table row has (value[e], j(e)) for
// any gap: j(e) < rec(e) and no ground of an earlier record has its value. Unless β makes two
// different pairs share a fingerprint (≤ M² values of β), the pole at e's fingerprint has a left
// coefficient in 1..M (nonzero mod r) and a right one of 0: the two sides are different rational
// functions of z, equal at ≤ 2M points. With b = 1, the left is 0 and mult = 0 balances it.
//
// Fiat–Shamir: β = HashVector(seed, packed labels gap + 2^D·mult, D + Bm bits each), z = Poseidon(β).
// What binds each prover-chosen value before the challenge that tests it:
//   value, ground, query: seed;  gap, mult: the packing (injective: both are range-checked);
//   β, z: computed;  inverses: pinned by their two constraints once z is known;
//   pick, accInv: not needed: the violation argument uses no challenge, and b only switches the
//   left sum between 0 and the query set, which seed fixes.
// docs/SOUNDNESS.md, "AAP-6 strict grounding", has the argument.
// Cost: (10 + D + Bm)·M + N + 1 + HashVector(1 + packs) + Poseidon(1).
template StrictGrounding(N, O) {
    assert(N >= 2);
    assert(O >= 1);
    var M = N * O;
    var D = countBits(N);
    // A ground row serves at most M − 1 queries (never itself: a query's ground is in an earlier record).
    var BM = countBits(M);
    var WIDTH = D + BM;
    var PER = labelsPerElement(WIDTH);
    var PACKS = (M + PER - 1) \ PER;

    signal input value[M];
    signal input ground[M];
    signal input query[M];
    signal input seed;
    signal input pick[M];
    signal input gap[M];
    signal input mult[M];
    signal input accInv;
    signal output violated;

    // Violation mode. pick[e]·(pick[e] − query[e]) = 0: pick is 0, or 1 on a query.
    var picked = 0;
    var target = 0;
    signal pickedValue[M];
    for (var e = 0; e < M; e++) {
        pick[e] * (pick[e] - query[e]) === 0;
        picked += pick[e];
        pickedValue[e] <== pick[e] * value[e];
        target += pickedValue[e];
    }
    signal b <== picked;
    b * (b - 1) === 0;

    // before[g] = ∏ (V − value[k]) over the ground elements k <= g; term[g] + 1 is one factor.
    signal term[M];
    signal before[M];
    for (var g = 0; g < M; g++) {
        term[g] <== ground[g] * (target - value[g] - 1);
        if (g == 0) before[g] <== term[g] + 1;
        else before[g] <== before[g - 1] * (term[g] + 1);
    }
    // lead[r - 1] = (pick in record r)·before(last element of record r − 1).
    signal lead[N - 1];
    var acc = 0;
    for (var r = 0; r < N; r++) {
        var pickedHere = 0;
        for (var k = 0; k < O; k++) pickedHere += pick[r * O + k];
        if (r == 0) {
            acc += pickedHere;
        } else {
            lead[r - 1] <== pickedHere * before[r * O - 1];
            acc += lead[r - 1];
        }
    }
    acc * accInv === b;

    // Satisfied mode: range checks, which also make the packing injective.
    component gapBits[M];
    component multBits[M];
    var packs[PACKS];
    for (var k = 0; k < PACKS; k++) packs[k] = 0;
    for (var e = 0; e < M; e++) {
        gapBits[e] = Num2Bits(D);
        gapBits[e].in <== gap[e];
        multBits[e] = Num2Bits(BM);
        multBits[e].in <== mult[e];
        packs[e \ PER] += (gap[e] + (1 << D) * mult[e]) * (2 ** (WIDTH * (e % PER)));
    }
    component betaHash = HashVector(1 + PACKS);
    betaHash.in[0] <== seed;
    for (var k = 0; k < PACKS; k++) betaHash.in[1 + k] <== packs[k];
    signal beta <== betaHash.out;
    signal z <== PoseidonHash(1)([beta]);

    // queryPrint[e] fingerprints (value[e], j(e)); a table row's print value + β·rec(g) is linear.
    signal queryPrint[M];
    signal queryInv[M];
    signal groundInv[M];
    signal share[M];
    var queries = 0;
    var grounds = 0;
    for (var e = 0; e < M; e++) {
        var rec = e \ O;
        queryPrint[e] <== value[e] + beta * (rec - 1 - gap[e]);
        queryInv[e] <-- query[e] != 0 ? 1 / (z - queryPrint[e]) : 0;
        queryInv[e] * (z - queryPrint[e]) === query[e];
        queryInv[e] * (1 - query[e]) === 0;
        queries += queryInv[e];
        groundInv[e] <-- ground[e] != 0 ? 1 / (z - value[e] - beta * rec) : 0;
        groundInv[e] * (z - value[e] - beta * rec) === ground[e];
        groundInv[e] * (1 - ground[e]) === 0;
        share[e] <== mult[e] * groundInv[e];
        grounds += share[e];
    }
    (1 - b) * queries === grounds;

    violated <== b;
}
