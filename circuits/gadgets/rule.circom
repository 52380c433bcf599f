pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/bitify.circom";
include "sets.circom";
include "keyed_latest.circom";

// Rules over observations and session state (issue 37): the proof face of sdk/core/rules/rule.ts, which is
// the oracle and says the semantics; docs/PREDICATES.md "Rules" says it in words. θ (the rule, hashed into
// the promise) is a table of T entries by tool plus the rule's key, state test and local test; every row is
// read through it, so one circuit serves every arm and an arm is a rule entry, not a template.
// Each row: ok (a call that ran and returned, boolean, the caller's), tool, W facts (0 = absent). A selector
// is a fact index 0..W-1, or W for the constant (the key 1, a guard that always holds, the entry's value).

// facts[sel] for sel < W, `constant` for sel = W, 0 for anything else (a θ the parser never makes).
template SelectFact(W) {
    signal input facts[W];
    signal input sel;
    signal input constant;
    signal output out;
    signal eq[W + 1];
    signal term[W + 1];
    var sum = 0;
    for (var k = 0; k <= W; k++) {
        eq[k] <== IsEqual()([sel, k]);
        if (k < W) term[k] <== eq[k] * facts[k];
        else term[k] <== eq[k] * constant;
        sum += term[k];
    }
    out <== sum;
}

// 1 iff x ≠ 0.
template NonZero() {
    signal input in;
    signal output out;
    signal zero <== IsZero()(in);
    out <== 1 - zero;
}

// The θ entry a row's tool names, as the row's own values: Σ match_j · column_j. θ's tools are distinct (the
// parser's rule, and a θ with a repeated tool only adds the two entries' columns: the provider's loss, as
// the promise document shows it), so at most one match is 1.
template RuleEntryOf(T) {
    signal input tool;
    signal input entryTool[T];
    signal input columns[8][T];
    signal output out[8];
    signal match[T];
    signal part[8][T];
    for (var j = 0; j < T; j++) match[j] <== IsEqual()([tool, entryTool[j]]);
    for (var c = 0; c < 8; c++) {
        var sum = 0;
        for (var j = 0; j < T; j++) {
            part[c][j] <== match[j] * columns[c][j];
            sum += part[c][j];
        }
        out[c] <== sum;
    }
}

// The rule over N rows, given each row's keyed-state answers: θ's flags checked, each row's access to the state
// (hasKey, key, write, value, as KeyedLatest(From) takes them) and whether the row fires; fired = 1 iff some row
// does (the oracle's first firing row exists). The per-row logic mirrors ruleStep and stateFires. seen[] and
// latest[] are the prover's answers: the caller must check them with a keyed-latest argument over these rows'
// accesses (RuleCheck with KeyedLatest for a whole claim; circuits/segments/aap7_rule.circom with
// KeyedLatestFrom over a segment chain), which also range-checks seen (boolean).
template RuleRows(N, T, W, S) {
    signal input ok[N];
    signal input tool[N];
    signal input facts[N][W];

    // θ: the rule (sdk/core/rules/rule.ts ruleThetaVector has the order).
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
    // check, checkWhen, expectSel, expect, write, writeWhen, valueSel, valueConst
    signal input entryColumns[8][T];
    // The keyed state's answers (checked by the caller's keyed-latest argument).
    signal input seen[N];
    signal input latest[N];
    // Each row's state access, and whether some row fires.
    signal output hasKey[N];
    signal output key[N];
    signal output write[N];
    signal output value[N];
    signal output fired;

    // θ's flags are boolean and at most one seen-mode is set (the parser's rules, enforced: θ is hashed, not
    // trusted). localOp is 0, 1 or 2.
    fireUnseen * (fireUnseen - 1) === 0;
    signal seenModes <== fireSeen + fireSeenEqual + fireSeenDiffers + fireSeenAbove;
    fireSeen * (fireSeen - 1) === 0;
    fireSeenEqual * (fireSeenEqual - 1) === 0;
    fireSeenDiffers * (fireSeenDiffers - 1) === 0;
    fireSeenAbove * (fireSeenAbove - 1) === 0;
    seenModes * (seenModes - 1) === 0;
    signal isOp1 <== IsEqual()([localOp, 1]);
    signal isOp2 <== IsEqual()([localOp, 2]);
    signal isOp0 <== IsZero()(localOp);
    isOp0 + isOp1 + isOp2 === 1;
    // The bound of an `above` test is < 2^32, so the comparison below is exact.
    component boundBits = Num2Bits(32);
    boundBits.in <== localBound * isOp1;

    component entry[N];
    component checkWhen[N];
    component writeWhen[N];
    component keyOf[N];
    component valueOf[N];
    component localOf[N];
    component localBits[N];
    component expectOf[N];
    component aboveBits[N][2];
    signal checkGuard[N];
    signal writeGuard[N];
    signal okChecked[N];
    signal checked[N];
    signal okWrites[N];
    signal writes[N];
    signal keyPresent[N];
    signal touched[N];
    for (var i = 0; i < N; i++) {
        ok[i] * (ok[i] - 1) === 0;
        entry[i] = RuleEntryOf(T);
        entry[i].tool <== tool[i];
        entry[i].entryTool <== entryTool;
        entry[i].columns <== entryColumns;
        // A row is checked or writes at most once (a θ naming a tool twice, or a flag other than 0/1, leaves
        // that tool's rows unprovable: the provider's loss, never a wrong verdict).
        entry[i].out[0] * (entry[i].out[0] - 1) === 0;
        entry[i].out[4] * (entry[i].out[4] - 1) === 0;

        checkWhen[i] = SelectFact(W);
        checkWhen[i].facts <== facts[i];
        checkWhen[i].sel <== entry[i].out[1];
        checkWhen[i].constant <== 1;
        checkGuard[i] <== NonZero()(checkWhen[i].out);
        okChecked[i] <== ok[i] * entry[i].out[0];
        checked[i] <== okChecked[i] * checkGuard[i];

        writeWhen[i] = SelectFact(W);
        writeWhen[i].facts <== facts[i];
        writeWhen[i].sel <== entry[i].out[5];
        writeWhen[i].constant <== 1;
        writeGuard[i] <== NonZero()(writeWhen[i].out);
        okWrites[i] <== ok[i] * entry[i].out[4];
        writes[i] <== okWrites[i] * writeGuard[i];

        keyOf[i] = SelectFact(W);
        keyOf[i].facts <== facts[i];
        keyOf[i].sel <== keySel;
        keyOf[i].constant <== 1;
        keyPresent[i] <== NonZero()(keyOf[i].out);
        touched[i] <== checked[i] + writes[i] - checked[i] * writes[i];
        hasKey[i] <== touched[i] * keyPresent[i];
        write[i] <== writes[i] * keyPresent[i];
        key[i] <== hasKey[i] * keyOf[i].out;

        valueOf[i] = SelectFact(W);
        valueOf[i].facts <== facts[i];
        valueOf[i].sel <== entry[i].out[6];
        valueOf[i].constant <== entry[i].out[7];
        value[i] <== write[i] * valueOf[i].out;

        localOf[i] = SelectFact(W);
        localOf[i].facts <== facts[i];
        localOf[i].sel <== localSel;
        localOf[i].constant <== 1;

        expectOf[i] = SelectFact(W);
        expectOf[i].facts <== facts[i];
        expectOf[i].sel <== entry[i].out[2];
        expectOf[i].constant <== entry[i].out[3];
    }

    // The state test: fireUnseen·(1 − seen) + seen·(fireSeen + fireSeenEqual·eq + fireSeenDiffers·(1 − eq)·(1 − unknown)
    //   + fireSeenAbove·(latest > expect)·(1 − unknown)), latest and expect range-checked below 2^32 on a
    //   checked row of a seenAbove rule (a stored value past that is no count: the row is unprovable).
    // seen is boolean (the caller's keyed-latest argument range-checks it), and so is the sum: one seen-mode at
    // most.
    signal sameAsExpect[N];
    signal isUnknown[N];
    signal differs[N];
    signal equalFires[N];
    signal differsFires[N];
    signal aboveGate[N];
    signal above[N];
    signal aboveFires[N];
    signal aboveKnown[N];
    signal whenSeen[N];
    signal seenFires[N];
    signal stateFires[N];
    // The local test: none, facts[localSel] > bound (both < 2^32), or facts[localSel] ∉ localSet.
    signal localAbove[N];
    signal localIn[N];
    signal localFires[N];
    signal localAboveFires[N];
    signal outsideFires[N];
    signal checkedLocal[N];
    signal fires[N];
    signal clean[N];
    for (var i = 0; i < N; i++) {
        sameAsExpect[i] <== IsEqual()([latest[i], expectOf[i].out]);
        isUnknown[i] <== IsEqual()([latest[i], unknown]);
        differs[i] <== (1 - sameAsExpect[i]) * (1 - isUnknown[i]);
        equalFires[i] <== fireSeenEqual * sameAsExpect[i];
        differsFires[i] <== fireSeenDiffers * differs[i];
        aboveGate[i] <== fireSeenAbove * checked[i];
        aboveBits[i][0] = Num2Bits(32);
        aboveBits[i][0].in <== latest[i] * aboveGate[i];
        aboveBits[i][1] = Num2Bits(32);
        aboveBits[i][1].in <== expectOf[i].out * aboveGate[i];
        above[i] <== LessThan(32)([expectOf[i].out * aboveGate[i], latest[i] * aboveGate[i]]);
        aboveKnown[i] <== above[i] * (1 - isUnknown[i]);
        aboveFires[i] <== fireSeenAbove * aboveKnown[i];
        whenSeen[i] <== fireSeen + equalFires[i] + differsFires[i] + aboveFires[i];
        seenFires[i] <== seen[i] * whenSeen[i];
        stateFires[i] <== fireUnseen * (1 - seen[i]) + seenFires[i];

        localBits[i] = Num2Bits(32);
        localBits[i].in <== localOf[i].out * isOp1;
        localAbove[i] <== LessThan(32)([localBound * isOp1, localOf[i].out * isOp1]);
        localIn[i] <== IsInSet(S)(localOf[i].out, localSet);
        localAboveFires[i] <== isOp1 * localAbove[i];
        outsideFires[i] <== isOp2 * (1 - localIn[i]);
        localFires[i] <== isOp0 + localAboveFires[i] + outsideFires[i];

        checkedLocal[i] <== checked[i] * localFires[i];
        fires[i] <== checkedLocal[i] * stateFires[i];
        if (i == 0) clean[i] <== 1 - fires[i];
        else clean[i] <== clean[i - 1] * (1 - fires[i]);
    }
    fired <== 1 - clean[N - 1];
}

// violated = 1 iff some row fires (the oracle's first firing row exists): RuleRows over the rows, and the keyed
// state is KeyedLatest's, whose answers (seen, latest) are checked there.
// seed must bind every row's tool, ok and facts (the caller passes the trace's final root).
template RuleCheck(N, T, W, S) {
    signal input ok[N];
    signal input tool[N];
    signal input facts[N][W];
    signal input seed;

    // θ: the rule (sdk/core/rules/rule.ts ruleThetaVector has the order).
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
    // check, checkWhen, expectSel, expect, write, writeWhen, valueSel, valueConst
    signal input entryColumns[8][T];

    // KeyedLatest's hints.
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
    signal output violated;

    component rows = RuleRows(N, T, W, S);
    rows.ok <== ok;
    rows.tool <== tool;
    rows.facts <== facts;
    rows.keySel <== keySel;
    rows.fireUnseen <== fireUnseen;
    rows.fireSeen <== fireSeen;
    rows.fireSeenEqual <== fireSeenEqual;
    rows.fireSeenDiffers <== fireSeenDiffers;
    rows.fireSeenAbove <== fireSeenAbove;
    rows.unknown <== unknown;
    rows.localSel <== localSel;
    rows.localOp <== localOp;
    rows.localBound <== localBound;
    rows.localSet <== localSet;
    rows.entryTool <== entryTool;
    rows.entryColumns <== entryColumns;
    rows.seen <== seen;
    rows.latest <== latest;

    component state = KeyedLatest(N);
    state.key <== rows.key;
    state.hasKey <== rows.hasKey;
    state.write <== rows.write;
    state.value <== rows.value;
    state.seed <== seed;
    state.seen <== seen;
    state.latest <== latest;
    state.age <== age;
    state.intro <== intro;
    state.finalValue <== finalValue;
    state.finalSeen <== finalSeen;
    state.finalTime <== finalTime;
    state.weight <== weight;
    state.beta <== beta;
    state.zeta <== zeta;

    violated <== rows.fired;
}
