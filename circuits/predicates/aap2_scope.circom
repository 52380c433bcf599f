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
// is in `tools`. Its target slot holds pathDigest = Poseidon(a_0..a_4, c_full)
// (sdk/core/paths.ts), or 0 when the path argument is missing or null: fail-closed,
// a missing path violates. The prover supplies the path witness (a_0..a_4, c_full);
// for a checked call with a digest it must hash to the slot, so by collision
// resistance a_d is the path's real depth-d ancestor hash (0 past its depth).
//
// Coverage is shown, not searched: for each call with a path the prover names one
// of its ancestors (`cover`), and the call counts as covered iff that one is active
// at it (ActiveIn over the scope events compacted by EventLog, starting from θ's
// prefixes). Naming a wrong one only fails to cover; a call none of whose ancestors
// is active has no cover that works. Aap2Uncovered decides the other direction
// exactly, for the one call the prover names as the violation. docs/SOUNDNESS.md,
// "AAP-2".
// Prefix padding with 0 is safe: ActiveIn never reports 0 as active; tool padding
// with 0 is safe: a real tool hash is never 0.
template Aap2RecordCover(T, P, E) {
    var W = PREFIX_DEPTH() + 2;
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

    // cover ∈ {a_0, …, a_PREFIX_DEPTH}, wherever the ancestors are bound.
    signal distance[PREFIX_DEPTH() + 1];
    distance[0] <== cover - path[0];
    for (var d = 1; d <= PREFIX_DEPTH(); d++) distance[d] <== distance[d - 1] * (cover - path[d]);
    opened * distance[PREFIX_DEPTH()] === 0;

    component coverActive = ActiveIn(E, P);
    coverActive.value <== cover;
    coverActive.initial <== prefixes;
    coverActive.slot <== slot;
    coverActive.granted <== granted;
    coverActive.before <== before;
    covered <== opened * coverActive.out;
}

// violated = 1 iff the record whose values are given is a checked call with no
// path, or with no ancestor a_0..a_4 active at it: the event count before it
// (EventLog's count) gives which slots precede it. The full scan that
// Aap2RecordCover leaves out, done once.
template Aap2Uncovered(P, E) {
    signal input scoped;
    signal input opened;
    signal input ancestors[PREFIX_DEPTH() + 1];
    signal input count;
    signal input prefixes[P];
    signal input slot[E];
    signal input granted[E];
    signal output violated;

    component epoch = CountOneHot(E);
    epoch.value <== count;
    signal ok[PREFIX_DEPTH() + 1];
    component scope[PREFIX_DEPTH() + 1];
    for (var d = 0; d <= PREFIX_DEPTH(); d++) {
        scope[d] = ActiveIn(E, P);
        scope[d].value <== ancestors[d];
        scope[d].initial <== prefixes;
        scope[d].slot <== slot;
        scope[d].granted <== granted;
        scope[d].before <== epoch.before;
        ok[d] <== scope[d].out;
    }
    signal allowed <== AnyOf(PREFIX_DEPTH() + 1)(ok);
    // scoped and (no path or no active ancestor); opened <= scoped.
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
