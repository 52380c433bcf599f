pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/bitify.circom";
include "sets.circom";
include "keyed_latest.circom";

// Rules over observations and session state (issue 37): the proof face of sdk/core/rules/rule.ts (the form)
// and sdk/core/rules/rule-eval.ts (the oracle), which say the semantics; docs/PREDICATES.md "Rules" says it in
// words. θ (the rule, hashed into the promise) is a table of T entries by (tool, part) plus the rule's state
// test and local test; every row is read through it, so one circuit serves every arm and an arm is a rule
// entry, not a template.
// Each row: ok (its record is a call that ran and returned, boolean, the caller's), tool, part (0 starts a
// record), W facts (0 = absent). A selector is a fact index 0..W-1, or W for the constant (the key 1, a guard
// that always holds, the entry's value).

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

// The θ entry a row names, as the row's own values: Σ match_j · column_j, match_j = [tool matches] · [part
// matches], where an entry's tool 0 ("*") matches every tool. θ names each (tool, part) once and "*" of a part
// alone (the parser's rules, and a θ that breaks them only adds entries' columns: the provider's loss, as
// the promise document shows it), so at most one match is 1.
template RuleEntryOf(T, C) {
    signal input tool;
    signal input part;
    signal input anyTool[T];
    signal input entryTool[T];
    signal input entryPart[T];
    signal input columns[C][T];
    signal output out[C];
    signal toolEqual[T];
    signal toolNamed[T];
    signal toolMatch[T];
    signal partMatch[T];
    signal match[T];
    signal part_[C][T];
    for (var j = 0; j < T; j++) {
        toolEqual[j] <== IsEqual()([tool, entryTool[j]]);
        toolNamed[j] <== (1 - anyTool[j]) * toolEqual[j];
        toolMatch[j] <== anyTool[j] + toolNamed[j];
        partMatch[j] <== IsEqual()([part, entryPart[j]]);
        match[j] <== toolMatch[j] * partMatch[j];
    }
    for (var c = 0; c < C; c++) {
        var sum = 0;
        for (var j = 0; j < T; j++) {
            part_[c][j] <== match[j] * columns[c][j];
            sum += part_[c][j];
        }
        out[c] <== sum;
    }
}

// The entry columns after the part (sdk/core/rules/rule.ts ENTRY_COLUMNS, whose first is the part):
// check, checkWhen, expectSel, expect, expectRegister, write, writeWhen, valueSel, valueConst, writeIfUnseen,
// keyOp, keySel, load, preferSel.
function RULE_ENTRY_COLUMNS() { return 14; }

// The rule over N rows, given each row's keyed-state answers: θ's flags checked, each row's access to the state
// (hasKey, key, write, value, as KeyedLatest(From) takes them) and whether the row fires; fired = 1 iff some row
// does (the oracle's first firing row exists). The per-row logic mirrors rule-eval.ts's ruleStep, writesNow,
// registerAfter and stateFires. seen[] and latest[] are the prover's answers: the caller must check them with a
// keyed-latest argument over these rows' accesses (RuleCheck with KeyedLatest for a whole claim;
// circuits/segments/aap7_rule.circom with KeyedLatestFrom over a segment chain), which also range-checks seen
// (boolean) and pins seen = latest = 0 on a row without a key. A row's key and write may depend on those
// answers (the register, ifUnseen): the argument holds for any access sequence fixed before its challenges,
// and the answers are in its pack chain, so the sequence is (docs/SOUNDNESS.md "Rules").
// The register starts each record at 0, and row 0 at registerStart unless it starts one (part 0): the register
// after the last row of the record it continues (a segment's carried registerEnd; 0 for a whole claim, whose
// row 0 starts a record, RecordRows').
template RuleRows(N, T, W, S) {
    var C = RULE_ENTRY_COLUMNS();
    signal input ok[N];
    signal input tool[N];
    signal input part[N];
    signal input facts[N][W];
    // The register before row 0 (0 for a whole claim), and after the last row.
    signal input registerStart;
    signal output registerEnd;

    // θ: the rule (sdk/core/rules/rule.ts ruleThetaVector has the order).
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
    signal anyTool[T];
    for (var j = 0; j < T; j++) anyTool[j] <== IsZero()(entryTool[j]);

    component entry[N];
    component checkWhen[N];
    component writeWhen[N];
    component keyOf[N];
    component valueOf[N];
    component localOf[N];
    component localBits[N];
    component expectOf[N];
    component preferOf[N];
    component aboveBits[N][2];
    signal first[N];
    signal registerIn[N];
    signal registerOut[N];
    signal isRegister[N];
    signal isPair[N];
    signal keyed[N];
    signal usesRegister[N];
    signal registerEmpty[N];
    signal idle[N];
    signal live[N];
    signal checkGuard[N];
    signal writeGuard[N];
    signal liveChecks[N];
    signal checked[N];
    signal liveWrites[N];
    signal writes[N];
    signal loads[N];
    signal pairKey[N];
    signal registerKey[N];
    signal pairTerm[N];
    signal factKey[N];
    signal keyValue[N];
    signal keyPresent[N];
    signal checksOrWrites[N];
    signal touched[N];
    signal writesKey[N];
    signal skipsWrite[N];
    signal expectRegisterTerm[N];
    signal expect[N];
    signal preferPresent[N];
    signal readValue[N];
    signal loaded[N];
    signal loadedTerm[N];
    for (var i = 0; i < N; i++) {
        ok[i] * (ok[i] - 1) === 0;
        entry[i] = RuleEntryOf(T, C);
        entry[i].tool <== tool[i];
        entry[i].part <== part[i];
        entry[i].anyTool <== anyTool;
        entry[i].entryTool <== entryTool;
        entry[i].entryPart <== entryPart;
        entry[i].columns <== entryColumns;
        // A row's boolean columns are boolean (a θ naming a (tool, part) twice, or a flag other than 0/1,
        // leaves that tool's rows unprovable: the provider's loss, never a wrong verdict). keyOp is 0, 1 or 2.
        entry[i].out[0] * (entry[i].out[0] - 1) === 0;
        entry[i].out[4] * (entry[i].out[4] - 1) === 0;
        entry[i].out[5] * (entry[i].out[5] - 1) === 0;
        entry[i].out[9] * (entry[i].out[9] - 1) === 0;
        entry[i].out[12] * (entry[i].out[12] - 1) === 0;
        isRegister[i] <== IsEqual()([entry[i].out[10], 1]);
        isPair[i] <== IsEqual()([entry[i].out[10], 2]);
        keyed[i] <== IsZero()(entry[i].out[10]);
        keyed[i] + isRegister[i] + isPair[i] === 1;

        // The register: 0 at a record's first row (part 0), else the previous row's.
        first[i] <== IsZero()(part[i]);
        if (i == 0) {
            // A segment's first row may continue the record the last segment ended in (RowStream).
            registerIn[i] <== (1 - first[i]) * registerStart;
        } else {
            registerIn[i] <== (1 - first[i]) * registerOut[i - 1];
        }
        // A row that reads the register does nothing while it is 0 (too little evidence: no check, no state).
        usesRegister[i] <== 1 - keyed[i] + entry[i].out[4] - (1 - keyed[i]) * entry[i].out[4];
        registerEmpty[i] <== IsZero()(registerIn[i]);
        idle[i] <== usesRegister[i] * registerEmpty[i];
        live[i] <== ok[i] * (1 - idle[i]);

        checkWhen[i] = SelectFact(W);
        checkWhen[i].facts <== facts[i];
        checkWhen[i].sel <== entry[i].out[1];
        checkWhen[i].constant <== 1;
        checkGuard[i] <== NonZero()(checkWhen[i].out);
        liveChecks[i] <== live[i] * entry[i].out[0];
        checked[i] <== liveChecks[i] * checkGuard[i];

        writeWhen[i] = SelectFact(W);
        writeWhen[i].facts <== facts[i];
        writeWhen[i].sel <== entry[i].out[6];
        writeWhen[i].constant <== 1;
        writeGuard[i] <== NonZero()(writeWhen[i].out);
        liveWrites[i] <== live[i] * entry[i].out[5];
        writes[i] <== liveWrites[i] * writeGuard[i];
        loads[i] <== live[i] * entry[i].out[12];

        // The key: a fact (or 1), the register, or Poseidon(register, fact).
        keyOf[i] = SelectFact(W);
        keyOf[i].facts <== facts[i];
        keyOf[i].sel <== entry[i].out[11];
        keyOf[i].constant <== 1;
        pairKey[i] <== PoseidonHash(2)([registerIn[i], keyOf[i].out]);
        registerKey[i] <== isRegister[i] * registerIn[i];
        pairTerm[i] <== isPair[i] * pairKey[i];
        factKey[i] <== keyed[i] * keyOf[i].out;
        keyValue[i] <== registerKey[i] + pairTerm[i] + factKey[i];
        keyPresent[i] <== NonZero()(keyValue[i]);
        checksOrWrites[i] <== checked[i] + writes[i] - checked[i] * writes[i];
        touched[i] <== checksOrWrites[i] + loads[i] - checksOrWrites[i] * loads[i];
        hasKey[i] <== touched[i] * keyPresent[i];
        key[i] <== hasKey[i] * keyValue[i];
        // ifUnseen: a key already written keeps its value (seen is the argument's answer for this key).
        writesKey[i] <== writes[i] * keyPresent[i];
        skipsWrite[i] <== entry[i].out[9] * seen[i];
        write[i] <== writesKey[i] * (1 - skipsWrite[i]);

        valueOf[i] = SelectFact(W);
        valueOf[i].facts <== facts[i];
        valueOf[i].sel <== entry[i].out[7];
        valueOf[i].constant <== entry[i].out[8];
        value[i] <== write[i] * valueOf[i].out;

        localOf[i] = SelectFact(W);
        localOf[i].facts <== facts[i];
        localOf[i].sel <== localSel;
        localOf[i].constant <== 1;

        expectOf[i] = SelectFact(W);
        expectOf[i].facts <== facts[i];
        expectOf[i].sel <== entry[i].out[2];
        expectOf[i].constant <== entry[i].out[3];
        expectRegisterTerm[i] <== entry[i].out[4] * (registerIn[i] - expectOf[i].out);
        expect[i] <== expectOf[i].out + expectRegisterTerm[i];

        // The register after the row: a loading row takes its prefer fact when present, else what it read
        // (0 when never written: seen = latest = 0 on a row without a key, the argument's pins).
        preferOf[i] = SelectFact(W);
        preferOf[i].facts <== facts[i];
        preferOf[i].sel <== entry[i].out[13];
        preferOf[i].constant <== 0;
        preferPresent[i] <== NonZero()(preferOf[i].out);
        readValue[i] <== seen[i] * latest[i];
        loaded[i] <== readValue[i] + preferPresent[i] * (preferOf[i].out - readValue[i]);
        loadedTerm[i] <== loads[i] * (loaded[i] - registerIn[i]);
        registerOut[i] <== registerIn[i] + loadedTerm[i];
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
        sameAsExpect[i] <== IsEqual()([latest[i], expect[i]]);
        isUnknown[i] <== IsEqual()([latest[i], unknown]);
        differs[i] <== (1 - sameAsExpect[i]) * (1 - isUnknown[i]);
        equalFires[i] <== fireSeenEqual * sameAsExpect[i];
        differsFires[i] <== fireSeenDiffers * differs[i];
        aboveGate[i] <== fireSeenAbove * checked[i];
        aboveBits[i][0] = Num2Bits(32);
        aboveBits[i][0].in <== latest[i] * aboveGate[i];
        aboveBits[i][1] = Num2Bits(32);
        aboveBits[i][1].in <== expect[i] * aboveGate[i];
        above[i] <== LessThan(32)([expect[i] * aboveGate[i], latest[i] * aboveGate[i]]);
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
    registerEnd <== registerOut[N - 1];
}

// violated = 1 iff some row fires (the oracle's first firing row exists): RuleRows over the rows, and the keyed
// state is KeyedLatest's, whose answers (seen, latest) are checked there.
// seed must bind every row's tool, ok, part and facts (the caller passes RecordRows' seed).
template RuleCheck(N, T, W, S) {
    var C = RULE_ENTRY_COLUMNS();
    signal input ok[N];
    signal input tool[N];
    signal input part[N];
    signal input facts[N][W];
    signal input seed;

    // θ: the rule (sdk/core/rules/rule.ts ruleThetaVector has the order).
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
    rows.registerStart <== 0;
    rows.ok <== ok;
    rows.tool <== tool;
    rows.part <== part;
    rows.facts <== facts;
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
    rows.entryPart <== entryPart;
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
