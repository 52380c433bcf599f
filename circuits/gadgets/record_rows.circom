pragma circom 2.1.0;

include "circomlib/circuits/comparators.circom";
include "hash.circom";
include "multiset.circom";

// A record's rows (issue 37): a record gives the rules its primary row and any number of sub-rows (a flight a
// search returned, a payment id a booking names), each a part and W facts, all derived from that record alone
// by its domain profile (sdk/core/rules/tau-rows.ts). The record's digest binds them through its observation,
// the chain
//     D = c_m,   c_0 = 0,   c_k = HashVector([c_(k-1), part_k, facts_k])        (tauRowsDigest)
// over its rows, the primary row (part 0) first and no other row of part 0. This gadget ties M row slots to N
// records: the live rows, in order, are the records' rows, record by record, each with its record's tool and
// ok. Every record has at least one row (its primary row; a record that is no executed call has one row of
// its own, which no rule reads, since its ok is 0), so M >= N.
//
// The argument. Row j belongs to record r_j = (number of part-0 live rows up to j) − 1, so the rows are cut
// into runs at each part 0, and run k is record k's if (k, D_k, tool_k, ok_k) of the records and
// (r_j, c_j, tool_j, ok_j) at each run's last row are equal multisets: records are distinct in k, and runs
// are distinct in r_j (r steps by 1 from run to run), so equal multisets pair run k with record k, and
// c_j = D_k makes the run's rows the record's (Poseidon is collision resistant). Tuples are fingerprinted as
// D + γ·k + γ²·tool + γ³·ok and multiplied at ζ (SelectedProduct).
// Prover-chosen value → what binds it before ζ and γ:
//   D_k (every record's, also where its digest does not bind it)   recordsHash = HashVector(D)
//   each row's part, facts (in c), tool, ok, live                   rowsHash: a Poseidon chain over every
//                                                                   run's (c_j, tool_j, ok_j) at its last row
//   tool_k, ok_k of the records                                     seedIn (the caller's: the trace's final
//                                                                   root binds every record's slots)
// seedOut = Poseidon(seedIn, rowsHash, recordsHash) binds all of it: ζ and γ are drawn from it, and the caller
// passes it on as the seed of any later argument over the rows (the rule's keyed state).
// Live rows come first (live is non-increasing); a row that is not live is in no run and no rule reads it
// (the caller's ok must be 0 there: okRow is 0 past the live rows). docs/SOUNDNESS.md "A record's rows".
// The rows digest of a record with one empty row (part 0, 12 zero facts): tauRowsDigest([EMPTY_ROW]) in
// sdk/core/rules/tau-rows.ts, for W = 12 (RULE_FACTS). test/circuits/record-rows.test.ts holds the two equal.
function EMPTY_ROWS_DIGEST_W12() {
    return 1169582573301325175856572929862091749915338129032846845488950917555513373814;
}

template RecordRows(N, M, W) {
    signal input seedIn;
    // The records: their rows' digest (bound by RecordDigest where the record is an executed call), tool, ok.
    signal input digest[N];
    signal input tool[N];
    signal input ok[N];
    // The rows.
    signal input live[M];
    signal input part[M];
    signal input facts[M][W];
    signal input rowTool[M];
    signal input rowOk[M];
    signal output seedOut;

    signal first[M];
    signal record[M];
    signal chainFrom[M];
    signal chain[M];
    signal last[M];
    signal continues[M];
    signal notLive[M];
    signal rowPrint[M];
    signal rowsHash[M + 1];
    signal rowLink[M];
    signal linkStep[M];
    component chainHash[M];
    rowsHash[0] <== 0;
    for (var j = 0; j < M; j++) {
        live[j] * (live[j] - 1) === 0;
        rowOk[j] * (rowOk[j] - 1) === 0;
        // A row that is not live has ok 0 and no later row is live.
        rowOk[j] * (1 - live[j]) === 0;
        if (j > 0) live[j] * (1 - live[j - 1]) === 0;
        else live[j] === 1;
        first[j] <== IsZero()(part[j]);
        if (j == 0) {
            first[j] === 1;
            record[j] <== 0;
            chainFrom[j] <== 0;
        } else {
            record[j] <== record[j - 1] + live[j] * first[j];
            chainFrom[j] <== (1 - first[j]) * chain[j - 1];
            // A record's rows share its tool and ok.
            (1 - first[j]) * (rowTool[j] - rowTool[j - 1]) === 0;
            (1 - first[j]) * (rowOk[j] - rowOk[j - 1]) === 0;
        }
        chainHash[j] = HashVector(W + 2);
        chainHash[j].in[0] <== chainFrom[j];
        chainHash[j].in[1] <== part[j];
        for (var k = 0; k < W; k++) chainHash[j].in[2 + k] <== facts[j][k];
        chain[j] <== chainHash[j].out;
    }
    // last[j]: row j is live and the next row starts a record or is not live (or there is none).
    for (var j = 0; j < M; j++) {
        if (j == M - 1) {
            last[j] <== live[j];
        } else {
            continues[j] <== live[j + 1] * (1 - first[j + 1]);
            last[j] <== live[j] * (1 - continues[j]);
        }
        rowLink[j] <== PoseidonHash(4)([rowsHash[j], chain[j], rowTool[j], rowOk[j]]);
        linkStep[j] <== last[j] * (rowLink[j] - rowsHash[j]);
        rowsHash[j + 1] <== rowsHash[j] + linkStep[j];
    }
    signal recordsHash <== HashVector(N)(digest);
    seedOut <== PoseidonHash(3)([seedIn, rowsHash[M], recordsHash]);
    signal zeta <== PoseidonHash(2)([seedOut, 1]);
    signal gamma <== PoseidonHash(2)([seedOut, 2]);
    signal gamma2 <== gamma * gamma;
    signal gamma3 <== gamma2 * gamma;

    component records = SelectedProduct(N);
    component runs = SelectedProduct(M);
    records.z <== zeta;
    runs.z <== zeta;
    signal recordTool[N];
    signal recordOk[N];
    for (var k = 0; k < N; k++) {
        recordTool[k] <== gamma2 * tool[k];
        recordOk[k] <== gamma3 * ok[k];
        records.sel[k] <== 1;
        records.f[k] <== digest[k] + gamma * k + recordTool[k] + recordOk[k];
    }
    signal runRecord[M];
    signal runTool[M];
    signal runOk[M];
    for (var j = 0; j < M; j++) {
        runRecord[j] <== gamma * record[j];
        runTool[j] <== gamma2 * rowTool[j];
        runOk[j] <== gamma3 * rowOk[j];
        runs.sel[j] <== last[j];
        runs.f[j] <== chain[j] + runRecord[j] + runTool[j] + runOk[j];
    }
    records.out === runs.out;
}

// The rows of a segment chain as one stream (issue 37): a record may give more rows than its segment's row slots,
// so a segment's M row slots hold the next M rows of the session's stream, the records' rows record by record,
// whichever segment their record is in, and a record's rows may cross a segment boundary. Two Poseidon chains,
// carried from segment to segment, tie them together:
//     P = chain of (D_k, tool_k, ok_k) over every record pushed (push[k] = 1: the records before n), in order;
//     Q = chain of (c_j, tool_j, ok_j) over every run (a record's rows: a part-0 row and the rows after it up to
//         the next part-0 or dead row), at the run's end, in order;
// and the chain's last segment requires P = Q once the run still open is closed (the caller: pOut, and qOut with
// the open run pushed). Equal chains are equal sequences (Poseidon's collision resistance), so run k is record k's:
// its chain c = D_k (its rows are the record's rows) and its tool and ok are the record's. No challenge is drawn:
// the stream is fixed by the trace (the final root binds every record), so the rule's keyed state, whose
// challenges come from the final root and its hints, reads accesses the prover did not choose.
// Carried: pIn, qIn; the open run's chain value, tool and ok (runIn, toolIn, okIn, openIn: 1 when the stream's
// last row so far was live, so the next live row that is no part 0 continues it); endedIn (1 once a dead row was
// seen: no live row follows). The first segment starts from all 0. Live rows come first in a segment; a dead row
// has ok 0 and no rule reads it.
template RowStream(N, M, W) {
    signal input pIn;
    signal input qIn;
    signal input runIn;
    signal input toolIn;
    signal input okIn;
    signal input openIn;
    signal input endedIn;
    signal input push[N];
    signal input digest[N];
    signal input tool[N];
    signal input ok[N];
    signal input live[M];
    signal input part[M];
    signal input facts[M][W];
    signal input rowTool[M];
    signal input rowOk[M];
    signal output pOut;
    signal output qOut;
    signal output runOut;
    signal output toolOut;
    signal output okOut;
    signal output openOut;
    signal output endedOut;

    openIn * (openIn - 1) === 0;
    endedIn * (endedIn - 1) === 0;
    // An open run means the last row was live, so the stream has not ended.
    openIn * endedIn === 0;

    // P: the pushed records, in order.
    signal pChain[N + 1];
    signal pLink[N];
    signal pStep[N];
    pChain[0] <== pIn;
    for (var k = 0; k < N; k++) {
        push[k] * (push[k] - 1) === 0;
        pLink[k] <== PoseidonHash(4)([pChain[k], digest[k], tool[k], ok[k]]);
        pStep[k] <== push[k] * (pLink[k] - pChain[k]);
        pChain[k + 1] <== pChain[k] + pStep[k];
    }
    pOut <== pChain[N];

    // The rows: each run's chain, and the run that ends before each row pushed into Q.
    signal first[M];
    signal continues[M];
    signal prevOpen[M];
    signal ends[M];
    signal chainFrom[M];
    signal chain[M];
    signal qChain[M + 1];
    signal qLink[M];
    signal qStep[M];
    signal toolStep[M];
    signal okStep[M];
    component chainHash[M];
    qChain[0] <== qIn;
    for (var j = 0; j < M; j++) {
        live[j] * (live[j] - 1) === 0;
        rowOk[j] * (rowOk[j] - 1) === 0;
        // A dead row has ok 0, and no live row follows a dead one (here or, through endedIn, in a later segment).
        rowOk[j] * (1 - live[j]) === 0;
        if (j > 0) live[j] * (1 - live[j - 1]) === 0;
        else live[j] * endedIn === 0;
        first[j] <== IsZero()(part[j]);
        continues[j] <== live[j] * (1 - first[j]);
        // The run before row j: row j − 1's, or the carried one at row 0.
        if (j == 0) prevOpen[j] <== openIn;
        else prevOpen[j] <== live[j - 1];
        // A live row that is no part 0 continues an open run, with its tool and ok.
        continues[j] * (1 - prevOpen[j]) === 0;
        if (j == 0) {
            chainFrom[j] <== continues[j] * runIn;
            toolStep[j] <== continues[j] * (rowTool[j] - toolIn);
            okStep[j] <== continues[j] * (rowOk[j] - okIn);
        } else {
            chainFrom[j] <== continues[j] * chain[j - 1];
            toolStep[j] <== continues[j] * (rowTool[j] - rowTool[j - 1]);
            okStep[j] <== continues[j] * (rowOk[j] - rowOk[j - 1]);
        }
        toolStep[j] === 0;
        okStep[j] === 0;
        chainHash[j] = HashVector(W + 2);
        chainHash[j].in[0] <== chainFrom[j];
        chainHash[j].in[1] <== part[j];
        for (var k = 0; k < W; k++) chainHash[j].in[2 + k] <== facts[j][k];
        chain[j] <== chainHash[j].out;
        // The open run ends before row j unless row j continues it.
        ends[j] <== prevOpen[j] * (1 - continues[j]);
        if (j == 0) qLink[j] <== PoseidonHash(4)([qChain[j], runIn, toolIn, okIn]);
        else qLink[j] <== PoseidonHash(4)([qChain[j], chain[j - 1], rowTool[j - 1], rowOk[j - 1]]);
        qStep[j] <== ends[j] * (qLink[j] - qChain[j]);
        qChain[j + 1] <== qChain[j] + qStep[j];
    }
    qOut <== qChain[M];
    // The run still open after the last row (none when it is dead), carried to the next segment.
    openOut <== live[M - 1];
    runOut <== openOut * chain[M - 1];
    toolOut <== openOut * rowTool[M - 1];
    okOut <== openOut * rowOk[M - 1];
    endedOut <== 1 - live[M - 1];
}
