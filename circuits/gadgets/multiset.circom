pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";

// Multiset equality and distinctness, tested at a challenge z that the circuit draws
// itself by hashing (Fiat–Shamir). Each test is a polynomial identity checked at one
// point, so it is sound only if every value it reads was fixed before z was drawn:
// the caller hashes those values (or a commitment that binds them) into z.
// docs/SOUNDNESS.md, "Cross-record checks", has the argument;
// test/circuits/multiset.test.ts the edges and forged witnesses.

// Bits of a label below n: the least B with 2^B >= n (sdk/core/multiset.ts, countBits).
function countBits(n) {
    var b = 0;
    while ((1 << b) < n) b++;
    return b;
}

// Labels of `width` bits packed per field element before hashing: 250 bits stay below
// the field's 253, so a packing of range-checked labels is injective.
function labelsPerElement(width) { return 250 \ width; }

// out = ∏ (z - f[i]) over the i with sel[i] = 1 (1 when none is selected).
// Two multisets are equal iff their products agree as polynomials in z; at a z drawn
// after both are fixed, unequal multisets of at most M elements agree with
// probability at most M / r. Assumes sel[] boolean. 2N - 1 constraints.
template SelectedProduct(N) {
    signal input sel[N];
    signal input f[N];
    signal input z;
    signal output out;

    // term[i] + 1 is z - f[i] when selected, 1 otherwise.
    signal term[N];
    signal acc[N];
    for (var i = 0; i < N; i++) {
        term[i] <== sel[i] * (z - f[i] - 1);
        if (i == 0) acc[i] <== term[i] + 1;
        else acc[i] <== acc[i - 1] * (term[i] + 1);
    }
    out <== acc[N - 1];
}

// The values u[i] with sel[i] = 1 are pairwise distinct.
// Values u_1..u_m are distinct iff 1/f, f(X) = ∏ (X - u_k), has only simple poles, iff
// it splits into partial fractions
//   1/f(X) = Σ_k w_k / (X - u_k)        (then w_k = 1 / ∏_(j≠k) (u_k - u_j)).
// The prover supplies the weights w (sdk/core/multiset.ts; any value where sel = 0) and the
// circuit checks f(z)·Σ_sel w[i]/(z - u[i]) = 1, or, when nothing is selected (f = 1,
// an empty sum), 0 = 0. With a repeated root, f·Σ w_k/(X - u_k) - 1
// is a nonzero polynomial of degree < N for any weights (1/f has a double pole there,
// the sum only simple ones), so a z drawn after u and w are fixed satisfies it with
// probability < N / r. A selected u[i] = z has no witness (inv[i] does not exist).
// An unselected row's inv[i] is pinned to 0 by its own constraint, so its term is 0
// whatever u[i] is: without that, an unselected u[i] equal to z (a padding row the
// prover writes after seeing z) would leave inv[i] free and its term able to
// balance any sum. Assumes sel[] boolean. 5N + 2 constraints.
template DistinctRoots(N) {
    signal input sel[N];
    signal input u[N];
    signal input w[N];
    signal input z;

    // inv[i] = 1 / (z - u[i]) when selected, 0 otherwise: both are constrained.
    signal inv[N];
    signal term[N];
    var fractions = 0;
    var selected = 0;
    for (var i = 0; i < N; i++) {
        selected += sel[i];
        inv[i] <-- sel[i] != 0 ? 1 / (z - u[i]) : 0;
        inv[i] * (z - u[i]) === sel[i];
        inv[i] * (1 - sel[i]) === 0;
        term[i] <== w[i] * inv[i];
        fractions += term[i];
    }
    signal f <== SelectedProduct(N)(sel, u, z);
    // At most N < r selections: the count is 0 only when none is.
    signal empty <== IsZero()(selected);
    f * fractions === 1 - empty;
}
