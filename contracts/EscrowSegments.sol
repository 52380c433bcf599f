// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EscrowBase} from "./EscrowBase.sol";

/// snarkjs-exported Groth16 verifier with 3 public signals: a segment circuit's [claimDigest, stateIn, stateOut].
interface IGroth16Verifier3 {
    function verifyProof(
        uint256[2] calldata pA,
        uint256[2][2] calldata pB,
        uint256[2] calldata pC,
        uint256[3] calldata pubSignals
    ) external view returns (bool);
}

/// A segment verifier rendered from contracts/templates/SegmentVerifier.sol.tmpl: verifyProof above, and a batch of
/// consecutive links with one pairing check.
interface ISegmentChainVerifier {
    function verifyChain(uint256 digest, uint256[] calldata states, uint256[] calldata proofs)
        external
        view
        returns (bool);
}

/// @title zkVAI escrow: settlement by a chain of segment proofs
/// @notice A session too long for one circuit is proven in segments of S records (S = the predicate's segment
/// verifier's segmentSize): segment j covers records [j * S, min((j + 1) * S, n)) of the committed trace, so a
/// session of n records takes ceil(n / S) of them. Each segment proof takes the state the one before it carried
/// (stateIn, a commitment) and hands on its own (stateOut): 0 goes into the first, and the last hands out the
/// verdict instead of a commitment, 1 (satisfied) or 2 (violated). Each state commitment leads with its segment's
/// index, and stateIn = 0 only at index 0 (the circuit pins both), so a chain of links from 0 to a verdict is
/// the segments 0, 1, ..., last in order: the escrow needs neither the index nor the segment count.
/// Flow: openSegments commits to the claim once (claimDigest, from storage), anyone proves segments one
/// transaction each (proveSegment), in any order, and anyone settles once every link of a chain from 0 to a
/// verdict is proven (settleSegments), which pays exactly as settle() does.
/// @dev A segment proof has 3 public inputs, [claimDigest, stateIn, stateOut]: claimDigest =
/// Poseidon(Poseidon(context, finalRoot, finalN), acc, paramsHash) stands for settle()'s first five, all from
/// storage (_publicInputs), so that each proveSegment stays under 300k gas (a Groth16 verifier costs ~6.2k per
/// public input). docs/PROTOCOL.md, "Segmented settlement", is the reference.
/// Batches: settleChain verifies a whole chain of up to MAX_BATCH_LINKS links with one pairing check and settles in
/// the same transaction, without openSegments; proveSegments records a run of consecutive links the same way, as
/// one span (stateIn, stateOut) that settleSegments takes like a link, for chains longer than one batch.
abstract contract EscrowSegments is EscrowBase {
    /// The last segment's stateOut: the verdict in place of a state commitment (the circuit pins it).
    uint256 internal constant SEGMENT_SATISFIED = 1;
    uint256 internal constant SEGMENT_VIOLATED = 2;

    /// The most links (segments) one settleSegments call takes, so that a whole chain always fits one transaction
    /// under EIP-7825's 2^24 gas cap (which the project's Hardhat network enforces too). settleSegments costs
    /// about 114k plus 3,074 gas per link (docs/BENCHMARKS.md "Segment chains", measured by
    /// test/contracts/chain-limit.test.ts): 4,096 links took 12,709,054 gas, 76% of the cap, which leaves a quarter
    /// of it for repricing. sdk/core/segments.ts MAX_CHAIN_LINKS is the same figure (that test reads this one).
    uint256 public constant MAX_CHAIN_LINKS = 4096;

    /// The most links one settleChain or proveSegments call verifies: the segment verifier's own MAX_BATCH_LINKS
    /// (contracts/templates/SegmentVerifier.sol.tmpl; test/contracts/segment-batch.test.ts holds them equal and
    /// measures a full batch under 2^24 gas with a margin). sdk/core/segments.ts MAX_BATCH_LINKS is the same figure.
    uint256 public constant MAX_BATCH_LINKS = 160;

    /// At most one segment verifier per predicate, written once like the single-proof registry (the constructor, or
    /// appendPredicateVerifiers for a predicate with no entry yet).
    mapping(uint32 => SegmentVerifier) internal _segmentRegistry;
    /// Per claim, the claimDigest of its last openSegments: the one public input proveSegment reads from storage.
    mapping(uint256 => uint256) internal _claimDigests;
    /// Proven links, keyed by _segmentKey. Never cleared: once the claim is settled or defaulted its keys can
    /// settle nothing (the claim is no longer open), and a key under a stale digest matches no chain any more.
    mapping(bytes32 => bool) internal _provenSegments;

    /// @param segments every segment verifier this escrow will ever call, at most one per predicate. A segment
    /// circuit of S records (a power of two, at least 2, so segments tile the trace tree) folds exactly
    /// checkpointSlots(S) entries; anything else is a wrong entry. A predicate may have a segment verifier, single
    /// verifiers (registry), or both.
    constructor(
        address poseidon3,
        uint32 checkpointInterval,
        uint32 receiptWindow,
        VerifierEntry[] memory registry,
        SegmentEntry[] memory segments
    ) EscrowBase(poseidon3, checkpointInterval, receiptWindow, registry) {
        for (uint256 i; i < segments.length; ++i) _addSegmentVerifier(segments[i], checkpointInterval);
    }

    // ---------------------------------------------------------------- transitions

    /// @notice Commits to what the claim's segment proofs are about: claimDigest = Poseidon(Poseidon(context,
    /// finalRoot, finalN), acc, paramsHash), from storage, for a claim settle() would take a proof for now (open,
    /// within PROOF_WINDOW, session closed, RECEIPT_WINDOW passed) whose predicate has a segment verifier. Anyone
    /// may call it, again after a spare receipt changed acc (links proven under the old digest then stop
    /// counting: their proofs were about the old fold).
    function openSegments(uint256 claimId) external returns (uint256 digest) {
        (, bytes32 sessionId, uint256 promiseId, Session storage s) = _provableClaim(claimId);
        PromiseState storage p = _promises[promiseId];
        if (p.segmentVerifier == address(0)) revert NoSegmentVerifier(p.predicateId);
        digest = _claimDigest(sessionId, promiseId, s, p);
        _claimDigests[claimId] = digest;
        emit SegmentsOpened(claimId, digest, s.accWord & ACC_MASK);
    }

    /// @notice Records one proven link of a claim's segment chain: a segment of the session's committed trace takes
    /// `stateIn` to `stateOut`, proven against [claimDigest, stateIn, stateOut] with the digest openSegments
    /// stored. Anyone may submit it while the claim is open and within PROOF_WINDOW, in any order. Only the link is
    /// recorded: nothing is paid until settleSegments() finds a whole chain under the current digest.
    /// @dev Reads three slots (the claim's, the promise's verifier, the digest) and writes one, the link's (22.1k),
    /// so a segment transaction costs ~270k with a snarkjs verifier. The key includes the digest: a link proven
    /// before a spare receipt never counts after it, and a fresh proof under the new digest gets a fresh key,
    /// never blocked by the stale one.
    /// @param proof [a0, a1, b00, b01, b10, b11, c0, c1] in snarkjs `exportSolidityCallData` order.
    function proveSegment(uint256 claimId, uint256 stateIn, uint256 stateOut, uint256[8] calldata proof) external {
        (Claim storage c, uint256 digest) = _openedClaim(claimId);
        _field(stateIn);
        _field(stateOut);
        // openSegments stored a digest only for a promise with a segment verifier.
        address verifier = _promises[c.promiseId].segmentVerifier;
        if (!_verify3(verifier, proof, digest, stateIn, stateOut)) revert InvalidProof();
        bytes32 key = _segmentKey(claimId, digest, stateIn, stateOut);
        if (_provenSegments[key]) revert SegmentAlreadyProven(claimId, stateIn, stateOut);
        _provenSegments[key] = true;
        emit SegmentProven(claimId, digest, stateIn, stateOut);
    }

    /// @notice Records a run of consecutive links, states[0] -> ... -> states[m] (m = states.length - 1, at most
    /// MAX_BATCH_LINKS), proven together under the digest openSegments stored: link j's proof is proofs[8j .. 8j + 7],
    /// all checked with one pairing check (the verifier's verifyChain). Recorded as one span (states[0], states[m]),
    /// which settleSegments takes as it takes a link: a span is a chain of proven links, so a chain of spans is one.
    /// @dev One slot written for the whole span, not one per link.
    function proveSegments(uint256 claimId, uint256[] calldata states, uint256[] calldata proofs) external {
        (Claim storage c, uint256 digest) = _openedClaim(claimId);
        uint256 m = _batchLinks(states);
        if (!_verifyChain(_promises[c.promiseId].segmentVerifier, digest, states, proofs)) revert InvalidProof();
        (uint256 stateIn, uint256 stateOut) = (states[0], states[m]);
        bytes32 key = _segmentKey(claimId, digest, stateIn, stateOut);
        if (_provenSegments[key]) revert SegmentAlreadyProven(claimId, stateIn, stateOut);
        _provenSegments[key] = true;
        emit SegmentsProven(claimId, digest, stateIn, stateOut, m);
    }

    /// @notice Settles an open claim by a whole chain of segment proofs in one transaction: `states` = [0, s_1, ...,
    /// verdict] as for settleSegments, link j's proof at proofs[8j .. 8j + 7], at most MAX_BATCH_LINKS links, all
    /// verified with one pairing check against the digest computed here from storage. No openSegments and nothing
    /// stored per link: for a chain that fits one batch, the cheapest way to settle. Pays exactly as settle() does.
    function settleChain(uint256 claimId, uint256[] calldata states, uint256[] calldata proofs) external {
        (Claim storage c, bytes32 sessionId, uint256 promiseId, Session storage s) = _provableClaim(claimId);
        PromiseState storage p = _promises[promiseId];
        address verifier = p.segmentVerifier;
        if (verifier == address(0)) revert NoSegmentVerifier(p.predicateId);
        uint256 m = _batchLinks(states);
        if (states[0] != 0) revert BadChainStart();
        uint256 verdict = states[m];
        if (verdict != SEGMENT_SATISFIED && verdict != SEGMENT_VIOLATED) revert BadChainEnd(verdict);
        uint256 digest = _claimDigest(sessionId, promiseId, s, p);
        if (!_verifyChain(verifier, digest, states, proofs)) revert InvalidProof();
        _settleProven(claimId, c, sessionId, promiseId, s, p, verdict == SEGMENT_VIOLATED);
    }

    /// @notice Settles an open claim by a chain of proven segments: `states` = [s_0, ..., s_m], s_0 = 0, every link
    /// (s_j, s_{j+1}) proven under the claim's current digest, and s_m the verdict, 1 (satisfied) or 2 (violated).
    /// Anyone may call, within the windows settle() keeps; it pays exactly as settle() does.
    /// @dev The digest is recomputed here from storage, not read from openSegments: a spare receipt posted since
    /// changed acc, and links proven under the old digest must not count. The chain has one link per segment in
    /// order (the circuit's states lead with their index), and only the last segment can hand out a verdict, so a
    /// chain from 0 to a verdict covers [0, n). The whole chain is required, for "violated" too: only the last
    /// segment closes the trace tree and the checkpoint fold and checks them against finalRoot and acc; a prefix
    /// whose state says "violated" would let anyone prove a violation on a made-up trace.
    function settleSegments(uint256 claimId, uint256[] calldata states) external {
        (Claim storage c, bytes32 sessionId, uint256 promiseId, Session storage s) = _provableClaim(claimId);
        PromiseState storage p = _promises[promiseId];
        if (p.segmentVerifier == address(0)) revert NoSegmentVerifier(p.predicateId);
        uint256 digest = _claimDigest(sessionId, promiseId, s, p);
        bool violated = _chainVerdict(claimId, digest, states);
        _settleProven(claimId, c, sessionId, promiseId, s, p, violated);
    }

    // ---------------------------------------------------------------- views

    /// @notice The predicate's segment verifier (zeros: none; its promises settle by single proofs only).
    function segmentVerifier(uint32 predicateId)
        external
        view
        returns (uint32 segmentSize, uint32 checkpoints, address verifier)
    {
        SegmentVerifier storage v = _segmentRegistry[predicateId];
        return (v.size, v.checkpoints, v.verifier);
    }

    /// @notice The claim's digest as settleSegments() computes it now, from storage; and the one openSegments
    /// stored (0: not opened), which proveSegment verifies against. They differ after a spare receipt.
    function claimDigestOf(uint256 claimId) external view returns (uint256 current, uint256 opened) {
        Claim storage c = _claim(claimId);
        bytes32 sessionId = c.sessionId;
        uint256 promiseId = c.promiseId;
        current = _claimDigest(sessionId, promiseId, _sessions[sessionId], _promises[promiseId]);
        opened = _claimDigests[claimId];
    }

    /// @notice Whether this link (or span, proveSegments) is proven under the claim's current digest, i.e. whether settleSegments() counts it.
    function segmentProven(uint256 claimId, uint256 stateIn, uint256 stateOut) external view returns (bool) {
        Claim storage c = _claim(claimId);
        bytes32 sessionId = c.sessionId;
        uint256 promiseId = c.promiseId;
        uint256 digest = _claimDigest(sessionId, promiseId, _sessions[sessionId], _promises[promiseId]);
        return _provenSegments[_segmentKey(claimId, digest, stateIn, stateOut)];
    }

    // ---------------------------------------------------------------- internals

    /// One segment registry entry, checked (the constructor's and appendPredicateVerifiers' loop body).
    /// interval > 0: EscrowBase's constructor refuses 0.
    function _addSegmentVerifier(SegmentEntry memory e, uint256 interval) internal {
        if (_segmentRegistry[e.predicateId].verifier != address(0)) revert DuplicateSegmentVerifier(e.predicateId);
        if (e.verifier.code.length == 0) revert VerifierNotContract(e.verifier);
        uint32 size = e.segmentSize;
        if (size < 2 || size & (size - 1) != 0) revert BadSegmentSize(size);
        uint256 slots = _checkpointSlots(size, interval);
        if (e.checkpoints != slots) revert CheckpointsMismatch(e.checkpoints, slots);
        _segmentRegistry[e.predicateId] = SegmentVerifier({size: size, checkpoints: e.checkpoints, verifier: e.verifier});
        emit SegmentVerifierRegistered(e.predicateId, size, e.checkpoints, e.verifier);
    }

    /// Poseidon(Poseidon(context, finalRoot, finalN), acc, paramsHash) over settle()'s first five public inputs
    /// (_publicInputs, so the two paths cannot drift; SessionNotClosed before close). sdk/core/segments.ts
    /// segmentClaimDigest and circuits/gadgets/segment.circom SegmentClaim compute the same.
    function _claimDigest(bytes32 sessionId, uint256 promiseId, Session storage s, PromiseState storage p)
        private
        view
        returns (uint256)
    {
        (uint256[6] memory x, ) = _publicInputs(sessionId, promiseId, s, p, false);
        return _poseidon3(_poseidon3(x[0], x[1], x[2]), x[3], x[4]);
    }

    /// A link's key: claimId keeps a link proven for one claim from counting for another (the digest already binds
    /// the proof to its session and promise); the digest ties it to the fold it was proven against. It is
    /// keccak256(abi.encode(claimId, digest, stateIn, stateOut)), hashed in the free memory without allocating it:
    /// abi.encode would allocate 160 bytes per call, and settleSegments calls this once per link, so memory (and
    /// its quadratic cost) would grow with the chain.
    function _segmentKey(uint256 claimId, uint256 digest, uint256 stateIn, uint256 stateOut)
        private
        pure
        returns (bytes32 key)
    {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, claimId)
            mstore(add(m, 0x20), digest)
            mstore(add(m, 0x40), stateIn)
            mstore(add(m, 0x60), stateOut)
            key := keccak256(m, 0x80)
        }
    }

    /// settleSegments' checks of the chain, in order (length, start, every link under `digest`, verdict), and the
    /// verdict: true for violated.
    function _chainVerdict(uint256 claimId, uint256 digest, uint256[] calldata states)
        private
        view
        returns (bool violated)
    {
        uint256 m = states.length;
        if (m < 2 || m - 1 > MAX_CHAIN_LINKS) revert SegmentChainLength(m);
        if (states[0] != 0) revert BadChainStart();
        for (uint256 j = 1; j < m; ++j) {
            if (!_provenSegments[_segmentKey(claimId, digest, states[j - 1], states[j])]) revert SegmentNotProven(j - 1);
        }
        uint256 verdict = states[m - 1];
        if (verdict != SEGMENT_SATISFIED && verdict != SEGMENT_VIOLATED) revert BadChainEnd(verdict);
        return verdict == SEGMENT_VIOLATED;
    }

    /// proveSegment's and proveSegments' fences: the claim open, within PROOF_WINDOW, and opened for segments
    /// (its digest, the one the links are proven against).
    function _openedClaim(uint256 claimId) private view returns (Claim storage c, uint256 digest) {
        c = _claims[claimId];
        if (c.status != ClaimStatus.Open) revert ClaimNotOpen(claimId);
        uint256 endsAt = uint256(c.filedAt) + PROOF_WINDOW;
        if (block.timestamp >= endsAt) revert ProofWindowClosed(endsAt);
        digest = _claimDigests[claimId];
        if (digest == 0) revert SegmentsNotOpened(claimId);
    }

    /// The number of links in a batch's `states`, which must be 1 to MAX_BATCH_LINKS.
    function _batchLinks(uint256[] calldata states) private pure returns (uint256) {
        uint256 n = states.length;
        if (n < 2 || n - 1 > MAX_BATCH_LINKS) revert SegmentChainLength(n);
        return n - 1;
    }

    /// The verifier's verifyChain; false for any failure (a verifier without it, a malformed proof, a wrong length).
    function _verifyChain(address verifier, uint256 digest, uint256[] calldata states, uint256[] calldata proofs)
        private
        view
        returns (bool)
    {
        (bool ok, bytes memory ret) = verifier.staticcall(
            abi.encodeCall(ISegmentChainVerifier.verifyChain, (digest, states, proofs))
        );
        return ok && ret.length == 32 && abi.decode(ret, (uint256)) == 1;
    }

    /// _verify with 3 public inputs: 11 words in a row (proof words in snarkjs order, then the inputs).
    function _verify3(address verifier, uint256[8] calldata proof, uint256 digest, uint256 stateIn, uint256 stateOut)
        private
        view
        returns (bool ok)
    {
        bytes4 selector = IGroth16Verifier3.verifyProof.selector;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, selector)
            calldatacopy(add(m, 0x04), proof, 0x100)
            mstore(add(m, 0x104), digest)
            mstore(add(m, 0x124), stateIn)
            mstore(add(m, 0x144), stateOut)
            ok := staticcall(gas(), verifier, m, 0x164, 0x00, 0x20)
            ok := and(ok, and(eq(returndatasize(), 0x20), eq(mload(0x00), 1)))
        }
    }
}
