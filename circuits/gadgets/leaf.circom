pragma circom 2.1.0;

include "poseidon.circom";

// Number of field elements a record is encoded into (sdk/core/encoding.ts, SLOT_COUNT).
function slotCount() { return 7; }

// Observed values per record (sdk/core/observations.ts, OBS_SLOTS).
function obsSlots() { return 2; }

// Record encoding v3: the digest a leaf binds is Poseidon(status, obs[0..O), content) for a call of a
// tool whose profile observes a fact, and the content itself for every other record (v2's digest;
// sdk/core/encoding.ts recordDigest). Only circuits that read observations compute it, with `observed`
// (boolean, the caller's) saying which form the row has; the others take the digest as an opaque private
// input, exactly as under v2.
template RecordDigest() {
    var O = obsSlots();
    signal input observed;
    signal input status;
    signal input obs[O];
    signal input content;
    signal output digest;

    component h = PoseidonHash(O + 2);
    h.inputs[0] <== status;
    for (var k = 0; k < O; k++) h.inputs[1 + k] <== obs[k];
    h.inputs[O + 1] <== content;
    digest <== content + observed * (h.out - content);
}

// Record commitment v3 (docs/PROTOCOL.md "Record commitment"):
//   leaf_i = active ? Poseidon(slots_i..., digest_i, leaf_{i-1}) : 0,   leaf_{-1} = 0.
// `digest` binds the record's observations and its salted hash of its whole canonical form
// (RecordDigest above; sdk/core/encoding.ts: tool, args, result or error, metadata, ts), computed
// outside the circuit: the circuit never re-hashes JSON, it binds the digest beside the slots.
// `prev` chains the leaves, so leaf_{n-1} (the chain head) commits to the first n records in
// order; a checkpoint posts that head (checkpoints.circom).
// Assumes `active` is boolean (PrefixMask guarantees it).
template RecordLeaf() {
    var S = slotCount();
    signal input slots[S];
    signal input digest;
    signal input prev;
    signal input active;
    signal output leaf;

    component h = PoseidonHash(S + 2);
    for (var i = 0; i < S; i++) h.inputs[i] <== slots[i];
    h.inputs[S] <== digest;
    h.inputs[S + 1] <== prev;
    leaf <== active * h.out;
}
