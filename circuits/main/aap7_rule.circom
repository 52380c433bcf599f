pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/hash.circom";
include "../gadgets/constants.circom";
include "../gadgets/leaf.circom";
include "../gadgets/trace.circom";
include "../gadgets/rule.circom";
include "../predicates/aap7_rule.circom";

// Settles an AAP-7 promise (a rule over observations and session state, docs/PREDICATES.md "AAP-7 rules") for
// one (session, promise) pair. The frame every main circuit shares is in circuits/gadgets/trace.circom; the
// rule itself is circuits/gadgets/rule.circom's RuleCheck, which reads θ as data. What this circuit adds is
// where RuleCheck's rows come from: every executed call's facts are hashed into its observation, which its
// digest binds (RecordDigest with obs = [HashVector(facts), 0]: the profile's domain facts,
// sdk/core/observations.ts recordFacts), so every fact, status and tool the rule reads is the committed
// record's. Rows that are no executed call (blocked, an authorization, past n) are not rows of the rule.
// D: capacity 2^D records; K: checkpoints; T: rule entries; W: facts a record; S: the local test's set.
template Aap7RuleMain(D, K, T, W, S) {
    var N = 1 << D;
    var SC = slotCount();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][SC];
    signal input status[N];
    signal input facts[N][W];
    signal input content[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    // θ (circuits/predicates/aap7_rule.circom has the order it is hashed in).
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
    // The keyed state's hints (sdk/core/rules/rule-witness.ts), checked in RuleCheck's KeyedLatest.
    signal input seen[N];
    signal input latest[N];
    signal input age[N];
    signal input intro[N];
    signal input finalValue[N];
    signal input finalSeen[N];
    signal input finalTime[N];
    signal input weight[N];
    signal input beta;
    signal input zeta;

    // context enters no other constraint; squaring keeps it in the proof.
    signal contextSquared <== context * context;

    // Each row's digest: an executed call (kind CALL) binds its status and its facts' hash; any other row is
    // taken as its content (v2's digest), and is no row of the rule.
    signal executed[N];
    signal factsHash[N];
    component digest[N];
    for (var i = 0; i < N; i++) {
        executed[i] <== IsEqual()([slots[i][SLOT_KIND()], KIND_CALL()]);
        factsHash[i] <== HashVector(W)(facts[i]);
        digest[i] = RecordDigest();
        digest[i].observed <== executed[i];
        digest[i].status <== status[i];
        digest[i].obs[0] <== factsHash[i];
        digest[i].obs[1] <== 0;
        digest[i].content <== content[i];
    }

    component trace = CommittedTrace(D, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.slots <== slots;
    for (var i = 0; i < N; i++) trace.digest[i] <== digest[i].digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;

    component theta = Aap7Theta(T, W, S);
    theta.paramsHash <== paramsHash;
    theta.domain <== domain;
    theta.keySel <== keySel;
    theta.fireUnseen <== fireUnseen;
    theta.fireSeen <== fireSeen;
    theta.fireSeenEqual <== fireSeenEqual;
    theta.fireSeenDiffers <== fireSeenDiffers;
    theta.fireSeenAbove <== fireSeenAbove;
    theta.unknown <== unknown;
    theta.localSel <== localSel;
    theta.localOp <== localOp;
    theta.localBound <== localBound;
    theta.localSet <== localSet;
    theta.entryTool <== entryTool;
    theta.entryColumns <== entryColumns;

    // ok: a real row (before n), an executed call, that returned (status OK): the rule's rows.
    signal isOk[N];
    signal liveCall[N];
    signal ok[N];
    for (var i = 0; i < N; i++) {
        isOk[i] <== IsEqual()([status[i], STATUS_OK()]);
        liveCall[i] <== trace.active[i] * executed[i];
        ok[i] <== liveCall[i] * isOk[i];
    }

    component rule = RuleCheck(N, T, W, S);
    rule.ok <== ok;
    for (var i = 0; i < N; i++) rule.tool[i] <== slots[i][SLOT_TOOL()];
    rule.facts <== facts;
    // The final root binds every row's slots and digest, so every tool, status and fact the rule reads.
    rule.seed <== finalRoot;
    rule.keySel <== keySel;
    rule.fireUnseen <== fireUnseen;
    rule.fireSeen <== fireSeen;
    rule.fireSeenEqual <== fireSeenEqual;
    rule.fireSeenDiffers <== fireSeenDiffers;
    rule.fireSeenAbove <== fireSeenAbove;
    rule.unknown <== unknown;
    rule.localSel <== localSel;
    rule.localOp <== localOp;
    rule.localBound <== localBound;
    rule.localSet <== localSet;
    rule.entryTool <== entryTool;
    rule.entryColumns <== entryColumns;
    rule.seen <== seen;
    rule.latest <== latest;
    rule.age <== age;
    rule.intro <== intro;
    rule.finalValue <== finalValue;
    rule.finalSeen <== finalSeen;
    rule.finalTime <== finalTime;
    rule.weight <== weight;
    rule.beta <== beta;
    rule.zeta <== zeta;
    outcome === rule.violated;
}
