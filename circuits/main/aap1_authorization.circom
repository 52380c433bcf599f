pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../predicates/aap1_authorization.circom";

// Settles an AAP-1 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-1's own.
// D: capacity 2^D records; K: checkpoints; T: gated tools.
// θ (private, bound by paramsHash): gatedTools[T] (string hashes, 0-padded) and
// authorities[3], the accepted flags of human, policy, auto_review.
template Aap1AuthorizationMain(D, K, T) {
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
    signal input gatedTools[T];
    signal input authorities[3];
    // Aap1Authorization's labels and certificate (sdk/core/predicates/aap1/chains.ts), checked there.
    signal input chainRank[N];
    signal input chainLast[N];
    signal input chainPred[N];
    signal input chainValidIn[N];
    signal input chainUsedIn[N];
    signal input chainCoversIn[N];
    signal input chainWeight[N];

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

    for (var i = 0; i < 3; i++) authorities[i] * (authorities[i] - 1) === 0;
    component theta = Aap1Theta(T);
    theta.paramsHash <== paramsHash;
    theta.gatedTools <== gatedTools;
    theta.authorities <== authorities;

    component aap1 = Aap1Authorization(N, T);
    aap1.active <== trace.active;
    for (var i = 0; i < N; i++) {
        aap1.kind[i] <== slots[i][SLOT_KIND()];
        aap1.tool[i] <== slots[i][SLOT_TOOL()];
        aap1.args[i] <== slots[i][SLOT_ARGS()];
        aap1.action[i] <== slots[i][SLOT_ACTION()];
        aap1.aux[i] <== slots[i][SLOT_AUX()];
        aap1.ref[i] <== slots[i][SLOT_TARGET0()];
    }
    aap1.tools <== gatedTools;
    aap1.accepted <== authorities;
    // The final root binds every active record's slots: it seeds the challenges.
    aap1.seed <== finalRoot;
    aap1.rank <== chainRank;
    aap1.last <== chainLast;
    aap1.pred <== chainPred;
    aap1.validIn <== chainValidIn;
    aap1.usedIn <== chainUsedIn;
    aap1.coversIn <== chainCoversIn;
    aap1.weight <== chainWeight;

    signal violated <== AnyOf(N)(aap1.violations);
    outcome === violated;
}
