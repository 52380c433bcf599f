pragma circom 2.1.0;

include "../gadgets/hash.circom";
include "../gadgets/sets.circom";
include "../gadgets/trace.circom";
include "../gadgets/limits.circom";
include "../gadgets/repeats.circom";
include "../predicates/aap5_limits.circom";

// Settles an AAP-5 promise for one (session, promise) pair. The frame every main circuit shares (public
// inputs, context, CommittedTrace, the θ check, outcome) is in circuits/gadgets/trace.circom; the rest is
// AAP-5's own.
// D: capacity 2^D records; K: checkpoints; C: counted tools; S: summed tools.
// limits = [maxCount + 1, maxSum + 1, maxRepeat + 1], 0 where θ sets no limit.
template Aap5LimitsMain(D, K, C, S) {
    var N = 1 << D;
    var SC = slotCount();
    signal input context;
    signal input finalRoot;
    signal input n;
    signal input checkpointAcc;
    signal input paramsHash;
    signal input outcome;

    signal input slots[N][SC];
    signal input digest[N];
    signal input cpN[K];
    signal input cpHead[K];
    signal input cpActive[K];
    signal input cpHits[N][2];
    signal input countedTools[C];
    signal input summedTools[S];
    signal input limits[3];
    // RepeatHits' hints (predicates/aap5/repeats.ts), checked there.
    signal input repeatCount[N];
    signal input repeatLast[N];
    signal input repeatWeight[N];

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

    component theta = Aap5Theta(C, S);
    theta.paramsHash <== paramsHash;
    theta.countedTools <== countedTools;
    theta.summedTools <== summedTools;
    theta.limits <== limits;

    // Each limit decoded and range-checked < 2^64 once.
    component limit[3];
    for (var i = 0; i < 3; i++) {
        limit[i] = OptionalLimit(AMOUNT_BITS());
        limit[i].enc <== limits[i];
    }

    component record[N];
    signal call[N];
    var count = 0;
    var sum = 0;
    var missing = 0;
    for (var i = 0; i < N; i++) {
        record[i] = Aap5RecordFlags(C, S);
        record[i].active <== trace.active[i];
        record[i].kind <== slots[i][SLOT_KIND()];
        record[i].tool <== slots[i][SLOT_TOOL()];
        record[i].aux <== slots[i][SLOT_AUX()];
        record[i].countedTools <== countedTools;
        record[i].summedTools <== summedTools;
        call[i] <== record[i].call;
        count += record[i].counted;
        sum += record[i].amount;
        missing += record[i].missing;
    }

    // Totals are linear in the per-record flags; a total over its limit means the
    // running value passed the limit at some record (both only grow).
    // count <= N < 2^64 and maxCount < 2^64: compare at 64 bits.
    signal countOver <== Exceeds(AMOUNT_BITS())(count, limit[0].limit);
    signal countViolated <== limit[0].enabled * countOver;
    // sum < 2^(64+D) and maxSum < 2^64.
    signal sumOver <== Exceeds(AMOUNT_BITS() + D)(sum, limit[1].limit);
    signal sumViolated <== limit[1].enabled * sumOver;

    // Repeats over every executed call: the (maxRepeat + 1)-th occurrence of a
    // (tool, args) hits. limits[2] = 0 (no limit) never hits. The final root binds
    // the tool and args of every executed call, so it seeds RepeatHits' challenges.
    component repeats = RepeatHits(N);
    repeats.live <== call;
    for (var i = 0; i < N; i++) {
        repeats.tool[i] <== slots[i][SLOT_TOOL()];
        repeats.args[i] <== slots[i][SLOT_ARGS()];
    }
    repeats.bound <== limits[2];
    repeats.seed <== finalRoot;
    repeats.count <== repeatCount;
    repeats.last <== repeatLast;
    repeats.weight <== repeatWeight;
    var hits = 0;
    for (var i = 0; i < N; i++) hits += repeats.hit[i];

    // Every term is boolean and there are at most 2N + 2 < r of them, so the sum is
    // 0 iff none is set.
    signal none <== IsZero()(countViolated + sumViolated + missing + hits);
    signal violated <== 1 - none;
    outcome === violated;
}
