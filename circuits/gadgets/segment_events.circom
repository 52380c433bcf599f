pragma circom 2.1.0;

include "hash.circom";
include "sets.circom";

// EventLog (active_set.circom) continued across segments: the first countIn slots hold the events of
// the segments before (carried, in record order), and this segment's events fill the next ones.
// before[i][k] = 1 iff slot k holds an event recorded before row i: a carried one (k < countIn) or
// one of this segment's earlier rows; count[i] is their number, the session's events before row i. Slots at or past countIn must come in empty, so a carried
// log is exactly the compacted events so far. A session with more than E events of the namespace
// has no witness: E is part of the segment circuit's capacity, as in EventLog.
// Assumes change[] boolean and event[j] = 0 where change[j] = 0 (SetEvents).
template EventLogFrom(N, E) {
    assert(E >= 1);
    signal input countIn;
    signal input valueIn[E];
    signal input grantedIn[E];
    signal input change[N];
    signal input event[N];
    signal input grant[N];
    signal output value[E];
    signal output granted[E];
    signal output countOut;
    signal output count[N];
    signal output before[N][E];

    component carried = CountOneHot(E);
    carried.value <== countIn;
    for (var k = 0; k < E; k++) {
        (1 - carried.before[k]) * valueIn[k] === 0;
        (1 - carried.before[k]) * grantedIn[k] === 0;
    }

    component onehot[N];
    signal isGrant[N];
    signal slotValue[N][E];
    signal slotGrant[N][E];
    var cnt = countIn;
    var values[E];
    var grants[E];
    for (var k = 0; k < E; k++) {
        values[k] = valueIn[k];
        grants[k] = grantedIn[k];
    }
    for (var i = 0; i < N; i++) {
        // Linear in countIn and change[]: --O2 substitutes it away.
        count[i] <== cnt;
        onehot[i] = CountOneHot(E);
        onehot[i].value <== count[i];
        before[i] <== onehot[i].before;
        change[i] * onehot[i].bit[E] === 0;

        isGrant[i] <== change[i] * grant[i];
        for (var k = 0; k < E; k++) {
            slotValue[i][k] <== onehot[i].bit[k] * event[i];
            slotGrant[i][k] <== onehot[i].bit[k] * isGrant[i];
            values[k] += slotValue[i][k];
            grants[k] += slotGrant[i][k];
        }
        cnt += change[i];
    }
    countOut <== cnt;
    for (var k = 0; k < E; k++) {
        value[k] <== values[k];
        granted[k] <== grants[k];
    }
}

// The event log's commitment in a segment's carried state: HashVector(count, values, granted).
template EventLogState(E) {
    signal input count;
    signal input value[E];
    signal input granted[E];
    signal output out;

    component h = HashVector(1 + 2 * E);
    h.in[0] <== count;
    for (var k = 0; k < E; k++) {
        h.in[1 + k] <== value[k];
        h.in[1 + E + k] <== granted[k];
    }
    out <== h.out;
}
