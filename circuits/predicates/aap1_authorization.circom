pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "../gadgets/sets.circom";
include "../gadgets/constants.circom";

// AAP-1 authorization (invocation mode). Semantics, θ and encoding:
// sdk/predicates/aap1-authorization.ts. In short, an executed call i to a gated
// tool is authorized iff
//   (a) it has an action id (slot != 0),
//   (b) no earlier executed gated call has the same action id (one invocation, once),
//   (c) among the earlier authorization records with that action id, the latest
//       one is valid (allow, accepted authority, a policy id when the authority is
//       policy) and covers the same tool and args hash.
// The scan is O(N^2): for each record i, a running state over j < i
// (Aap1PairStep) carries the latest same-action authorization and counts the
// same-action gated calls.

// The θ vector of AAP-1, hashed to the promise's paramsHash:
// [PREDICATE_ID, T, 3, gatedTools[T], human, policy, auto_review]
// (sdk/predicates/aap1-authorization.ts, thetaVector).
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

// One step of record i's scan over an earlier record j.
// State (v, t, a): validity, tool and args of the latest earlier authorization
// with i's action id (0, 0, 0 before any); c: 1 iff j is a gated call with i's
// action id. Assumes isAuthJ, gatedJ, validJ boolean (Aap1Record).
template Aap1PairStep() {
    signal input actionI;
    signal input actionJ;
    signal input isAuthJ;
    signal input gatedJ;
    signal input validJ;
    signal input toolJ;
    signal input argsJ;
    signal input v;
    signal input t;
    signal input a;
    signal output vOut;
    signal output tOut;
    signal output aOut;
    signal output c;

    signal same <== IsZero()(actionI - actionJ);
    signal m <== same * isAuthJ;
    vOut <== v + m * (validJ - v);
    tOut <== t + m * (toolJ - t);
    aOut <== a + m * (argsJ - a);
    c <== same * gatedJ;
}

// The verdict on record i from its final scan state.
// Assumes gated and v boolean; used counts earlier same-action gated calls,
// at most N - 1 < r, so IsZero(used) cannot wrap.
template Aap1CallCheck() {
    signal input gated;
    signal input action;
    signal input tool;
    signal input args;
    signal input v;
    signal input t;
    signal input a;
    signal input used;
    signal output violated;

    signal noAction <== IsZero()(action);
    signal toolOk <== IsEqual()([t, tool]);
    signal argsOk <== IsEqual()([a, args]);
    signal fresh <== IsZero()(used);
    signal covers <== v * toolOk;
    signal exact <== covers * argsOk;
    signal once <== exact * fresh;
    signal ok <== once * (1 - noAction);
    violated <== gated * (1 - ok);
}

// Per-record violation flags of AAP-1 over N records.
// Assumes active is a prefix mask (PrefixMask), and accepted boolean.
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
    signal output violations[N];

    component record[N];
    for (var i = 0; i < N; i++) {
        record[i] = Aap1Record(T);
        record[i].active <== active[i];
        record[i].kind <== kind[i];
        record[i].tool <== tool[i];
        record[i].aux <== aux[i];
        record[i].ref <== ref[i];
        record[i].tools <== tools;
        record[i].accepted <== accepted;
    }

    // pair[i * (i - 1) / 2 + j] scans record j < i for record i.
    component pair[N * (N - 1) \ 2];
    component call[N];
    var used[N];
    var k = 0;
    for (var i = 0; i < N; i++) {
        call[i] = Aap1CallCheck();
        used[i] = 0;
        for (var j = 0; j < i; j++) {
            pair[k] = Aap1PairStep();
            pair[k].actionI <== action[i];
            pair[k].actionJ <== action[j];
            pair[k].isAuthJ <== record[j].isAuth;
            pair[k].gatedJ <== record[j].gated;
            pair[k].validJ <== record[j].valid;
            pair[k].toolJ <== tool[j];
            pair[k].argsJ <== args[j];
            if (j == 0) {
                pair[k].v <== 0;
                pair[k].t <== 0;
                pair[k].a <== 0;
            } else {
                pair[k].v <== pair[k - 1].vOut;
                pair[k].t <== pair[k - 1].tOut;
                pair[k].a <== pair[k - 1].aOut;
            }
            used[i] += pair[k].c;
            k++;
        }
        call[i].gated <== record[i].gated;
        call[i].action <== action[i];
        call[i].tool <== tool[i];
        call[i].args <== args[i];
        if (i == 0) {
            call[i].v <== 0;
            call[i].t <== 0;
            call[i].a <== 0;
        } else {
            call[i].v <== pair[k - 1].vOut;
            call[i].t <== pair[k - 1].tOut;
            call[i].a <== pair[k - 1].aOut;
        }
        call[i].used <== used[i];
        violations[i] <== call[i].violated;
    }
}
