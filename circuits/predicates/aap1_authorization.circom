pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/hash.circom";
include "../gadgets/multiset.circom";

// AAP-1 authorization (invocation mode). Semantics, θ and encoding:
// sdk/core/predicates/aap1/definition.ts. In short, an executed call i to a gated
// tool is authorized iff
//   (a) it has an action id (slot != 0),
//   (b) no earlier executed gated call has the same action id (one invocation, once),
//   (c) among the earlier authorization records with that action id, the latest
//       one is valid (allow, accepted authority, a policy id when the authority is
//       policy) and covers the same tool and args hash.
// Each record i needs a state over the earlier records with its action id: the
// latest authorization's validity and (tool, args), and whether a gated call came
// before. Aap1Authorization threads that state through each action id's records
// in linear cost, from the prover's labels (sdk/core/predicates/aap1/chains.ts).

// The θ vector of AAP-1, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, 3, gatedTools[T], human, policy, auto_review]
// (sdk/core/predicates/aap1/definition.ts, thetaVector).
function AAP1_PREDICATE_ID() { return 1; }

// What the scan needs of one record, decoded from its slots.
// Assumes: `active` is boolean (PrefixMask); `accepted` are booleans (the main
// template constrains them); the aux slot of an authorization record is
// decision + 4*authority + 16*scope < 64, as encodeSlots writes it (a larger one
// has no witness: Num2Bits(6) refuses it, so such a trace cannot be proven at all).
// Outputs:
//   isAuth = kind is AUTHORIZATION (unmasked: only read for j < i < n, so active);
//   gated  = active, kind is CALL (blocked calls are kind BLOCKED), tool in tools;
//   valid  = isAuth, decision allow (1), authority accepted, and a non-zero policy
//            reference (target0) when the authority is policy (2).
// Padding `tools` with 0 is safe: a real tool slot is a string hash, never 0.
template Aap1Record(T) {
    signal input active;
    signal input kind;
    signal input tool;
    signal input aux;
    signal input ref;
    signal input tools[T];
    signal input accepted[3];
    signal output isAuth;
    signal output gated;
    signal output valid;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    isAuth <== IsEqual()([kind, KIND_AUTHORIZATION()]);
    signal listed <== IsInSet(T)(tool, tools);
    signal activeCall <== active * isCall;
    gated <== activeCall * listed;

    // Only an authorization's aux is decoded; any other record decodes 0 (no allow).
    // b0,b1: decision (allow = 01); b2,b3: authority (human 01, policy 10,
    // auto_review 11); b4,b5: scope, which the rule does not read.
    signal code <== isAuth * aux;
    signal b[6] <== Num2Bits(6)(code);
    signal allow <== b[0] * (1 - b[1]);
    signal autoReview <== b[2] * b[3];
    signal human <== b[2] - autoReview;
    signal policy <== b[3] - autoReview;

    signal noRef <== IsZero()(ref);
    signal humanOk <== human * accepted[0];
    signal policyAccepted <== policy * accepted[1];
    signal policyOk <== policyAccepted * (1 - noRef);
    signal autoOk <== autoReview * accepted[2];
    valid <== allow * (humanOk + policyOk + autoOk);
}

// Per-record violation flags of AAP-1 over N records.
//
// The members of action id A are the active authorizations and gated calls with
// action A. The prover labels each member with its rank among A's members (1, 2,
// ... in record order), the index of the member before it (pred), a last bit, and
// the state before it (validIn, usedIn, coversIn; 0 for rank 1), where
//   covers = tool + seed·args fingerprints an authorization's (tool, args);
//   the state after member j is (valid_j, 0-or-used, covers_j) for an authorization
//   (usedIn carried over) and (validIn, 1, coversIn) for a gated call.
// The circuit checks, as RepeatHits does for counts (repeats.circom):
//   {(A, rank, j, stateOut) : member}
//     = {(A, rank - 1, pred, stateIn) : member, rank >= 2} ⊎ {(A, rank, j, stateOut) : last}
// and that the rank-1 members have distinct actions (DistinctRoots). So each A's
// ranks are exactly 1..m, and each rank r >= 2 member's pred is the rank r - 1
// member and its state in is that member's state out. pred < i makes rank order
// record order, so state in is the fold over exactly the earlier members of A.
// A gated call i is authorized iff action != 0, validIn, coversIn = covers_i and
// not usedIn: the rules (a)-(c) above.
//
// Fiat–Shamir, as in RepeatHits: seed (the final root, which binds every active
// record's slots) fingerprints (tool, args); beta = Hash(seed, packed labels,
// coversIn) fingerprints the tuples; zeta = Hash(beta, weight) tests them.
// Assumes active is a prefix mask (PrefixMask), and accepted boolean.
// Cost: about (3B + 40)·N plus the two hashes, ~41 per record each for coversIn and
// the certificate's weights: docs/PREDICATES.md.
template Aap1Authorization(N, T) {
    assert(N >= 2);
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
    signal output violations[N];

    // Labels: rank - 1 (B bits), last, pred (B bits), validIn, usedIn.
    var B = countBits(N);
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
        // pred < i for every member with a predecessor; record 0 has none.
        gapBits[i] = Num2Bits(B);
        gapBits[i].in <== step[i] * (i - 1 - pred[i]);

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

    component betaHash = HashVector(1 + PACKS + N);
    betaHash.in[0] <== seed;
    for (var k = 0; k < PACKS; k++) betaHash.in[1 + k] <== packs[k];
    for (var i = 0; i < N; i++) betaHash.in[1 + PACKS + i] <== coversIn[i];
    signal beta <== betaHash.out;
    signal betaSquared <== beta * beta;

    component zetaHash = HashVector(1 + N);
    zetaHash.in[0] <== beta;
    for (var i = 0; i < N; i++) zetaHash.in[1 + i] <== weight[i];
    signal zeta <== zetaHash.out;

    // Tuple fingerprints: action + beta·small + beta²·covers, where small packs
    // (rank - 1, index, valid, used) injectively (each part range-checked or boolean).
    // A member's "in" tuple names its predecessor: rank - 1 and pred.
    signal betaSmallOut[N];
    signal betaSmallIn[N];
    signal tupleOut[N];
    signal tupleIn[N];
    for (var i = 0; i < N; i++) {
        betaSmallOut[i] <== beta * (rank[i] - 1 + (1 << B) * i
            + (1 << (2 * B)) * validOut[i] + (1 << (2 * B + 1)) * usedOut[i]);
        betaSmallIn[i] <== beta * (rank[i] - 2 + (1 << B) * pred[i]
            + (1 << (2 * B)) * validIn[i] + (1 << (2 * B + 1)) * usedIn[i]);
        tupleOut[i] <== action[i] + betaSmallOut[i] + betaSquared * coversOut[i];
        tupleIn[i] <== action[i] + betaSmallIn[i] + betaSquared * coversIn[i];
    }
    signal states <== SelectedProduct(N)(member, tupleOut, zeta);
    component handOffs = SelectedProduct(2 * N);
    handOffs.z <== zeta;
    for (var i = 0; i < N; i++) {
        handOffs.sel[i] <== step[i];
        handOffs.f[i] <== tupleIn[i];
        handOffs.sel[N + i] <== last[i];
        handOffs.f[N + i] <== tupleOut[i];
    }
    states === handOffs.out;
    DistinctRoots(N)(first, action, weight, zeta);

    // The verdict on each gated call, from its state in.
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

// Checks paramsHash = HashVector(θ) (the vector above); the main and the segment circuit both use it.
// The authorities' booleanity is checked by the caller, before this hash, where it always stood.
template Aap1Theta(T) {
    signal input paramsHash;
    signal input gatedTools[T];
    signal input authorities[3];

    component theta = HashVector(3 + T + 3);
    theta.in[0] <== AAP1_PREDICATE_ID();
    theta.in[1] <== T;
    theta.in[2] <== 3;
    for (var i = 0; i < T; i++) theta.in[3 + i] <== gatedTools[i];
    for (var i = 0; i < 3; i++) theta.in[3 + T + i] <== authorities[i];
    paramsHash === theta.out;
}
