pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/rule.circom";

// AAP-7 rules: θ is the rule (sdk/core/predicates/aap7/definition.ts, sdk/core/rules/rule.ts ruleThetaVector),
// hashed to the promise's paramsHash as
//   [PREDICATE_ID, T, W, S, domain, fireUnseen, fireSeen, fireSeenEqual, fireSeenDiffers, fireSeenAbove,
//    unknown, localSel, localOp, localBound, localSet[S], entryTool[T], entryPart[T],
//    entryColumns[C][T] (column by column, C = RULE_ENTRY_COLUMNS)].
// `domain` (1 tau_retail, 2 tau_airline) names the fact profile the rule's fact indices refer to: the circuit
// reads facts by index only, so it enters the promise's hash and nothing else.
function AAP7_PREDICATE_ID() { return 7; }

template Aap7Theta(T, W, S) {
    var C = RULE_ENTRY_COLUMNS();
    signal input paramsHash;
    signal input domain;
    signal input fireUnseen;
    signal input fireSeen;
    signal input fireSeenEqual;
    signal input fireSeenDiffers;
    signal input fireSeenAbove;
    signal input unknown;
    signal input localSel;
    signal input localOp;
    signal input localBound;
    signal input localSet[S];
    signal input entryTool[T];
    signal input entryPart[T];
    signal input entryColumns[C][T];

    var L = 14 + S + (2 + C) * T;
    component theta = HashVector(L);
    theta.in[0] <== AAP7_PREDICATE_ID();
    theta.in[1] <== T;
    theta.in[2] <== W;
    theta.in[3] <== S;
    theta.in[4] <== domain;
    theta.in[5] <== fireUnseen;
    theta.in[6] <== fireSeen;
    theta.in[7] <== fireSeenEqual;
    theta.in[8] <== fireSeenDiffers;
    theta.in[9] <== fireSeenAbove;
    theta.in[10] <== unknown;
    theta.in[11] <== localSel;
    theta.in[12] <== localOp;
    theta.in[13] <== localBound;
    for (var k = 0; k < S; k++) theta.in[14 + k] <== localSet[k];
    for (var j = 0; j < T; j++) theta.in[14 + S + j] <== entryTool[j];
    for (var j = 0; j < T; j++) theta.in[14 + S + T + j] <== entryPart[j];
    for (var c = 0; c < C; c++)
        for (var j = 0; j < T; j++) theta.in[14 + S + 2 * T + c * T + j] <== entryColumns[c][j];
    paramsHash === theta.out;
}
