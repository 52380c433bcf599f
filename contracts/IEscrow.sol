// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// Capacity classes per promise: EscrowBase.MAX_VERIFIERS (its public getter) is this constant. A fixed array
// spares settle() a cold read of a dynamic array's length.
uint256 constant VERIFIER_CLASSES = 16;

/// @title zkVAI escrow: its types, events and custom errors
/// @notice Everything the escrow declares besides its functions and storage, in one file, so that its surface
/// reads in one place: EscrowBase, EscrowSegments and Escrow inherit it. docs/PROTOCOL.md "Escrow state
/// machine" is the reference for every rule, error and event below.
interface IEscrow {
    // ---------------------------------------------------------------- storage types (EscrowBase's layout)

    /// Claims end settled or defaulted: the payout was earmarked when the session opened, so no claim is ever left
    /// unpayable.
    enum ClaimStatus {
        None,
        Open,
        Settled,
        Defaulted
    }

    /// One predicate's verifiers (the registry), written in one transaction (the constructor, or
    /// appendPredicateVerifiers) and never again: nobody, provider or deployer, can swap, remove or add to a
    /// predicate's set once it has an entry, and a promise names only its predicate.
    struct VerifierSet {
        // capacities[i]: the largest trace (record count) verifiers[i]'s circuit accepts; ascending, and 0
        // past the last class. Kept apart from the addresses so that eight share a slot: settle's search
        // for the smallest fitting class reads one slot, not one per class (2.1k gas each, cold).
        uint32[VERIFIER_CLASSES] capacities;
        address[VERIFIER_CLASSES] verifiers;
    }

    /// payout, paramsHash, profileHash, predicateId and verifiers are written once, in registerPromise (P5).
    struct PromiseState {
        // slot 0, read by openSession for coverage: nonces of registration and retirement (0: not retired)
        address provider;
        uint48 nonce;
        uint48 retiredNonce;
        // slot 1: the money, read and written together by openSession, settle, claimDefault, releaseCoverage and
        // withdrawReserve. 2^112 wei is 5e15 ether; amounts above it revert with AmountTooLarge.
        uint112 payout;
        uint112 reserve;
        // Sessions whose coverage by this promise is earmarked (Coverage.Earmarked pairs): reserve >= earmarks *
        // payout at all times, and only the rest, the free part, can cover a new session or be withdrawn.
        uint32 earmarks;
        // slot 2
        uint32 predicateId;
        uint48 retiredAt;
        // The registry's segment verifier for predicateId (EscrowSegments; 0: none), copied at registration beside
        // predicateId: proveSegment reads the promise's slot, not a cold registry slot (2.1k gas a segment). A
        // predicate's registry entries never change once written, so the copy never differs.
        address segmentVerifier;
        uint256 paramsHash;
        uint256 profileHash;
        // The registry's set for predicateId, copied at registration: settle() then reads the promise's own slots
        // and not its predicateId too (one cold slot less). A predicate's set never changes once written (appends
        // add only predicates that had no entry, so no promise of theirs existed), so the copy never differs.
        VerifierSet verifierSet;
    }

    struct Session {
        // slot 0: everything checkpoint() checks and updates, so a checkpoint touches this slot and accWord only
        address provider;
        uint32 lastN; // the highest n folded before close (checkpoint or receipt): closeSession's floor
        uint32 checkpointCount; // fold entries in acc: checkpoints and receipts, the spare one included
        uint32 finalN;
        // slot 1: read by fileClaim (user, coverage nonce, claim window) and postReceipt (user, flags)
        address user;
        uint48 nonce; // coverageNonce at opening
        uint40 closedAt; // 0 until the final commitment; a uint40 of seconds lasts until the year 36812
        uint8 flags; // SPARE_RECEIPT: kept here, beside the user postReceipt reads anyway, not in slot 0
        uint256 profileHash;
        // acc (< r < 2^254) plus two flag bits above it. OPENED is set at openSession so the first checkpoint
        // rewrites a nonzero slot (5k gas) instead of creating one (22k); CLOSED lets checkpoint() see closure
        // without reading another slot.
        uint256 accWord;
        uint256 finalRoot;
    }

    /// Two slots, both read by settle(). The claimant is not stored: only the session's user may file, and a
    /// session's user never changes, so it is `_sessions[sessionId].user`.
    struct Claim {
        // slot 0
        ClaimStatus status;
        uint48 filedAt;
        uint64 promiseId;
        uint128 bond;
        // slot 1
        bytes32 sessionId;
    }

    /// A (session, promise) pair's coverage. None: the promise does not cover the session (not named at
    /// openSession, or named without free reserve for it). Earmarked: the payout is locked for this session since
    /// it opened; only a claim on this pair can spend it. Resolved: a claim on the pair was settled or defaulted
    /// (paid or proven satisfied), for good. Released: the claim window ended with no claim, and the payout went
    /// back to the free reserve.
    enum Coverage {
        None,
        Earmarked,
        Resolved,
        Released
    }

    /// Per (session, promise) pair, written at openSession for each covering promise. Claims on a pair are
    /// serialised: at most one open at a time, and once resolved the pair never pays again (P6), whatever proof
    /// bytes arrive later (Groth16 is malleable).
    struct Pair {
        uint64 openClaimId;
        Coverage coverage;
    }

    // ---------------------------------------------------------------- the registries

    /// A registry entry as the deployer passes it (constructor, appendPredicateVerifiers): the circuit
    /// (predicate, capacity, checkpoints) a verifier serves.
    struct VerifierEntry {
        uint32 predicateId;
        uint32 capacity;
        uint32 checkpoints;
        address verifier;
    }

    /// A segment registry entry as the deployer passes it (constructor, appendPredicateVerifiers): the segment
    /// circuit (predicate, records per segment, fold entries) a verifier serves.
    struct SegmentEntry {
        uint32 predicateId;
        uint32 segmentSize;
        uint32 checkpoints;
        address verifier;
    }

    /// A predicate's segment verifier (EscrowSegments' registry), one slot. registerPromise copies the verifier
    /// address into the promise, so proveSegment reads the promise's slot, not this one.
    struct SegmentVerifier {
        uint32 size;
        uint32 checkpoints;
        address verifier;
    }

    // ---------------------------------------------------------------- views' return types

    struct PromiseView {
        address provider;
        uint32 predicateId;
        uint64 nonce;
        uint256 paramsHash;
        uint256 profileHash;
        uint256 payout;
        uint256 reserve;
        uint32[] capacities;
        address[] verifiers;
        uint64 retiredAt; // 0: not retired
        uint64 retiredNonce;
        uint32 earmarks; // sessions whose coverage by this promise is earmarked: payout * earmarks is locked
        address segmentVerifier; // the promise's copy of its predicate's segment verifier (0: none)
    }

    struct SessionView {
        address provider;
        address user;
        uint256 profileHash;
        uint32 lastN;
        uint32 checkpointCount;
        uint256 acc;
        bool closed;
        uint32 finalN;
        uint256 finalRoot;
        uint64 closedAt;
        uint64 nonce;
        bool spareReceiptUsed; // the user's one receipt outside the checkpoint rules is spent
    }

    struct ClaimView {
        bytes32 sessionId;
        uint256 promiseId;
        address claimant;
        uint256 bond;
        uint64 filedAt;
        ClaimStatus status;
    }

    // ---------------------------------------------------------------- events (one per state change)

    event PromiseRegistered(
        uint256 indexed promiseId, address indexed provider, uint32 predicateId, uint256 paramsHash,
        uint256 profileHash, uint256 payout, uint256 reserve, uint64 nonce
    );
    /// One per registry entry, by the constructor or appendPredicateVerifiers.
    event VerifierRegistered(uint32 indexed predicateId, uint32 capacity, uint32 checkpoints, address verifier);
    /// One per segment-registry entry, by the constructor or appendPredicateVerifiers.
    event SegmentVerifierRegistered(uint32 indexed predicateId, uint32 segmentSize, uint32 checkpoints, address verifier);
    /// The deployer added a predicate the registries did not serve (after its VerifierRegistered and
    /// SegmentVerifierRegistered events): `verifiers` whole-claim classes, and its segment verifier (0: none).
    event PredicateAppended(uint32 indexed predicateId, uint256 verifiers, address segmentVerifier);
    event PromiseFunded(uint256 indexed promiseId, address indexed funder, uint256 amount, uint256 reserve);
    event PromiseRetired(uint256 indexed promiseId, uint256 retiredAt, uint64 nonce);
    event ReserveWithdrawn(uint256 indexed promiseId, address indexed provider, uint256 amount);
    event SessionOpened(
        bytes32 indexed sessionId, address indexed provider, address indexed user, uint256 profileHash, uint64 nonce
    );
    /// One per promise named at openSession. covered: its payout is earmarked for the session (amount = payout);
    /// false: its free reserve (available) held less than the payout, so the session opened uncovered by it.
    event SessionCovered(
        bytes32 indexed sessionId, uint256 indexed promiseId, bool covered, uint256 amount, uint256 available
    );
    /// The session's claim window on the promise ended with no claim: its earmark went back to the free reserve.
    event CoverageReleased(bytes32 indexed sessionId, uint256 indexed promiseId, uint256 amount, uint256 available);
    event Checkpointed(bytes32 indexed sessionId, uint32 n, uint256 root, uint256 acc);
    /// A provider-signed receipt the user posted, folded into acc like a checkpoint. spare: the session's one
    /// receipt outside the checkpoint rules (after close, or before it with n <= lastN or beyond the budget).
    event ReceiptPosted(bytes32 indexed sessionId, uint32 n, uint256 root, uint256 acc, bool spare);
    event SessionClosed(bytes32 indexed sessionId, uint32 finalN, uint256 finalRoot, uint256 acc);
    event ClaimFiled(
        uint256 indexed claimId, bytes32 indexed sessionId, uint256 indexed promiseId, address claimant, uint256 bond
    );
    event ClaimSettled(uint256 indexed claimId, bool violated, address beneficiary, uint256 amount);
    event ClaimDefaulted(uint256 indexed claimId, address beneficiary, uint256 amount);
    event Withdrawn(address indexed account, uint256 amount);
    event SegmentsOpened(uint256 indexed claimId, uint256 claimDigest, uint256 acc);
    event SegmentProven(uint256 indexed claimId, uint256 claimDigest, uint256 stateIn, uint256 stateOut);
    /// A run of `links` consecutive links proven together (proveSegments), recorded as one span.
    event SegmentsProven(uint256 indexed claimId, uint256 claimDigest, uint256 stateIn, uint256 stateOut, uint256 links);

    // ---------------------------------------------------------------- errors

    // configuration and arguments
    error InvalidConfig();
    error NotFieldElement(uint256 value);
    error ZeroAddress();
    error ZeroValue();
    error AmountTooLarge(uint256 amount);
    error ZeroPayout();
    error BadCapacities();
    error TooManyVerifiers(uint256 max);
    error VerifierNotContract(address verifier);
    error CheckpointsMismatch(uint32 checkpoints, uint256 expected);
    error UnknownPredicate(uint32 predicateId);
    error DuplicateSegmentVerifier(uint32 predicateId);
    error BadSegmentSize(uint32 size);
    error ForeignSessionId(bytes32 sessionId, address provider);
    // registry appends (appendPredicateVerifiers)
    error NotDeployer();
    error PredicateExists(uint32 predicateId);
    error PredicateMismatch(uint32 predicateId, uint32 entryPredicateId);
    error EmptyAppend(uint32 predicateId);
    // lookups and roles
    error UnknownPromise(uint256 promiseId);
    error UnknownSession(bytes32 sessionId);
    error UnknownClaim(uint256 claimId);
    error SessionExists(bytes32 sessionId);
    error NotProvider();
    error NotUser();
    // promise lifecycle
    error InsufficientReserve(uint256 reserve, uint256 payout);
    error PromiseIsRetired(uint256 promiseId);
    error ClaimWindowOpen(uint256 endsAt);
    error DuplicateCover(uint256 promiseId);
    // sessions
    error AlreadyClosed(bytes32 sessionId);
    error SessionNotClosed(bytes32 sessionId);
    error CheckpointNotIncreasing(uint32 n, uint32 lastN);
    error FinalBelowCheckpoint(uint32 n, uint32 lastN);
    error CheckpointBudget(uint32 n, uint32 count, uint32 interval);
    // receipts
    error BadReceiptSignature();
    error EmptyReceipt();
    error SpareReceiptUsed(bytes32 sessionId);
    error ReceiptWindowOpen(uint256 opensAt);
    error SpareReceiptTooLate(uint256 deadline);
    // claims
    error ProviderMismatch();
    error NotCovered();
    error ProfileMismatch();
    error ClaimWindowClosed(uint256 deadline);
    error PairResolved();
    error ClaimAlreadyOpen(uint256 claimId);
    error ClaimNotOpen(uint256 claimId);
    // settlement
    error NoVerifierForSize(uint32 n);
    error InvalidProof();
    error ProofWindowOpen(uint256 endsAt);
    error ProofWindowClosed(uint256 endedAt);
    // segment proofs and chains (EscrowSegments)
    error NoSegmentVerifier(uint32 predicateId);
    error SegmentsNotOpened(uint256 claimId);
    error SegmentAlreadyProven(uint256 claimId, uint256 stateIn, uint256 stateOut);
    error SegmentChainLength(uint256 length);
    error BadChainStart();
    error SegmentNotProven(uint256 link);
    error BadChainEnd(uint256 state);
    // payments
    error NothingToWithdraw();
    error TransferFailed();
}
