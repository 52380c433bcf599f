pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";
include "../gadgets/hash.circom";

// AAP-6 strict grounding: every value a consequential call observes was observed earlier, in a
// successful call of a source tool. Semantics, θ and encoding: sdk/core/predicates/aap6/definition.ts.
// Two templates say what a record is to the grounding argument (circuits/gadgets/grounding.circom,
// StrictGrounding), which decides the verdict; sdk/core/predicates/aap6/roles.ts mirrors both.
// θ padding with 0 is safe: no real tool hashes to 0, and rows past n are inactive.

// What the row's kind and tool say, before `active` is known (the digest needs `observed` first):
//   executed   kind CALL: an executed call (a blocked call is not one; an errored one is);
//   observed   the row's digest binds its observations (RecordDigest, leaf.circom): an executed call of a
//              tool θ names. The encoder binds them for every executed call of a tool that observes a fact
//              (a blocked call observes nothing, so its digest is its content), and checkProfile requires each
//              tool θ names to observe one, so an honest trace agrees; a θ naming a tool that observes nothing
//              makes the claim unprovable (the provider's loss), never a wrong verdict. A row of a
//              fact-observing tool θ does not name is read as v2 (its digest taken whole), and none of its
//              values is a query or a ground.
template Aap6RowKind(Q, S) {
    signal input kind;
    signal input tool;
    signal input consequentialTools[Q];
    signal input sourceTools[S];
    signal output executed;
    signal output consequential;
    signal output executedSource;
    signal output observed;

    executed <== IsEqual()([kind, KIND_CALL()]);
    consequential <== IsInSet(Q)(tool, consequentialTools);
    signal source <== IsInSet(S)(tool, sourceTools);
    // Only an executed call can ground: any other row of a source tool (a blocked call, an authorization
    // naming the tool) is not observed, so its status and values are not bound and must count for nothing.
    executedSource <== executed * source;
    // A tool may be in both of θ's sets.
    signal named <== consequential + source - consequential * source;
    observed <== executed * named;
}

// Each of the row's O observed values:
//   query[k]  the row is real (active), an executed call to a consequential tool, and value k is present
//             (absent values are skipped);
//   ground[k] the row is real, an executed call (so observed: its status and values are bound) to a source
//             tool, and its status is OK (a failed or blocked read grounds nothing). An absent value (0) may
//             be a ground: no query reads 0, so it grounds nothing.
template Aap6RecordRoles(O) {
    signal input active;
    signal input executed;
    signal input consequential;
    signal input executedSource;
    signal input status;
    signal input obs[O];
    signal output query[O];
    signal output ground[O];

    signal isOk <== IsEqual()([status, STATUS_OK()]);
    signal executedConsequential <== executed * consequential;
    signal checked <== active * executedConsequential;
    signal okSource <== isOk * executedSource;
    signal grounding <== active * okSource;
    signal absent[O];
    for (var k = 0; k < O; k++) {
        absent[k] <== IsZero()(obs[k]);
        query[k] <== checked * (1 - absent[k]);
        ground[k] <== grounding;
    }
}

// The θ vector of AAP-6, hashed to the promise's paramsHash:
// [PREDICATE_ID, Q, S, normalise, consequentialTools[Q], sourceTools[S]] (sdk/core/predicates/aap6/definition.ts).
// `normalise` (0 exact, 1 fold) is what the profile applied before hashing each value; the circuit compares
// hashes only, so it enters the promise's hash and nothing else.
function AAP6_PREDICATE_ID() { return 6; }

template Aap6Theta(Q, S) {
    signal input paramsHash;
    signal input consequentialTools[Q];
    signal input sourceTools[S];
    signal input normalise;

    component theta = HashVector(4 + Q + S);
    theta.in[0] <== AAP6_PREDICATE_ID();
    theta.in[1] <== Q;
    theta.in[2] <== S;
    theta.in[3] <== normalise;
    for (var i = 0; i < Q; i++) theta.in[4 + i] <== consequentialTools[i];
    for (var i = 0; i < S; i++) theta.in[4 + Q + i] <== sourceTools[i];
    paramsHash === theta.out;
}
