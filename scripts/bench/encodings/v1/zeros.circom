// Protocol v1 gadget, copied verbatim from git HEAD cffe71c:circuits/gadgets/zeros.circom. Kept only for
// scripts/bench/encodings.ts (checkpoint-encoding costs); not part of any built circuit.
pragma circom 2.1.0;

// Root of an all-empty subtree of height `level` of the 16-ary trace tree (empty
// leaves are 0): Z(0) = 0, Z(l+1) = Poseidon(Z(l) sixteen times).
// Constants rather than in-circuit hashes: they cost no constraints.
// Heights 0..6 cover every capacity up to 2^24 records.
// test/circuits/gadgets.test.ts checks every entry against sdk/core/merkle.ts.
function zeroHash(level) {
    if (level == 0) return 0;
    if (level == 1) return 6961025786505490270790487869888725702980364259855350215456397845563605340881;
    if (level == 2) return 190094059183537526474050938428298547749140576722238745313696591586376835700;
    if (level == 3) return 4704046649809301790094035130483101736914044167897647257697621751865841291399;
    if (level == 4) return 20689657413301849323398776240748498951454267610010952559975451275444569918652;
    if (level == 5) return 10962448317084022467797267050321430675577006747949948714069961676483284564864;
    if (level == 6) return 6863233242134135851895139839139523885561898000372415857019357009288967200236;
    assert(level <= 6);
    return 0;
}
