pragma circom 2.1.0;

include "poseidon.circom";

// Poseidon over a vector of any length L >= 1, chained in chunks that fit
// circomlib's 16-input limit. Mirrors hashVector() in sdk/core/hash.ts:
//   h = Poseidon(v[0..16)), then h = Poseidon(h, next <= 15 elements) per chunk.
template HashVector(L) {
    assert(L >= 1);
    signal input in[L];
    signal output out;

    var first = L < 16 ? L : 16;
    var chunks = 1;
    var rest = L - first;
    while (rest > 0) {
        chunks += 1;
        rest -= rest < 15 ? rest : 15;
    }

    component h[chunks];
    h[0] = PoseidonHash(first);
    for (var i = 0; i < first; i++) h[0].inputs[i] <== in[i];

    var at = first;
    for (var c = 1; c < chunks; c++) {
        var size = L - at < 15 ? L - at : 15;
        h[c] = PoseidonHash(size + 1);
        h[c].inputs[0] <== h[c - 1].out;
        for (var i = 0; i < size; i++) h[c].inputs[i + 1] <== in[at + i];
        at += size;
    }
    out <== h[chunks - 1].out;
}
