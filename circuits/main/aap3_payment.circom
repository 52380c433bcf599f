pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/limits.circom";
include "../predicates/aap3_payment.circom";

// Settles an AAP-3 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-3's own.
// D: capacity 2^D records; K: checkpoints; P: pay tools; M: merchants.
template Aap3PaymentMain(D, K, P, M) {
    var N = 1 << D;
    var S = slotCount();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][S];
    signal input digest[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input tools[P];
    signal input merchants[M];
    signal input cap;

    // The shared frame (circuits/gadgets/trace.circom), then the predicate's own logic.
    // context enters no other constraint; squaring keeps it in the proof.
    signal contextSquared <== context * context;

    component trace = CommittedTrace(D, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.slots <== slots;
    trace.digest <== digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;

    component theta = Aap3Theta(P, M);
    theta.paramsHash <== paramsHash;
    theta.tools <== tools;
    theta.merchants <== merchants;
    theta.cap <== cap;

    // The cap is shared by every record's comparison: range-check it once.
    component capBits = Num2Bits(AMOUNT_BITS());
    capBits.in <== cap;

    component record[N];
    signal violations[N];
    for (var i = 0; i < N; i++) {
        record[i] = Aap3RecordViolation(P, M);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].aux <== slots[i][SLOT_AUX()];
        record[i].targets <== [slots[i][SLOT_TARGET0()], slots[i][SLOT_TARGET1()]];
        record[i].tools <== tools;
        record[i].merchants <== merchants;
        record[i].cap <== cap;
        violations[i] <== record[i].violated;
    }
    signal violated <== AnyOf(N)(violations);
    outcome === violated;
}
