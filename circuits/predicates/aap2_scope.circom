pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/active_set.circom";

// AAP-2 scope: every executed call to a scoped tool targets a path under a prefix
// that is active at that call. Semantics, θ and encoding: sdk/predicates/aap2-scope.ts.
//
// Record I is checked when it is real (active), executed (kind = CALL) and its tool
// is in `tools`. Its target slot holds pathDigest = Poseidon(a_0..a_4, c_full)
// (sdk/paths.ts), or 0 when the path argument is missing or null: fail-closed,
// a missing path violates. The prover supplies the path witness (a_0..a_4, c_full);
// for a checked call with a digest it must hash to the slot, so by collision
// resistance a_d is the path's real depth-d ancestor hash (0 past its depth).
// The call is covered iff some a_d != 0 is active at I (ActiveIn over the scope
// grant/revoke events compacted by EventLog, starting from θ's prefixes). For every other record the
// witness is free and unused: the verdict never reads it.
// Prefix padding with 0 is safe: ActiveAt never reports 0 as active; tool padding
// with 0 is safe: a real tool hash is never 0.
template Aap2RecordViolation(T, P, E) {
    var W = PREFIX_DEPTH() + 2;
    signal input active;
    signal input kind;
    signal input tool;
    signal input target;
    signal input path[W];
    signal input tools[T];
    signal input prefixes[P];
    signal input slot[E];
    signal input granted[E];
    signal input before[E];
    signal output violated;

    signal isCall <== IsEqual()([kind, KIND_CALL()]);
    signal isScoped <== IsInSet(T)(tool, tools);
    signal checked <== active * isCall;
    signal scoped <== checked * isScoped;

    signal absent <== IsZero()(target);
    signal opened <== scoped * (1 - absent);
    signal digest <== Poseidon(W)(path);
    opened * (digest - target) === 0;

    signal ok[PREFIX_DEPTH() + 1];
    component scope[PREFIX_DEPTH() + 1];
    for (var d = 0; d <= PREFIX_DEPTH(); d++) {
        scope[d] = ActiveIn(E, P);
        scope[d].value <== path[d];
        scope[d].initial <== prefixes;
        scope[d].slot <== slot;
        scope[d].granted <== granted;
        scope[d].before <== before;
        ok[d] <== scope[d].out;
    }
    signal allowed <== AnyOf(PREFIX_DEPTH() + 1)(ok);
    signal covered <== (1 - absent) * allowed;
    violated <== scoped * (1 - covered);
}

// The θ vector of AAP-2, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, P, tools[T], prefixes[P]] (sdk/predicates/aap2-scope.ts).
function AAP2_PREDICATE_ID() { return 2; }
