pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/limits.circom";
include "../predicates/aap3_payment.circom";

// Settles an AAP-3 promise for one (session, promise) pair.
// Public inputs, all built by the escrow from its own storage (docs/PROTOCOL.md):
//   context        keccak(chainid, escrow, sessionId, promiseId) >> 3: binds the pair (P4)
//   finalRoot, n   the session's final commitment and record count (P1)
//   checkpointAcc  the fold of every on-chain checkpoint and receipt (P1)
//   paramsHash     the promise's θ hash (P5)
//   outcome        1 = violated, 0 = satisfied; computed here, not chosen (P2)
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

    component theta = HashVector(4 + P + M);
    theta.in[0] <== AAP3_PREDICATE_ID();
    theta.in[1] <== P;
    theta.in[2] <== M;
    for (var i = 0; i < P; i++) theta.in[3 + i] <== tools[i];
    for (var i = 0; i < M; i++) theta.in[3 + P + i] <== merchants[i];
    theta.in[3 + P + M] <== cap;
    paramsHash === theta.out;

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
