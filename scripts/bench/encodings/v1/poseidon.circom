// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/poseidon.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/poseidon_constants.circom";

// The one Poseidon every gadget calls, equal to sdk/core/hash.ts's poseidon at every width 1..16.
// Two templates compute it, picked per compiled circuit by leanPoseidon(), a function that the file
// declaring `component main` defines (prover/artifacts/circuit-build.ts writes it from the instance table):
//   0: circomlib's Poseidon. Every round-constant addition and mix is a signal for --O2 to substitute
//      away, which costs circom2 memory and time, but leaves the sparsest A and B matrices.
//   1: PoseidonLean below. The linear layers stay expressions: the same constraints, compiled 4x faster
//      in 3.8x less memory, but with denser A and B (a ~14 % larger key). It is what lets circom2, whose
//      WebAssembly memory stops at 4 GiB, compile circuits near a million constraints.
// docs/BENCHMARKS.md, "Where circom2's memory goes", has the measurements.
template PoseidonHash(nInputs) {
    signal input inputs[nInputs];
    signal output out;
    if (leanPoseidon() == 1) {
        out <== PoseidonLean(nInputs)(inputs);
    } else {
        out <== Poseidon(nInputs)(inputs);
    }
}

// circomlib's Poseidon (same constants, rounds and order of operations), with the state held in
// variables: only the S-boxes x^5 = (x^2)^2 * x are signals, three constraints each.
template PoseidonLean(nInputs) {
    assert(nInputs >= 1 && nInputs <= 16);
    signal input inputs[nInputs];
    signal output out;

    var N_ROUNDS_P[16] = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
    var t = nInputs + 1;
    var nRoundsF = 8;
    var nRoundsP = N_ROUNDS_P[t - 2];
    var C[t * nRoundsF + nRoundsP] = POSEIDON_C(t);
    var S[N_ROUNDS_P[t - 2] * (t * 2 - 1)] = POSEIDON_S(t);
    var M[t][t] = POSEIDON_M(t);
    var P[t][t] = POSEIDON_P(t);
    var half = nRoundsF \ 2;

    signal sq[nRoundsF * t + nRoundsP];
    signal qu[nRoundsF * t + nRoundsP];
    signal x5[nRoundsF * t + nRoundsP];
    var state[t];
    var next[t];
    var k = 0;
    state[0] = 0;
    for (var j = 1; j < t; j++) state[j] = inputs[j - 1];
    for (var j = 0; j < t; j++) state[j] += C[j];

    // First half of the full rounds; the last one mixes with P, circomlib's pre-sparse matrix.
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            sq[k] <== state[j] * state[j];
            qu[k] <== sq[k] * sq[k];
            x5[k] <== qu[k] * state[j];
            state[j] = x5[k] + C[(r + 1) * t + j];
            k++;
        }
        for (var i = 0; i < t; i++) {
            next[i] = 0;
            for (var j = 0; j < t; j++) next[i] += (r < half - 1 ? M[j][i] : P[j][i]) * state[j];
        }
        for (var i = 0; i < t; i++) state[i] = next[i];
    }

    // Partial rounds: one S-box, then the sparse mix S.
    for (var r = 0; r < nRoundsP; r++) {
        sq[k] <== state[0] * state[0];
        qu[k] <== sq[k] * sq[k];
        x5[k] <== qu[k] * state[0];
        state[0] = x5[k] + C[(half + 1) * t + r];
        k++;
        var first = 0;
        for (var i = 0; i < t; i++) first += S[(t * 2 - 1) * r + i] * state[i];
        for (var i = 1; i < t; i++) state[i] += state[0] * S[(t * 2 - 1) * r + t + i - 1];
        state[0] = first;
    }

    // Second half of the full rounds; the last one has no constants and only state[0] of its mix is kept.
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            sq[k] <== state[j] * state[j];
            qu[k] <== sq[k] * sq[k];
            x5[k] <== qu[k] * state[j];
            state[j] = x5[k];
            k++;
        }
        if (r < half - 1) {
            for (var j = 0; j < t; j++) state[j] += C[(half + 1) * t + nRoundsP + r * t + j];
            for (var i = 0; i < t; i++) {
                next[i] = 0;
                for (var j = 0; j < t; j++) next[i] += M[j][i] * state[j];
            }
            for (var i = 0; i < t; i++) state[i] = next[i];
        }
    }
    var mixed = 0;
    for (var j = 0; j < t; j++) mixed += M[j][0] * state[j];
    out <== mixed;
}
