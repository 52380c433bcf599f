pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "../gadgets/hash.circom";
include "../gadgets/constants.circom";
include "../gadgets/leaf.circom";
include "../gadgets/segment.circom";
include "../gadgets/segment_repeats.circom";
include "../gadgets/rule.circom";
include "../gadgets/record_rows.circom";
include "../predicates/aap7_rule.circom";

// One segment of an AAP-7 claim. The frame every segment circuit shares (the public inputs, SegmentClaim,
// SegmentTrace, SegmentState and the state they carry) is described in circuits/gadgets/segment.circom;
// the rest is AAP-7's own. Like the whole-claim circuit (circuits/main/aap7_rule.circom) it reads
// observations: each executed call's (kind CALL) digest is recomputed from its status, its rows' chain
// (RecordDigest with obs = [rowsDigest, 0]) and its content. The rows are the session's row stream
// (RowStream, circuits/gadgets/record_rows.circom, issue 37): the segment's 2N row slots hold the next 2N rows of
// the records' rows, record by record, wherever their records lie, so a record's rows may cross a boundary (one
// user turn may type more ids than a segment has row slots); the chains P (records) and Q (runs) are carried,
// and the last segment requires P = Q with the open run pushed, so every tool, status, part and fact the rule
// reads is the committed record's. Any other record (no executed call, before n) has one empty row, no row of
// the rule; records past n push nothing. A session closed with its row pads (sdk/core/predicates/aap7/pads.ts)
// has at most 2n rows, so its ceil(n/N) segments always hold them. The register carries across a boundary
// (RuleRows' registerStart, the last segment's registerEnd), for a record whose rows continue.
// The rule is RuleRows (circuits/gadgets/rule.circom), as RuleCheck evaluates it for a whole claim; its keyed
// state is KeyedLatestFrom (circuits/gadgets/keyed_latest.circom) over the session's row times
// (TB = SESSION_COUNT_BITS + 1: now = index·2N + j + 1 <= 2^25, as SegmentRows bounds index·N + N by 2^24),
// its running values carried.
// The predicate state it carries (HashVector of 17, sdk/core/predicates/aap7/segment.ts):
//   [packChain, weightChain, consumed, produced, roots, fractions, firsts, keyedBeta, keyedZeta,
//    rowsP, rowsQ, runChain, runTool, runOk, runOpen, rowsEnded, register]
// The first segment starts from [0, 0, 1, 1, 1, 0, 0, keyedBeta, keyedZeta, 0, ..., 0] with the prover's challenges,
// which the last segment pins (KeyedLatestFrom closes the argument where isLast = 1). The start of the
// argument's times is index·2N, the index the frame's state commitments carry and step, so it needs no field
// of its own. KeyedLatestFrom's obligations (its header) are met so: every carried value is in the state
// commitment; the first segment's are the identities (predicateInit) and its start 0 (index 0); isLast is
// SegmentTrace's, 1 exactly in the segment holding record n − 1, and only its state is a verdict.
// A segment holding a row that fires reports a violation to the frame, so the chain's `violated` (the OR over
// segments) turns on at the first firing row's segment (which may come before its record's), as
// sdk/core/predicates/aap7/segment.ts tells sdk/core/segments.ts (violationFrom). Whether a row fires
// depends on its answers (seen, latest), which only the closed argument vouches for: a chain that never
// reaches its last segment has no verdict.
// Ds: 2^Ds records (2^(Ds+1) rows) per segment; K: entry slots per segment; T: rule entries; W: facts a row;
// S: the local test's set.
template Aap7RuleSegment(Ds, K, T, W, S) {
    var N = 1 << Ds;
    var M = 2 * N;
    var C = RULE_ENTRY_COLUMNS();
    assert(W == 12);
    var SL = slotCount();
    var L = segmentTreeHeight() - Ds \ 4;
    signal input claimDigest;
    signal input stateIn;
    signal input stateOut;

    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input index;

    signal input slots[N][SL];
    signal input status[N];
    signal input content[N];
    signal input rowsDigest[N];
    signal input live[M];
    signal input part[M];
    signal input facts[M][W];
    signal input rowTool[M];
    signal input rowOk[M];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input inHead;
    signal input inAcc;
    signal input inSum;
    signal input inChain;
    signal input alpha;
    signal input beta;
    signal input inViolated;
    signal input inPending[L][16];
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
    // The carried keyed state (see above) and this segment's hints (sdk/core/keyed-latest.ts).
    signal input packChain;
    signal input weightChain;
    signal input consumed;
    signal input produced;
    signal input roots;
    signal input fractions;
    signal input firsts;
    signal input keyedBeta;
    signal input keyedZeta;
    // The row stream's carried values (RowStream, circuits/gadgets/record_rows.circom) and the register.
    signal input rowsP;
    signal input rowsQ;
    signal input runChain;
    signal input runTool;
    signal input runOk;
    signal input runOpen;
    signal input rowsEnded;
    signal input register;
    signal input seen[M];
    signal input latest[M];
    signal input age[M];
    signal input intro[M];
    signal input finalValue[M];
    signal input finalSeen[M];
    signal input finalTime[M];
    signal input weight[M];

    // The shared frame (circuits/gadgets/segment.circom): the claim, the trace, θ; the state at the end.
    SegmentClaim()(claimDigest, context, finalRoot, n, checkpointAcc, paramsHash);

    // Each record's digest: an executed call (kind CALL) binds its status and its rows' chain; any other
    // record is taken as its content, and its row is no row of the rule.
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

    component trace = SegmentTrace(Ds, K);
    trace.n <== n;
    trace.finalRoot <== finalRoot;
    trace.checkpointAcc <== checkpointAcc;
    trace.index <== index;
    trace.slots <== slots;
    for (var i = 0; i < N; i++) trace.digest[i] <== digest[i].digest;
    trace.cpN <== cpN;
    trace.cpHead <== cpHead;
    trace.cpActive <== cpActive;
    trace.cpHits <== cpHits;
    trace.head <== inHead;
    trace.acc <== inAcc;
    trace.sum <== inSum;
    trace.chain <== inChain;
    trace.alpha <== alpha;
    trace.beta <== beta;
    trace.pending <== inPending;

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

    // ok: a real row (before n), an executed call, that returned (status OK): the rule's rows. Rows past n
    // are inactive, so their free status and facts are no rows of the rule.
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

    // The segment's row slots hold the next M rows of the session's stream (RowStream): the records' rows, record
    // by record, a record's rows possibly crossing a boundary; the last segment closes the stream (P = Q).
    component rows = RowStream(N, M, W);
    rows.pIn <== rowsP;
    rows.qIn <== rowsQ;
    rows.runIn <== runChain;
    rows.toolIn <== runTool;
    rows.okIn <== runOk;
    rows.openIn <== runOpen;
    rows.endedIn <== rowsEnded;
    rows.push <== trace.active;
    rows.digest <== rowsDigest;
    for (var i = 0; i < N; i++) rows.tool[i] <== slots[i][SLOT_TOOL()];
    rows.ok <== ok;
    rows.live <== live;
    rows.part <== part;
    rows.facts <== facts;
    rows.rowTool <== rowTool;
    rows.rowOk <== rowOk;
    signal closing <== PoseidonHash(4)([rows.qOut, rows.runOut, rows.toolOut, rows.okOut]);
    signal closedQ <== rows.qOut + rows.openOut * (closing - rows.qOut);
    trace.isLast * (rows.pOut - closedQ) === 0;

    component rule = RuleRows(M, T, W, S);
    rule.registerStart <== register;
    rule.ok <== rowOk;
    rule.tool <== rowTool;
    rule.part <== part;
    rule.facts <== facts;
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

    // The keyed state over the session: this segment's rows are row times index·2N + j of the stream. The final
    // root binds every record, and the stream's closing P = Q every row to its record and its time (live rows are
    // a prefix of the stream), so every access the rule makes.
    component keyed = KeyedLatestFrom(M, SESSION_COUNT_BITS() + 1);
    keyed.key <== rule.key;
    keyed.hasKey <== rule.hasKey;
    keyed.write <== rule.write;
    keyed.value <== rule.value;
    keyed.start <== index * M;
    keyed.isLast <== trace.isLast;
    keyed.finalRoot <== finalRoot;
    keyed.seen <== seen;
    keyed.latest <== latest;
    keyed.age <== age;
    keyed.intro <== intro;
    keyed.finalValue <== finalValue;
    keyed.finalSeen <== finalSeen;
    keyed.finalTime <== finalTime;
    keyed.weight <== weight;
    keyed.beta <== keyedBeta;
    keyed.zeta <== keyedZeta;
    keyed.packChainIn <== packChain;
    keyed.weightChainIn <== weightChain;
    keyed.consumedIn <== consumed;
    keyed.producedIn <== produced;
    keyed.rootsIn <== roots;
    keyed.fractionsIn <== fractions;
    keyed.firstsIn <== firsts;

    signal predicateInit <== HashVector(17)([0, 0, 1, 1, 1, 0, 0, keyedBeta, keyedZeta, 0, 0, 0, 0, 0, 0, 0, 0]);
    signal predicateIn <== HashVector(17)(
        [
            packChain, weightChain, consumed, produced, roots, fractions, firsts, keyedBeta, keyedZeta,
            rowsP, rowsQ, runChain, runTool, runOk, runOpen, rowsEnded, register
        ]
    );
    signal predicateOut <== HashVector(17)(
        [
            keyed.packChainOut,
            keyed.weightChainOut,
            keyed.consumedOut,
            keyed.producedOut,
            keyed.rootsOut,
            keyed.fractionsOut,
            keyed.firstsOut,
            keyed.betaOut,
            keyed.zetaOut,
            rows.pOut,
            rows.qOut,
            rows.runOut,
            rows.toolOut,
            rows.okOut,
            rows.openOut,
            rows.endedOut,
            rule.registerEnd
        ]
    );

    // The shared frame's state commitments (SegmentState, circuits/gadgets/segment.circom).
    component state = SegmentState(L);
    state.index <== index;
    state.isFirst <== trace.isFirst;
    state.isLast <== trace.isLast;
    state.stateIn <== stateIn;
    state.stateOut <== stateOut;
    state.predicateInit <== predicateInit;
    state.inHead <== inHead;
    state.inAcc <== inAcc;
    state.inSum <== inSum;
    state.inChain <== inChain;
    state.alpha <== alpha;
    state.beta <== beta;
    state.inViolated <== inViolated;
    state.inPredicate <== predicateIn;
    state.inPending <== inPending;
    state.outHead <== trace.headOut;
    state.outAcc <== trace.accOut;
    state.outSum <== trace.sumOut;
    state.outChain <== trace.chainOut;
    state.violatedHere <== rule.fired;
    state.outPredicate <== predicateOut;
    state.outPending <== trace.pendingOut;
}
