// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/leaf.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
pragma circom 2.1.0;

include "poseidon.circom";

// Number of field elements a record is encoded into (sdk/core/encoding.ts, SLOT_COUNT).
function slotCount() { return 7; }

// leaf = active ? Poseidon(slots..., salt) : 0.
// Assumes `active` is boolean (PrefixMask guarantees it). The salt is not
// re-derived here: the root binds the slots by collision resistance, and the salt
// only has to be secret for hiding (docs/SOUNDNESS.md).
template RecordLeaf() {
    var S = slotCount();
    signal input slots[S];
    signal input salt;
    signal input active;
    signal output leaf;

    component h = PoseidonHash(S + 1);
    for (var i = 0; i < S; i++) h.inputs[i] <== slots[i];
    h.inputs[S] <== salt;
    leaf <== active * h.out;
}
