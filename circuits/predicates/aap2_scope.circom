pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/poseidon.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/active_set.circom";

// AAP-2 scope: every executed call to a scoped tool targets a path under a prefix
// that is active at that call. Semantics, θ and encoding: sdk/core/predicates/aap2/definition.ts.
//
// A record is checked when it is real (active), executed (kind = CALL) and its tool
// is in `tools`. Its target slot holds pathDigest = Poseidon(b_1..b_4), b_d the path's
// cumulative hash after min(d, depth) segments (sdk/core/paths.ts), or 0 when the path
// is missing, null or relative: fail-closed, such a call violates. The prover supplies
// the path witness (b_1..b_4); for a checked call with a digest it must hash to the
// slot, so by collision resistance each b_d is the path's real ancestor hash, and the
// root H("/") is an ancestor too (only an absolute path has a digest).
//
// Coverage is shown, not searched: for each call with a path the prover names one
// of its ancestors (`cover`: the root or a b_d), and the call counts as covered iff
// that one is active at it (ActiveState over the scope events compacted by EventLog,
// starting from θ's prefixes). Naming a wrong one only fails to cover; a call none of
// whose ancestors is active has no cover that works. Aap2Uncovered decides the other
// direction exactly, for the one call the prover names as the violation.
// docs/SOUNDNESS.md, "AAP-2".
// Prefix padding with 0 is safe: a named cover is never 0 where it counts (every
// ancestor is a hash), and Aap2Uncovered's ActiveIn never reports 0 as active; tool
// padding with 0 is safe: a real tool hash is never 0.
template Aap2RecordCover(T, P, E) {
    var W = PREFIX_DEPTH();
    signal input active;
    signal input kind;
    signal input tool;
    signal input target;
    signal input path[W];
    signal input cover;
    signal input tools[T];
    signal input prefixes[P];
    signal input slot[E];
    signal input granted[E];
    signal input before[E];
    signal output scoped;
    signal output opened;
    signal output covered;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    signal isScoped <== IsInSet(T)(tool, tools);
    signal checked <== active * isCall;
    scoped <== checked * isScoped;

    signal absent <== IsZero()(target);
    opened <== scoped * (1 - absent);
    signal digest <== PoseidonHash(W)(path);
    opened * (digest - target) === 0;

    // cover ∈ {H("/"), b_1, …, b_4}, wherever the ancestors are bound: never 0 there.
    signal distance[W + 1];
    distance[0] <== cover - ROOT_PREFIX_HASH();
    for (var d = 1; d <= W; d++) distance[d] <== distance[d - 1] * (cover - path[d - 1]);
    opened * distance[W] === 0;

    component coverActive = ActiveState(E, P);
    coverActive.value <== cover;
    coverActive.initial <== prefixes;
    coverActive.slot <== slot;
    coverActive.granted <== granted;
    coverActive.before <== before;
    covered <== opened * coverActive.out;
}

// violated = 1 iff the named record is a checked call with no path digest, or with
// none of its ancestors (the root and b_1..b_4) active at it. The caller picks the
// record's scoped flag, target slot and event count (EventLog's count, which gives the
// slots before it); its path witness is given once here and opened against the target,
// as Aap2RecordCover opens it. The full scan that Aap2RecordCover leaves out, done once.
template Aap2Uncovered(P, E) {
    var W = PREFIX_DEPTH();
    signal input scoped;
    signal input target;
    signal input path[W];
    signal input count;
    signal input prefixes[P];
    signal input slot[E];
    signal input granted[E];
    signal output violated;

    signal absent <== IsZero()(target);
    signal opened <== scoped * (1 - absent);
    signal digest <== PoseidonHash(W)(path);
    opened * (digest - target) === 0;

    component epoch = CountOneHot(E);
    epoch.value <== count;
    signal ok[W + 1];
    component scope[W + 1];
    for (var d = 0; d <= W; d++) {
        scope[d] = ActiveIn(E, P);
        scope[d].value <== d == 0 ? ROOT_PREFIX_HASH() : path[d - 1];
        scope[d].initial <== prefixes;
        scope[d].slot <== slot;
        scope[d].granted <== granted;
        scope[d].before <== epoch.before;
        ok[d] <== scope[d].out;
    }
    signal allowed <== AnyOf(W + 1)(ok);
    // scoped and (no digest or no active ancestor); opened <= scoped.
    violated <== scoped - opened * allowed;
}

// The θ vector of AAP-2, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, P, tools[T], prefixes[P]] (sdk/core/predicates/aap2/definition.ts).
function AAP2_PREDICATE_ID() { return 2; }

// Checks paramsHash = HashVector(θ) (the vector above); the main and the segment circuit both use it.
template Aap2Theta(T, P) {
    signal input paramsHash;
    signal input tools[T];
    signal input prefixes[P];

    component theta = HashVector(3 + T + P);
    theta.in[0] <== AAP2_PREDICATE_ID();
    theta.in[1] <== T;
    theta.in[2] <== P;
    for (var i = 0; i < T; i++) theta.in[3 + i] <== tools[i];
    for (var i = 0; i < P; i++) theta.in[3 + T + i] <== prefixes[i];
    paramsHash === theta.out;
}
