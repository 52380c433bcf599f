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
// Cost: SetEvents 9 per record; ActiveAt 3 + IsInSet(P) + 3 per earlier record
// (the O(N^2) scan; fine at these capacities).

// Per record j: event[j] = value[j] when record j is a real (active) grant or
// revoke of namespace NS, else 0; grant[j] = 1 iff record j is a grant (of any
// namespace; read only where event[j] != 0). A grant/revoke whose value is 0
// yields event 0, which matches no query (queries of 0 are never active).
template SetEvents(N, NS) {
    signal input active[N];
    signal input kind[N];
    signal input tool[N];
    signal input value[N];
    signal output event[N];
    signal output grant[N];

    signal isRevoke[N];
    signal isNamespace[N];
    signal live[N];
    signal change[N];
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

// out = active(value, I) as above, over the events of SetEvents(N, ·);
// present = (value != 0). I in [0, N]. The initial set may be padded with 0:
// a query of 0 is never active, whatever the padding.
template ActiveAt(N, P, I) {
    assert(I >= 0 && I <= N);
    signal input value;
    signal input initial[P];
    signal input event[N];
    signal input grant[N];
    signal output present;
    signal output out;

    signal absent <== IsZero()(value);
    present <== 1 - absent;

    // state[j]: the running state after records 0..j-1. Arrays are sized I + 1 so
    // that I = 0 declares no zero-size array; hit[I] stays unused.
    signal state[I + 1];
    signal hit[I + 1];
    state[0] <== IsInSet(P)(value, initial);
    for (var j = 0; j < I; j++) {
        hit[j] <== IsEqual()([event[j], value]);
        state[j + 1] <== state[j] + hit[j] * (grant[j] - state[j]);
    }
    out <== present * state[I];
}
