pragma circom 2.1.0;

include "poseidon.circom";

// Number of field elements a record is encoded into (sdk/core/encoding.ts, SLOT_COUNT).
function slotCount() { return 7; }

// Record commitment v2 (docs/PROTOCOL.md "Record commitment"):
//   leaf_i = active ? Poseidon(slots_i..., digest_i, leaf_{i-1}) : 0,   leaf_{-1} = 0.
// `digest` is the record's salted hash of its whole canonical form (sdk/core/encoding.ts
// recordDigest: tool, args, result or error, metadata, ts), computed outside the circuit:
// the circuit never re-hashes JSON, it binds the digest beside the slots the predicates read.
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
