pragma circom 2.1.0;

include "../gadgets/hash.circom";

// AAP-7 rules: θ is the rule (sdk/core/predicates/aap7/definition.ts, sdk/core/rules/rule.ts ruleThetaVector),
// hashed to the promise's paramsHash as
//   [PREDICATE_ID, T, W, S, domain, keySel, fireUnseen, fireSeen, fireSeenEqual, fireSeenDiffers, fireSeenAbove,
//    unknown, localSel, localOp, localBound, localSet[S], entryTool[T], entryColumns[8][T] (column by column)].
// `domain` (1 tau_retail, 2 tau_airline) names the fact profile the rule's fact indices refer to: the circuit
// reads facts by index only, so it enters the promise's hash and nothing else.
function AAP7_PREDICATE_ID() { return 7; }

template Aap7Theta(T, W, S) {
    signal input paramsHash;
    signal input domain;
    signal input keySel;
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
    signal input entryColumns[8][T];

    var L = 15 + S + 9 * T;
    component theta = HashVector(L);
    theta.in[0] <== AAP7_PREDICATE_ID();
    theta.in[1] <== T;
    theta.in[2] <== W;
    theta.in[3] <== S;
    theta.in[4] <== domain;
    theta.in[5] <== keySel;
    theta.in[6] <== fireUnseen;
    theta.in[7] <== fireSeen;
    theta.in[8] <== fireSeenEqual;
    theta.in[9] <== fireSeenDiffers;
    theta.in[10] <== fireSeenAbove;
    theta.in[11] <== unknown;
    theta.in[12] <== localSel;
    theta.in[13] <== localOp;
    theta.in[14] <== localBound;
    for (var k = 0; k < S; k++) theta.in[15 + k] <== localSet[k];
    for (var j = 0; j < T; j++) theta.in[15 + S + j] <== entryTool[j];
    for (var c = 0; c < 8; c++)
        for (var j = 0; j < T; j++) theta.in[15 + S + T + c * T + j] <== entryColumns[c][j];
    paramsHash === theta.out;
}
