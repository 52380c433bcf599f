pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "hash.circom";
include "multiset.circom";

// Occurrence counts of (tool, args) keys in linear cost: the prover labels each live
// record with its key's occurrence number and the circuit checks the labels with a
// multiset identity and a distinctness certificate (multiset.circom), instead of
// comparing every pair of records. predicates/aap5/repeats.ts computes the labels and mirrors
// the packing and the challenges; docs/SOUNDNESS.md, "AAP-5 limits", has the argument;
// test/circuits/repeats.test.ts the edges and forged witnesses.

// hit[i] = 1 iff record i is live and is the bound-th occurrence of its (tool, args)
// key. Some key occurs more than L times among the live records iff some hit is 1
// for bound = L + 1; bound = 0 ("no limit") never hits.
//
// Hints, from the prover: count[i], record i's occurrence number within its key
// (1, 2, ...), and last[i] = 1 on the last occurrence; for records that are not
// live, count 1 and last 0. weight[] certifies that the records with count 1 have
// distinct keys (DistinctRoots). The circuit checks, per key K with m live records:
//   (1) count[i] in [1, 2^B] and last[i] in {0, live[i]};
//   (2) the multiset identity
//         {(K, c) : live} = {(K, c - 1) : live, c >= 2} ⊎ {(K, c) : last},
//       so the number n_c of K's records labelled c satisfies n_c = n_(c+1) + t_c
//       with t_c >= 0: it never grows with c;
//   (3) the records labelled 1 have distinct keys, so n_1 <= 1.
// Hence n_c is 1 for c = 1..m and 0 beyond: K's labels are exactly 1..m, and K has
// a record labelled L + 1 iff m > L. The order of the labels is the prover's
// choice and does not matter: only whether the (L+1)-th exists is read.
//
// Fiat–Shamir: beta = Hash(seed, packed count/last labels) fingerprints keys and
// (key, count) pairs; zeta = Hash(beta, weight) is the test point. Assumes
// live[] boolean and `seed` binds tool[] and args[] of every live record (the main
// circuit passes the trace's final root), so every value tested is fixed before the
// challenge that tests it.
// Cost: (B + 20)·N + 1 + HashVector(1 + packs) + HashVector(1 + N); the hash of the
// certificate, about 609/15 = 41 per record, is the largest part at large N.
template RepeatHits(N) {
    assert(N >= 2);
    signal input live[N];
    signal input tool[N];
    signal input args[N];
    signal input bound;
    signal input seed;
    signal input count[N];
    signal input last[N];
    signal input weight[N];
    signal output hit[N];

    // Labels: count - 1 in B bits, the last bit above it.
    var B = countBits(N);
    var PER = labelsPerElement(B + 1);
    var PACKS = (N + PER - 1) \ PER;

    // (1), and the labels packed injectively: each is below 2^(B + 1).
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

    component betaHash = HashVector(1 + PACKS);
    betaHash.in[0] <== seed;
    for (var k = 0; k < PACKS; k++) betaHash.in[1 + k] <== packs[k];
    signal beta <== betaHash.out;
    signal betaSquared <== beta * beta;

    // key[i] fingerprints (tool, args); entry[i] fingerprints (tool, args, count).
    signal key[N];
    signal entry[N];
    for (var i = 0; i < N; i++) {
        key[i] <== tool[i] + beta * args[i];
        entry[i] <== key[i] + betaSquared * count[i];
    }

    component zetaHash = HashVector(1 + N);
    zetaHash.in[0] <== beta;
    for (var i = 0; i < N; i++) zetaHash.in[1 + i] <== weight[i];
    signal zeta <== zetaHash.out;

    // (2): entry - beta² fingerprints (tool, args, count - 1).
    signal labelled <== SelectedProduct(N)(live, entry, zeta);
    component stepsAndLasts = SelectedProduct(2 * N);
    stepsAndLasts.z <== zeta;
    for (var i = 0; i < N; i++) {
        stepsAndLasts.sel[i] <== live[i] - first[i];
        stepsAndLasts.f[i] <== entry[i] - betaSquared;
        stepsAndLasts.sel[N + i] <== last[i];
        stepsAndLasts.f[N + i] <== entry[i];
    }
    labelled === stepsAndLasts.out;

    // (3)
    DistinctRoots(N)(first, key, weight, zeta);

    component atBound[N];
    for (var i = 0; i < N; i++) {
        atBound[i] = IsEqual();
        atBound[i].in <== [count[i], bound];
        hit[i] <== live[i] * atBound[i].out;
    }
}
