// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// circomlibjs `poseidon_gencontract` for 3 inputs (uint256 overload).
interface IPoseidon3 {
    function poseidon(uint256[3] calldata input) external pure returns (uint256);
}

/// snarkjs-exported Groth16 verifier with 6 public signals.
interface IGroth16Verifier6 {
    function verifyProof(
        uint256[2] calldata pA,
        uint256[2][2] calldata pB,
        uint256[2] calldata pC,
        uint256[6] calldata pubSignals
    ) external view returns (bool);
}

/// @title zkVAI escrow (first cut)
/// @notice Holds promise reserves and claim bonds; settles claims with Groth16 proofs whose public inputs are
/// read from this contract's storage, or by default after PROOF_WINDOW. All payouts are pull payments.
/// @dev Not built yet (later issue): retire, withdrawReserve, claim window after close, withdrawClaim.
/// Room is left for them: claim and pair status enums can grow, promise state can take another slot.
contract Escrow {
    // ---------------------------------------------------------------- constants

    /// BN254 scalar field order r: every public input of the circuits lives below it.
    uint256 public constant FIELD_MODULUS =
        21888242871839275222246405745257275088548364400416034343698204186575808495617;
    uint256 public constant PROOF_WINDOW = 3 days;
    /// Capacity classes per promise. A fixed array spares settle() a cold read of a dynamic array's length.
    uint256 public constant MAX_VERIFIERS = 16;

    IPoseidon3 public immutable POSEIDON3;
    uint32 public immutable MAX_CHECKPOINTS;

    // ---------------------------------------------------------------- storage

    enum ClaimStatus {
        None,
        Open,
        Settled,
        Defaulted
    }

    struct VerifierEntry {
        address verifier;
        uint32 capacity; // largest trace size (record count) the circuit behind `verifier` accepts
    }

    struct PromiseState {
        // slot 0
        address provider;
        uint32 predicateId;
        uint64 nonce; // coverageNonce at registration
        // slot 1: payout and reserve are read and written together by fileClaim/settle/claimDefault.
        // uint128 holds far more wei than exists.
        uint128 payout;
        uint128 reserve;
        uint256 paramsHash;
        uint256 profileHash;
        // Ascending capacity, terminated by the first empty entry; immutable after registration (P5).
        VerifierEntry[MAX_VERIFIERS] verifiers;
    }

    struct Session {
        // slot 0: everything checkpoint() checks and updates, so a checkpoint touches this slot and accWord only
        address provider;
        uint32 lastN;
        uint32 checkpointCount;
        uint32 finalN;
        // slot 1
        address user;
        uint48 nonce; // coverageNonce at opening
        uint48 closedAt;
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

    /// Per (session, promise) pair. Claims on a pair are serialised: at most one open at a time, and once
    /// resolved the pair never pays again (P6), whatever proof bytes arrive later (Groth16 is malleable).
    struct Pair {
        uint64 openClaimId;
        bool resolved;
    }

    uint256 private constant ACC_MASK = (1 << 254) - 1;
    uint256 private constant OPENED = 1 << 255;
    uint256 private constant CLOSED = 1 << 254;

    // One slot for the three counters.
    uint64 public coverageNonce;
    uint64 public promiseCount;
    uint64 public claimCount;

    mapping(uint256 => PromiseState) private _promises;
    mapping(bytes32 => Session) private _sessions;
    mapping(uint256 => Claim) private _claims;
    mapping(bytes32 => mapping(uint256 => Pair)) private _pairs;
    /// Withdrawable balance plus one, once an account is touched (0: never touched). The +1 keeps the slot
    /// nonzero for good, so settle() and claimDefault() rewrite a slot (5k gas) instead of creating one (22k).
    /// Every beneficiary is touched beforehand, and pays for it once: the provider in registerPromise, the
    /// claimant in fileClaim. Read balances with credits().
    mapping(address => uint256) private _creditsPlusOne;

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
    }

    struct ClaimView {
        bytes32 sessionId;
        uint256 promiseId;
        address claimant;
        uint256 bond;
        uint64 filedAt;
        ClaimStatus status;
    }

    // ---------------------------------------------------------------- events

    event PromiseRegistered(
        uint256 indexed promiseId, address indexed provider, uint32 predicateId, uint256 paramsHash,
        uint256 profileHash, uint256 payout, uint256 reserve, uint64 nonce
    );
    event PromiseFunded(uint256 indexed promiseId, address indexed funder, uint256 amount, uint256 reserve);
    event SessionOpened(
        bytes32 indexed sessionId, address indexed provider, address indexed user, uint256 profileHash, uint64 nonce
    );
    event Checkpointed(bytes32 indexed sessionId, uint32 n, uint256 root, uint256 acc);
    event SessionClosed(bytes32 indexed sessionId, uint32 finalN, uint256 finalRoot, uint256 acc);
    event ClaimFiled(
        uint256 indexed claimId, bytes32 indexed sessionId, uint256 indexed promiseId, address claimant, uint256 bond
    );
    event ClaimSettled(uint256 indexed claimId, bool violated, address beneficiary, uint256 amount);
    event ClaimDefaulted(uint256 indexed claimId, address beneficiary, uint256 amount);
    event Withdrawn(address indexed account, uint256 amount);

    // ---------------------------------------------------------------- errors

    error NotFieldElement(uint256 value);
    error ZeroAddress();
    error ZeroValue();
    error InvalidConfig();
    error ZeroPayout();
    error InsufficientReserve(uint256 reserve, uint256 payout);
    error BadCapacities();
    error TooManyVerifiers(uint256 max);
    error LengthMismatch();
    error VerifierNotContract(address verifier);
    error UnknownPromise(uint256 promiseId);
    error SessionExists(bytes32 sessionId);
    error UnknownSession(bytes32 sessionId);
    error NotProvider();
    error NotUser();
    error AlreadyClosed(bytes32 sessionId);
    error SessionNotClosed(bytes32 sessionId);
    error CheckpointNotIncreasing(uint32 n, uint32 lastN);
    error FinalBelowCheckpoint(uint32 n, uint32 lastN);
    error TooManyCheckpoints(uint32 max);
    error ProviderMismatch();
    error NotCovered();
    error ProfileMismatch();
    error PairResolved();
    error ClaimAlreadyOpen(uint256 claimId);
    error UnknownClaim(uint256 claimId);
    error ClaimNotOpen(uint256 claimId);
    error NoVerifierForSize(uint32 n);
    error InvalidProof();
    error ProofWindowOpen(uint256 endsAt);
    error NothingToWithdraw();
    error TransferFailed();

    // ---------------------------------------------------------------- constructor

    constructor(address poseidon3, uint32 maxCheckpoints) {
        if (poseidon3.code.length == 0 || maxCheckpoints == 0) revert InvalidConfig();
        POSEIDON3 = IPoseidon3(poseidon3);
        MAX_CHECKPOINTS = maxCheckpoints;
    }

    // ---------------------------------------------------------------- promises

    function registerPromise(
        uint32 predicateId,
        uint256 paramsHash,
        uint256 profileHash,
        uint256 payout,
        uint32[] calldata capacities,
        address[] calldata verifiers
    ) external payable returns (uint256 promiseId) {
        _field(paramsHash);
        _field(profileHash);
        if (payout == 0) revert ZeroPayout();
        if (msg.value < payout) revert InsufficientReserve(msg.value, payout);
        uint256 k = capacities.length;
        if (k == 0) revert BadCapacities();
        if (k > MAX_VERIFIERS) revert TooManyVerifiers(MAX_VERIFIERS);
        if (verifiers.length != k) revert LengthMismatch();

        uint64 nonce = ++coverageNonce;
        promiseId = ++promiseCount;
        PromiseState storage p = _promises[promiseId];
        p.provider = msg.sender;
        p.predicateId = predicateId;
        p.nonce = nonce;
        p.payout = uint128(payout); // payout <= msg.value < 2^128
        p.reserve = uint128(msg.value);
        p.paramsHash = paramsHash;
        p.profileHash = profileHash;
        for (uint256 i; i < k; ++i) {
            if (i > 0 && capacities[i] <= capacities[i - 1]) revert BadCapacities();
            if (capacities[i] == 0) revert BadCapacities();
            if (verifiers[i].code.length == 0) revert VerifierNotContract(verifiers[i]);
            p.verifiers[i] = VerifierEntry(verifiers[i], capacities[i]);
        }
        _touch(msg.sender);
        emit PromiseRegistered(promiseId, msg.sender, predicateId, paramsHash, profileHash, payout, msg.value, nonce);
    }

    function fund(uint256 promiseId) external payable {
        PromiseState storage p = _promise(promiseId);
        if (msg.value == 0) revert ZeroValue();
        uint128 reserve = p.reserve + uint128(msg.value);
        p.reserve = reserve;
        emit PromiseFunded(promiseId, msg.sender, msg.value, reserve);
    }

    // ---------------------------------------------------------------- sessions

    function openSession(bytes32 sessionId, address user, uint256 profileHash) external {
        _field(profileHash);
        if (user == address(0)) revert ZeroAddress();
        Session storage s = _sessions[sessionId];
        if (s.provider != address(0)) revert SessionExists(sessionId);
        uint64 nonce = ++coverageNonce;
        s.provider = msg.sender;
        s.user = user;
        s.nonce = uint48(nonce);
        s.profileHash = profileHash;
        s.accWord = OPENED;
        emit SessionOpened(sessionId, msg.sender, user, profileHash, nonce);
    }

    function checkpoint(bytes32 sessionId, uint32 n, uint256 root) external {
        _field(root);
        Session storage s = _sessions[sessionId];
        if (s.provider != msg.sender) revert NotProvider();
        uint256 word = s.accWord;
        if (word & CLOSED != 0) revert AlreadyClosed(sessionId);
        uint32 lastN = s.lastN;
        if (n <= lastN) revert CheckpointNotIncreasing(n, lastN);
        uint32 count = s.checkpointCount;
        if (count >= MAX_CHECKPOINTS) revert TooManyCheckpoints(MAX_CHECKPOINTS);

        uint256 acc = _poseidon3(word & ACC_MASK, n, root);
        s.lastN = n;
        s.checkpointCount = count + 1;
        s.accWord = acc | OPENED;
        emit Checkpointed(sessionId, n, root, acc);
    }

    function closeSession(bytes32 sessionId, uint32 n, uint256 root) external {
        _field(root);
        Session storage s = _sessions[sessionId];
        if (s.provider != msg.sender) revert NotProvider();
        uint256 word = s.accWord;
        if (word & CLOSED != 0) revert AlreadyClosed(sessionId);
        if (n < s.lastN) revert FinalBelowCheckpoint(n, s.lastN);
        s.finalN = n;
        s.closedAt = uint48(block.timestamp);
        s.finalRoot = root;
        s.accWord = word | CLOSED;
        emit SessionClosed(sessionId, n, root, word & ACC_MASK);
    }

    // ---------------------------------------------------------------- claims

    function fileClaim(bytes32 sessionId, uint256 promiseId) external payable returns (uint256 claimId) {
        Session storage s = _session(sessionId);
        if (msg.sender != s.user) revert NotUser();
        if (msg.value == 0) revert ZeroValue();
        PromiseState storage p = _promise(promiseId);
        if (p.provider != s.provider) revert ProviderMismatch();
        // Strictly earlier: a promise registered after the session opened does not cover it retroactively.
        if (p.nonce >= s.nonce) revert NotCovered();
        if (p.profileHash != s.profileHash) revert ProfileMismatch();
        if (p.reserve < p.payout) revert InsufficientReserve(p.reserve, p.payout);
        Pair storage pair = _pairs[sessionId][promiseId];
        if (pair.resolved) revert PairResolved();
        if (pair.openClaimId != 0) revert ClaimAlreadyOpen(pair.openClaimId);

        claimId = ++claimCount;
        pair.openClaimId = uint64(claimId);
        _claims[claimId] = Claim({
            status: ClaimStatus.Open,
            filedAt: uint48(block.timestamp),
            promiseId: uint64(promiseId), // promiseId <= promiseCount, a uint64
            bond: uint128(msg.value),
            sessionId: sessionId
        });
        _touch(msg.sender);
        emit ClaimFiled(claimId, sessionId, promiseId, msg.sender, msg.value);
    }

    /// @param proof [a0, a1, b00, b01, b10, b11, c0, c1] in snarkjs `exportSolidityCallData` order (EVM limb
    /// order already). Anyone may submit it; the outcome is bound as a public input, so nobody can pick it.
    function settle(uint256 claimId, uint256[8] calldata proof, bool violated) external {
        Claim storage c = _claims[claimId];
        if (c.status != ClaimStatus.Open) revert ClaimNotOpen(claimId);
        bytes32 sessionId = c.sessionId;
        uint256 promiseId = c.promiseId;
        Session storage s = _sessions[sessionId];
        PromiseState storage p = _promises[promiseId];

        (uint256[6] memory inputs, uint32 finalN) = _publicInputs(sessionId, promiseId, s, p, violated);
        (address verifier, ) = _verifierFor(p, finalN);
        if (!_verify(verifier, proof, inputs)) revert InvalidProof();

        address beneficiary;
        uint256 amount;
        uint256 bond = c.bond;
        if (violated) {
            uint128 payout = p.payout;
            uint128 reserve = p.reserve;
            if (reserve < payout) revert InsufficientReserve(reserve, payout);
            p.reserve = reserve - payout;
            beneficiary = s.user;
            amount = payout + bond;
        } else {
            beneficiary = s.provider;
            amount = bond;
        }
        c.status = ClaimStatus.Settled;
        _resolve(sessionId, promiseId);
        _credit(beneficiary, amount);
        emit ClaimSettled(claimId, violated, beneficiary, amount);
    }

    /// @notice The claimant wins by default when no proof settled the claim within PROOF_WINDOW of filing.
    function claimDefault(uint256 claimId) external {
        Claim storage c = _claims[claimId];
        if (c.status != ClaimStatus.Open) revert ClaimNotOpen(claimId);
        uint256 endsAt = uint256(c.filedAt) + PROOF_WINDOW;
        if (block.timestamp < endsAt) revert ProofWindowOpen(endsAt);
        uint256 promiseId = c.promiseId;
        PromiseState storage p = _promises[promiseId];
        uint128 payout = p.payout;
        uint128 reserve = p.reserve;
        if (reserve < payout) revert InsufficientReserve(reserve, payout);

        p.reserve = reserve - payout;
        c.status = ClaimStatus.Defaulted;
        bytes32 sessionId = c.sessionId;
        _resolve(sessionId, promiseId);
        address claimant = _sessions[sessionId].user;
        uint256 amount = uint256(payout) + c.bond;
        _credit(claimant, amount);
        emit ClaimDefaulted(claimId, claimant, amount);
    }

    function withdraw() external {
        uint256 raw = _creditsPlusOne[msg.sender];
        if (raw <= 1) revert NothingToWithdraw();
        uint256 amount = raw - 1;
        _creditsPlusOne[msg.sender] = 1;
        emit Withdrawn(msg.sender, amount);
        (bool ok, ) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }

    // ---------------------------------------------------------------- views

    function getPromise(uint256 promiseId) external view returns (PromiseView memory v) {
        PromiseState storage p = _promise(promiseId);
        uint256 k;
        while (k < MAX_VERIFIERS && p.verifiers[k].verifier != address(0)) ++k;
        v.capacities = new uint32[](k);
        v.verifiers = new address[](k);
        for (uint256 i; i < k; ++i) {
            v.capacities[i] = p.verifiers[i].capacity;
            v.verifiers[i] = p.verifiers[i].verifier;
        }
        v.provider = p.provider;
        v.predicateId = p.predicateId;
        v.nonce = p.nonce;
        v.paramsHash = p.paramsHash;
        v.profileHash = p.profileHash;
        v.payout = p.payout;
        v.reserve = p.reserve;
    }

    function getSession(bytes32 sessionId) external view returns (SessionView memory) {
        Session storage s = _session(sessionId);
        return
            SessionView({
                provider: s.provider,
                user: s.user,
                profileHash: s.profileHash,
                lastN: s.lastN,
                checkpointCount: s.checkpointCount,
                acc: s.accWord & ACC_MASK,
                closed: s.accWord & CLOSED != 0,
                finalN: s.finalN,
                finalRoot: s.finalRoot,
                closedAt: s.closedAt,
                nonce: s.nonce
            });
    }

    function getClaim(uint256 claimId) external view returns (ClaimView memory) {
        Claim storage c = _claim(claimId);
        return
            ClaimView({
                sessionId: c.sessionId,
                promiseId: c.promiseId,
                claimant: _sessions[c.sessionId].user,
                bond: c.bond,
                filedAt: c.filedAt,
                status: c.status
            });
    }

    function pairOf(bytes32 sessionId, uint256 promiseId) external view returns (uint256 openClaimId, bool resolved) {
        Pair storage pair = _pairs[sessionId][promiseId];
        return (pair.openClaimId, pair.resolved);
    }

    function credits(address account) external view returns (uint256) {
        uint256 raw = _creditsPlusOne[account];
        return raw == 0 ? 0 : raw - 1;
    }

    /// @notice The proof's first public input: binds it to this chain, this escrow and this (session, promise)
    /// pair (P4). keccak is wider than the field, so it drops its low 3 bits, as sdk/hash.ts reduceBytes32 does.
    function contextOf(bytes32 sessionId, uint256 promiseId) public view returns (uint256) {
        return uint256(keccak256(abi.encode(block.chainid, address(this), sessionId, promiseId))) >> 3;
    }

    /// @notice The exact public inputs settle() would pass to the verifier for this claim and outcome.
    function publicInputsOf(uint256 claimId, bool violated) external view returns (uint256[6] memory inputs) {
        Claim storage c = _claim(claimId);
        (inputs, ) = _publicInputs(c.sessionId, c.promiseId, _sessions[c.sessionId], _promises[c.promiseId], violated);
    }

    /// @notice The verifier (and its capacity) settle() would call for this claim.
    function verifierOf(uint256 claimId) external view returns (address verifier, uint32 capacity) {
        Claim storage c = _claim(claimId);
        Session storage s = _sessions[c.sessionId];
        if (s.accWord & CLOSED == 0) revert SessionNotClosed(c.sessionId);
        return _verifierFor(_promises[c.promiseId], s.finalN);
    }

    // ---------------------------------------------------------------- internals

    function _field(uint256 x) private pure {
        if (x >= FIELD_MODULUS) revert NotFieldElement(x);
    }

    function _promise(uint256 promiseId) private view returns (PromiseState storage p) {
        p = _promises[promiseId];
        if (p.provider == address(0)) revert UnknownPromise(promiseId);
    }

    function _session(bytes32 sessionId) private view returns (Session storage s) {
        s = _sessions[sessionId];
        if (s.provider == address(0)) revert UnknownSession(sessionId);
    }

    function _claim(uint256 claimId) private view returns (Claim storage c) {
        c = _claims[claimId];
        if (c.status == ClaimStatus.None) revert UnknownClaim(claimId);
    }

    function _touch(address account) private {
        if (_creditsPlusOne[account] == 0) _creditsPlusOne[account] = 1;
    }

    function _credit(address account, uint256 amount) private {
        uint256 raw = _creditsPlusOne[account];
        _creditsPlusOne[account] = (raw == 0 ? 1 : raw) + amount;
    }

    function _resolve(bytes32 sessionId, uint256 promiseId) private {
        _pairs[sessionId][promiseId] = Pair({openClaimId: 0, resolved: true});
    }

    /// Everything comes from storage; the caller chooses only the outcome, which the circuit pins.
    function _publicInputs(
        bytes32 sessionId,
        uint256 promiseId,
        Session storage s,
        PromiseState storage p,
        bool violated
    ) private view returns (uint256[6] memory inputs, uint32 finalN) {
        uint256 word = s.accWord;
        if (word & CLOSED == 0) revert SessionNotClosed(sessionId);
        finalN = s.finalN;
        inputs[0] = contextOf(sessionId, promiseId);
        inputs[1] = s.finalRoot;
        inputs[2] = finalN;
        inputs[3] = word & ACC_MASK;
        inputs[4] = p.paramsHash;
        inputs[5] = violated ? 1 : 0;
    }

    /// Smallest capacity that fits: capacities ascend, so the first fit is the cheapest circuit.
    function _verifierFor(PromiseState storage p, uint32 n) private view returns (address, uint32) {
        for (uint256 i; i < MAX_VERIFIERS; ++i) {
            VerifierEntry storage e = p.verifiers[i];
            if (e.verifier == address(0)) break;
            if (e.capacity >= n) return (e.verifier, e.capacity);
        }
        revert NoVerifierForSize(n);
    }

    /// A verifier that reverts or returns anything but `true` rejects the proof.
    function _verify(address verifier, uint256[8] calldata proof, uint256[6] memory inputs)
        private
        view
        returns (bool)
    {
        (bool ok, bytes memory ret) = verifier.staticcall(
            abi.encodeCall(
                IGroth16Verifier6.verifyProof,
                (
                    [proof[0], proof[1]],
                    [[proof[2], proof[3]], [proof[4], proof[5]]],
                    [proof[6], proof[7]],
                    inputs
                )
            )
        );
        return ok && ret.length == 32 && abi.decode(ret, (uint256)) == 1;
    }

    /// Raw staticcall: skips Solidity's memory-array ABI encoding in the hottest path (every checkpoint).
    function _poseidon3(uint256 a, uint256 b, uint256 c) private view returns (uint256 h) {
        address target = address(POSEIDON3);
        bytes4 selector = IPoseidon3.poseidon.selector;
        bool ok;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, selector)
            mstore(add(m, 0x04), a)
            mstore(add(m, 0x24), b)
            mstore(add(m, 0x44), c)
            ok := staticcall(gas(), target, m, 0x64, 0x00, 0x20)
            ok := and(ok, eq(returndatasize(), 0x20))
            h := mload(0x00)
        }
        if (!ok) revert InvalidConfig();
    }
}
