pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Amounts and limits, range-checked before anything compares them
// (test/circuits/limits.test.ts).

// Bits of an amount in minor units: the encoding holds amounts in [0, 2^64 - 2]
// (sdk/core/encoding.ts, MAX_AMOUNT), and every θ cap or limit is below 2^64.
function AMOUNT_BITS() { return 64; }

// The amount a checked call carries in its aux slot, which sdk/core/encoding.ts writes
// as amount + 1, or 0 when the amount is absent or malformed:
//   missing = checked * (aux == 0)
//   amount  = checked * (aux - 1)  when aux != 0, else 0; range-checked < 2^64.
// Assumes `checked` is boolean. An unchecked record yields (0, 0) whatever its aux
// holds (authorizations keep a code there), so records a predicate does not read
// cannot block its proof. A checked record whose aux - 1 is not below 2^64 (no
// honest encoding writes one) has no witness at all: neither outcome is provable.
// 68 constraints.
template GatedAmount() {
    signal input checked;
    signal input aux;
    signal output missing;
    signal output amount;

    signal absent <== IsZero()(aux);
    missing <== checked * absent;
    amount <== checked * (aux - 1 + absent);
    component bits = Num2Bits(AMOUNT_BITS());
    bits.in <== amount;
}

// An optional limit as the θ vector encodes it (sdk/core/predicates/aap5/definition.ts):
// enc = limit + 1, or 0 for "no limit", so that no limit value hashes like its
// absence. Outputs enabled = (enc != 0) and limit = enc - 1 (0 when disabled),
// range-checked < 2^B. An enc above 2^B has no witness. B + 3 constraints (B + 2
// where --O2 can substitute enc away).
template OptionalLimit(B) {
    signal input enc;
    signal output enabled;
    signal output limit;

    signal disabled <== IsZero()(enc);
    enabled <== 1 - disabled;
    limit <== enc - 1 + disabled;
    component bits = Num2Bits(B);
    bits.in <== limit;
}

// out = 1 iff x > limit, as integers. Range-checks neither: assumes both are below
// 2^B, which the caller establishes (a shared limit once, by Num2Bits or
// OptionalLimit; a sum of k range-checked values by its width). B + 1 constraints.
template Exceeds(B) {
    assert(B <= 252);
    signal input x;
    signal input limit;
    signal output out;

    out <== LessThan(B)([limit, x]);
}
