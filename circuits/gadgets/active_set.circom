pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "sets.circom";
include "constants.circom";

// The "active-at" running state shared by AAP-2 (scope prefixes) and AAP-4
// (recipients): a set that starts as θ's list and that grant and revoke records of
// one namespace change from their seq on. For a value v and a record index I:
//   active(v, I) = v != 0 and the last state of
//     state := (v ∈ initial);  for j < I: if record j is a grant/revoke of the
//     namespace with value v, state := (record j is a grant)
// A record affects only records after it (j < I, strictly), so a grant never
// covers the call it is recorded at or anything before.
//
// Cost is linear in the trace: the events are first compacted, in record order,
// into E slots (EventLog), and each query scans the E slots, not the N records.
// A trace with more than E events of the namespace has no witness: the instance's
// `events` parameter is part of its capacity, like its record count (the prover
// checks it first and says so). docs/SOUNDNESS.md, "Event compaction", has the
// argument.
// Cost: SetEvents 9 per record; EventLog 3E + 3 per record; ActiveIn 4E + 3 +
// IsInSet(P) per query.

// Per record j: change[j] = 1 iff record j is a real (active) grant or revoke of
// namespace NS; event[j] = value[j] when change[j], else 0; grant[j] = 1 iff
// record j is a grant (of any namespace; read only where change[j] = 1). A
// grant/revoke whose value is 0 yields event 0, which matches no query (queries
// of 0 are never active).
template SetEvents(N, NS) {
    signal input active[N];
    signal input kind[N];
    signal input tool[N];
    signal input value[N];
    signal output change[N];
    signal output event[N];
    signal output grant[N];

    signal isRevoke[N];
    signal isNamespace[N];
    signal live[N];
    for (var j = 0; j < N; j++) {
        grant[j] <== IsEqual()([kind[j], KIND_GRANT()]);
        isRevoke[j] <== IsEqual()([kind[j], KIND_REVOKE()]);
        isNamespace[j] <== IsEqual()([tool[j], NS]);
        live[j] <== active[j] * isNamespace[j];
        // grant and revoke are exclusive, so their sum is boolean.
        change[j] <== live[j] * (grant[j] + isRevoke[j]);
        event[j] <== change[j] * value[j];
    }
}

// The events of SetEvents(N, ·), compacted in record order: slot k holds the
// (k+1)-th event (value[k], granted[k] = 1 for a grant), and value[k] = granted[k]
// = 0 for k at or past the number of events. count[i] = Σ_{j<i} change[j], the
// events recorded before record i; before[i][k] = 1 iff slot k holds an event of a
// record j < i, which is k < count[i]: events are numbered in record order, so that
// is exactly "recorded before i".
// Assumes change[] boolean and event[j] = 0 where change[j] = 0 (SetEvents).
// onehot[i] (CountOneHot) exists iff count[i] <= E. An event record with
// count[i] = E would have no slot: change[i] * onehot[i].bit[E] = 0 refuses it, so
// every event has its slot or there is no witness.
template EventLog(N, E) {
    assert(E >= 1);
    signal input change[N];
    signal input event[N];
    signal input grant[N];
    signal output value[E];
    signal output granted[E];
    signal output count[N];
    signal output before[N][E];

    component onehot[N];
    signal isGrant[N];
    signal slotValue[N][E];
    signal slotGrant[N][E];
    var cnt = 0;
    var values[E];
    var grants[E];
    for (var k = 0; k < E; k++) {
        values[k] = 0;
        grants[k] = 0;
    }
    for (var i = 0; i < N; i++) {
        // Linear in change[]: --O2 substitutes it away.
        count[i] <== cnt;
        onehot[i] = CountOneHot(E);
        onehot[i].value <== count[i];
        before[i] <== onehot[i].before;
        change[i] * onehot[i].bit[E] === 0;

        isGrant[i] <== change[i] * grant[i];
        for (var k = 0; k < E; k++) {
            // A record that is not an event contributes 0: its event and isGrant are 0.
            slotValue[i][k] <== onehot[i].bit[k] * event[i];
            slotGrant[i][k] <== onehot[i].bit[k] * isGrant[i];
            values[k] += slotValue[i][k];
            grants[k] += slotGrant[i][k];
        }
        cnt += change[i];
    }
    for (var k = 0; k < E; k++) {
        value[k] <== values[k];
        granted[k] <== grants[k];
    }
}

// out = active(value, I) as above, for the record I whose row of EventLog's
// before[][] is given; present = (value != 0). The initial set may be padded with
// 0: a query of 0 is never active, whatever the padding or the empty slots.
// Assumes granted[] and before[] boolean (EventLog).
template ActiveIn(E, P) {
    signal input value;
    signal input initial[P];
    signal input slot[E];
    signal input granted[E];
    signal input before[E];
    signal output present;
    signal output out;

    signal absent <== IsZero()(value);
    present <== 1 - absent;
    component scan = ActiveState(E, P);
    scan.value <== value;
    scan.initial <== initial;
    scan.slot <== slot;
    scan.granted <== granted;
    scan.before <== before;
    out <== present * scan.out;
}

// ActiveIn without its zero test, for a caller whose value is never 0 wherever out counts (AAP-2's named
// covers: every ancestor of a path is a hash, never 0). For value = 0, out is 1 when 0 pads the initial
// set, so the caller must rule 0 out itself. Three constraints fewer than ActiveIn.
template ActiveState(E, P) {
    signal input value;
    signal input initial[P];
    signal input slot[E];
    signal input granted[E];
    signal input before[E];
    signal output out;

    signal state[E + 1];
    signal same[E];
    signal hit[E];
    state[0] <== IsInSet(P)(value, initial);
    for (var k = 0; k < E; k++) {
        same[k] <== IsEqual()([slot[k], value]);
        hit[k] <== same[k] * before[k];
        state[k + 1] <== state[k] + hit[k] * (granted[k] - state[k]);
    }
    out <== state[E];
}
