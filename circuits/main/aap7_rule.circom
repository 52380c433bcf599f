pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/hash.circom";
include "../gadgets/constants.circom";
include "../gadgets/leaf.circom";
include "../gadgets/trace.circom";
include "../gadgets/rule.circom";
include "../gadgets/record_rows.circom";
include "../predicates/aap7_rule.circom";

// Settles an AAP-7 promise (a rule over observations and session state, docs/PREDICATES.md "AAP-7 rules") for
// one (session, promise) pair. The frame every main circuit shares is in circuits/gadgets/trace.circom; the
// rule itself is circuits/gadgets/rule.circom's RuleCheck, which reads θ as data. What this circuit adds is
// where RuleCheck's rows come from: every executed call's rows (its primary row and sub-rows, the profile's,
// sdk/core/rules/tau-rows.ts) are chained into its observation, which its digest binds (RecordDigest with
// obs = [rowsDigest, 0]), and RecordRows (circuits/gadgets/record_rows.circom) ties the 2N row slots to the
// records, so every fact, part, status and tool the rule reads is the committed record's. Records that are no
// executed call (blocked, an authorization, past n) have one row each, which is no row of the rule (ok 0).
// D: capacity 2^D records (2^(D+1) rows); K: checkpoints; T: rule entries; W: facts a row; S: the local
// test's set.
template Aap7RuleMain(D, K, T, W, S) {
    var N = 1 << D;
    var M = 2 * N;
    var C = RULE_ENTRY_COLUMNS();
    assert(W == 12);
    var SC = slotCount();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][SC];
    signal input status[N];
    signal input content[N];
    signal input rowsDigest[N];
    // The rows (sdk/core/predicates/aap7/rows.ts): live ones first, record by record.
    signal input live[M];
    signal input part[M];
    signal input facts[M][W];
    signal input rowTool[M];
    signal input rowOk[M];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    // θ (circuits/predicates/aap7_rule.circom has the order it is hashed in).
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
    // The keyed state's hints (sdk/core/rules/rule-witness.ts), checked in RuleCheck's KeyedLatest.
    signal input seen[M];
    signal input latest[M];
    signal input age[M];
    signal input intro[M];
    signal input finalValue[M];
    signal input finalSeen[M];
    signal input finalTime[M];
    signal input weight[M];
    signal input beta;
    signal input zeta;

    // context enters no other constraint; squaring keeps it in the proof.
    signal contextSquared <== context * context;

    // Each record's digest: an executed call (kind CALL) binds its status and its rows' chain; any other record
    // is taken as its content (v2's digest), and its row is no row of the rule.
    signal executed[N];
    component digest[N];
    for (var i = 0; i < N; i++) {
        executed[i] <== IsEqual()([slots[i][SLOT_KIND()], KIND_CALL()]);
        digest[i] = RecordDigest();
        digest[i].observed <== executed[i];
        digest[i].status <== status[i];
        digest[i].obs[0] <== rowsDigest[i];
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
    theta.entryPart <== entryPart;
    theta.entryColumns <== entryColumns;

    // ok: a real record (before n), an executed call, that returned (status OK): its rows are the rule's.
    signal isOk[N];
    signal liveCall[N];
    signal ok[N];
    for (var i = 0; i < N; i++) {
        isOk[i] <== IsEqual()([status[i], STATUS_OK()]);
        liveCall[i] <== trace.active[i] * executed[i];
        ok[i] <== liveCall[i] * isOk[i];
        // A record whose digest binds no rows (no executed call, or past n) has exactly one empty row: its
        // rows digest is free otherwise, and with it how many row slots it takes, so the row times of every
        // later access (an independent review, issue 37: the layout was not bound before the keyed state's
        // challenges in a segment).
        (1 - liveCall[i]) * (rowsDigest[i] - EMPTY_ROWS_DIGEST_W12()) === 0;
    }

    // The rows are the records' (the final root binds every record's slots, status and rows' chain), and its
    // seed binds the rows for the rule's keyed state.
    component rows = RecordRows(N, M, W);
    rows.seedIn <== finalRoot;
    rows.digest <== rowsDigest;
    for (var i = 0; i < N; i++) rows.tool[i] <== slots[i][SLOT_TOOL()];
    rows.ok <== ok;
    rows.live <== live;
    rows.part <== part;
    rows.facts <== facts;
    rows.rowTool <== rowTool;
    rows.rowOk <== rowOk;

    component rule = RuleCheck(M, T, W, S);
    rule.ok <== rowOk;
    rule.tool <== rowTool;
    rule.part <== part;
    rule.facts <== facts;
    rule.seed <== rows.seedOut;
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
    rule.entryPart <== entryPart;
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
