pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "hash.circom";
include "multiset.circom";
include "segment_argument.circom";

// Keyed latest value: for each row i, the last value written for key[i] by a strictly earlier row, and
// whether there was one ("never observed" is seen = 0, distinct from every value, 0 included). Last write
// wins. Example: an order's status (value) by order id (key), written by every read of the order.
// sdk/core/keyed-latest.ts is the model and computes the hints; test/circuits/keyed-latest.test.ts has the
// edges, the forged witnesses and the adversarial search.
//
// Offline memory checking (Blum et al. 1991), with the answers as the prover's hints. Row i with
// hasKey[i] = 1 is one access to address key[i] at time now = start + i + 1 (the row's index in the session's
// rows + 1; time 0 is before every row). The access reads the tuple (key, latest, seen, oldTime) and writes
// (key, newValue, newSeen, now): the value written when write[i] = 1, else what it read, so a pure query
// writes back what it read. Each address is introduced once, by one of its rows (intro[i] = 1), which
// adds the initial tuple (key, 0, 0, 0), "never observed", and takes away the final tuple (key,
// finalValue, finalSeen, finalTime). With
//     produced = {initial tuples} ∪ {written tuples},   consumed = {read tuples} ∪ {final tuples},
// the circuit requires produced = consumed as multisets, oldTime < now on every access, and the
// introduced keys pairwise distinct. Then, address by address (fingerprints keep addresses apart): let
// its accesses be at times t1 < … < tm. An address no row introduced has a read at t1 consuming a tuple
// of time < t1, and every tuple produced for it is a write of time >= t1: no multiset matches, so every
// accessed address is introduced, exactly once (distinct). The read at t1 can only consume the initial
// tuple (time 0), the only one older than t1; the read at t2 then only the write at t1 (the initial
// tuple is taken, and a tuple is consumed once); by induction the read at t_j consumes the write at
// t_(j-1), and the final tuple the write at tm. So each read answers with the latest earlier write
// for its key, or (0, 0) when there is none: the prover cannot answer with an older write (consumed by
// the read after it, the newer write would be left over) nor with "never observed" after a write (that
// takes a second initial tuple, a second introduction of the key).
//
// Split over segments as AAP-1's and AAP-5's arguments are (segment_argument.circom): each segment
// multiplies its rows into the running products and the distinctness certificate and carries them, the
// prover picks beta (tuple compression) and zeta (the products' and the certificate's point) in segment 0,
// and the last segment (isLast = 1) pins
//     beta = HashVector(finalRoot, packChain),   zeta = HashVector(beta, weightChain),
// where packChain chains every segment's hints (latest, finalValue, and the packed small hints) and
// weightChain every segment's certificate weights. A whole claim is one segment with start 0, isLast 1.
//
// Prover-chosen value → what binds it before the challenge that tests it:
//   key, hasKey, write, value       finalRoot (the caller's: the trace's root binds every row), in beta
//   latest, finalValue (full)       packChain, in beta
//   seen, age, intro, finalSeen,    packChain, packed injectively: each is range-checked (seen, intro,
//   finalTime (small)                 finalSeen boolean, age TB bits, finalTime TB + 1 bits)
//   weight                          weightChain, in zeta (weights may be chosen after beta: they test only
//                                     the distinctness of the introduced keys, which finalRoot and intro fix)
//   beta, zeta, start               carried (betaOut, zetaOut, startOut = start + N) from segment to segment;
//                                     beta and zeta pinned by the last, so every segment used the pinned ones
//   the inverses (<--)              fixed by their two constraints once zeta is
//   carried values at a boundary    the caller's segment state commitment (as for AAP-1 and AAP-5)
// docs/SOUNDNESS.md, "Keyed latest value", has the argument and the failure probabilities.
//
// The caller's obligations, as for AAP-1's and AAP-5's segment arguments: every carried value (the outputs
// below, betaOut, zetaOut and startOut included) is the previous segment's, through its segment state
// commitment; the first segment starts from start 0, chains 0, products and roots 1, fractions and firsts 0;
// and the chain closes: exactly its last segment has isLast = 1, and only that segment's state is read as the
// verdict. (An independent review showed each one needed: a middle segment picking its own zeta, two segments
// swapping starts, or a chain never closed each lets a lie through; test/circuits/keyed-latest-review.test.ts.)
// Assumes hasKey[] and write[] boolean, start + N <= 2^TB and isLast boolean. A row without a key (hasKey = 0)
// reads and writes nothing and answers (0, 0). Cost, measured (docs/BENCHMARKS.md): 178.6 a row for a whole
// claim of 1,024 rows (TB = 10), 223.5 a row in a segment of 64 (TB = 24), most of it the hashes of the two
// full-field hints and the weight of each row.
template KeyedLatestFrom(N, TB) {
    // Small hints packed into one label per row: seen (1) | age (TB) | intro (1) | finalSeen (1) | finalTime (TB + 1).
    var WIDTH = 2 * TB + 4;
    var PER = labelsPerElement(WIDTH);
    var PACKS = (N + PER - 1) \ PER;

    signal input key[N];
    signal input hasKey[N];
    signal input write[N];
    signal input value[N];
    signal input start;
    signal input isLast;
    signal input finalRoot;
    // The prover's answers and the argument's hints.
    signal input seen[N];
    signal input latest[N];
    signal input age[N];
    signal input intro[N];
    signal input finalValue[N];
    signal input finalSeen[N];
    signal input finalTime[N];
    signal input weight[N];
    signal input beta;
    signal input zeta;
    // Carried from the segment before (or the identities, in the first).
    signal input packChainIn;
    signal input weightChainIn;
    signal input consumedIn;
    signal input producedIn;
    signal input rootsIn;
    signal input fractionsIn;
    signal input firstsIn;
    signal output packChainOut;
    signal output weightChainOut;
    signal output consumedOut;
    signal output producedOut;
    signal output rootsOut;
    signal output fractionsOut;
    signal output firstsOut;
    signal output betaOut;
    signal output zetaOut;
    signal output startOut;
    betaOut <== beta;
    zetaOut <== zeta;
    startOut <== start + N;

    // Every hint is pinned where it is unused, and range-checked, so the packing below is injective.
    component ageBits[N];
    component finalTimeBits[N];
    var packs[PACKS];
    for (var k = 0; k < PACKS; k++) packs[k] = 0;
    for (var i = 0; i < N; i++) {
        write[i] * (1 - hasKey[i]) === 0;
        seen[i] * (seen[i] - hasKey[i]) === 0;
        latest[i] * (1 - hasKey[i]) === 0;
        age[i] * (1 - hasKey[i]) === 0;
        intro[i] * (intro[i] - hasKey[i]) === 0;
        finalSeen[i] * (finalSeen[i] - intro[i]) === 0;
        finalValue[i] * (1 - intro[i]) === 0;
        finalTime[i] * (1 - intro[i]) === 0;
        ageBits[i] = Num2Bits(TB);
        ageBits[i].in <== age[i];
        finalTimeBits[i] = Num2Bits(TB + 1);
        finalTimeBits[i].in <== finalTime[i];
        packs[i \ PER] += (seen[i] + 2 * age[i] + (2 ** (TB + 1)) * intro[i] + (2 ** (TB + 2)) * finalSeen[i]
            + (2 ** (TB + 3)) * finalTime[i]) * (2 ** (WIDTH * (i % PER)));
    }
    component packLink = HashVector(1 + 2 * N + PACKS);
    packLink.in[0] <== packChainIn;
    for (var i = 0; i < N; i++) {
        packLink.in[1 + i] <== latest[i];
        packLink.in[1 + N + i] <== finalValue[i];
    }
    for (var k = 0; k < PACKS; k++) packLink.in[1 + 2 * N + k] <== packs[k];
    packChainOut <== packLink.out;
    component weightLink = HashVector(1 + N);
    weightLink.in[0] <== weightChainIn;
    for (var i = 0; i < N; i++) weightLink.in[1 + i] <== weight[i];
    weightChainOut <== weightLink.out;

    // Tuples (key, value, seen, time) fingerprinted as key + β·value + β²·seen + β³·time.
    signal beta2 <== beta * beta;
    signal beta3 <== beta2 * beta;
    signal startPrint <== beta3 * start;
    signal newSeen[N];
    signal newValue[N];
    signal readValue[N];
    signal readSeen[N];
    signal readTime[N];
    signal writeValue[N];
    signal writeSeen[N];
    signal finalValuePrint[N];
    signal finalSeenPrint[N];
    signal finalTimePrint[N];
    component consumed = SelectedProduct(2 * N);
    component produced = SelectedProduct(2 * N);
    consumed.z <== zeta;
    produced.z <== zeta;
    for (var i = 0; i < N; i++) {
        // now = start + i + 1; the read tuple's time is now − 1 − age, below now.
        newSeen[i] <== seen[i] + write[i] - seen[i] * write[i];
        newValue[i] <== latest[i] + write[i] * (value[i] - latest[i]);
        readValue[i] <== beta * latest[i];
        readSeen[i] <== beta2 * seen[i];
        readTime[i] <== beta3 * age[i];
        consumed.sel[i] <== hasKey[i];
        consumed.f[i] <== key[i] + readValue[i] + readSeen[i] + startPrint + beta3 * i - readTime[i];
        writeValue[i] <== beta * newValue[i];
        writeSeen[i] <== beta2 * newSeen[i];
        produced.sel[i] <== hasKey[i];
        produced.f[i] <== key[i] + writeValue[i] + writeSeen[i] + startPrint + beta3 * (i + 1);
        // The address's final tuple is consumed, its initial tuple (key, 0, 0, 0) produced, by its intro row.
        finalValuePrint[i] <== beta * finalValue[i];
        finalSeenPrint[i] <== beta2 * finalSeen[i];
        finalTimePrint[i] <== beta3 * finalTime[i];
        consumed.sel[N + i] <== intro[i];
        consumed.f[N + i] <== key[i] + finalValuePrint[i] + finalSeenPrint[i] + finalTimePrint[i];
        produced.sel[N + i] <== intro[i];
        produced.f[N + i] <== key[i];
    }
    consumedOut <== consumedIn * consumed.out;
    producedOut <== producedIn * produced.out;

    component distinct = DistinctRootsFrom(N);
    distinct.first <== intro;
    distinct.key <== key;
    distinct.weight <== weight;
    distinct.zeta <== zeta;
    distinct.rootsIn <== rootsIn;
    distinct.fractionsIn <== fractionsIn;
    distinct.firstsIn <== firstsIn;
    rootsOut <== distinct.rootsOut;
    fractionsOut <== distinct.fractionsOut;
    firstsOut <== distinct.firstsOut;

    component close = SessionArgumentClose();
    close.isLast <== isLast;
    close.finalRoot <== finalRoot;
    close.beta <== beta;
    close.zeta <== zeta;
    close.packChain <== packChainOut;
    close.weightChain <== weightChainOut;
    close.left <== consumedOut;
    close.right <== producedOut;
    close.roots <== rootsOut;
    close.fractions <== fractionsOut;
    close.firsts <== firstsOut;
}

// A whole claim's keyed latest value: one segment of N rows from record 0, closed. seed binds key, hasKey,
// write and value (the main circuit passes the trace's final root). seen[] and latest[] are the answers.
template KeyedLatest(N) {
    var TB = countBits(N);
    signal input key[N];
    signal input hasKey[N];
    signal input write[N];
    signal input value[N];
    signal input seed;
    signal input seen[N];
    signal input latest[N];
    signal input age[N];
    signal input intro[N];
    signal input finalValue[N];
    signal input finalSeen[N];
    signal input finalTime[N];
    signal input weight[N];
    signal input beta;
    signal input zeta;

    component run = KeyedLatestFrom(N, TB);
    run.key <== key;
    run.hasKey <== hasKey;
    run.write <== write;
    run.value <== value;
    run.start <== 0;
    run.isLast <== 1;
    run.finalRoot <== seed;
    run.seen <== seen;
    run.latest <== latest;
    run.age <== age;
    run.intro <== intro;
    run.finalValue <== finalValue;
    run.finalSeen <== finalSeen;
    run.finalTime <== finalTime;
    run.weight <== weight;
    run.beta <== beta;
    run.zeta <== zeta;
    run.packChainIn <== 0;
    run.weightChainIn <== 0;
    run.consumedIn <== 1;
    run.producedIn <== 1;
    run.rootsIn <== 1;
    run.fractionsIn <== 0;
    run.firstsIn <== 0;
}
