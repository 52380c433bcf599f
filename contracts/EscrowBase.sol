// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEscrow, VERIFIER_CLASSES} from "./IEscrow.sol";

/// Poseidon over 3 field elements with circomlibjs' `poseidon(uint256[3])` ABI: contracts/PoseidonT4.sol, or the
/// circomlibjs `poseidon_gencontract` bytecode (same function, twice the gas).
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

/// @title zkVAI escrow: constants, storage, internal helpers and views
/// @notice Escrow.sol holds the state machine; this base keeps it readable (Escrow.sol alone passed 700 lines).
/// The types, events and custom errors are IEscrow.sol's. docs/PROTOCOL.md "Escrow state machine" is the
/// reference for every rule, error and event.
abstract contract EscrowBase is IEscrow {
    // ---------------------------------------------------------------- constants

    /// BN254 scalar field order r: every public input of the circuits lives below it.
    uint256 public constant FIELD_MODULUS =
        21888242871839275222246405745257275088548364400416034343698204186575808495617;
    /// After filing, the time anyone has to settle a claim with a proof; from then on it defaults.
    uint256 public constant PROOF_WINDOW = 3 days;
    /// Claims on a session close this long after its final commitment; until then the session's earmark holds
    /// (retired promise or not), and the free reserve can be withdrawn at any time.
    uint256 public constant CLAIM_WINDOW = 30 days;
    /// Capacity classes per promise. A fixed array spares settle() a cold read of a dynamic array's length.
    uint256 public constant MAX_VERIFIERS = VERIFIER_CLASSES;

    IPoseidon3 public immutable POSEIDON3;
    /// The checkpoint budget (sdk/core/checkpoints.ts): a session's k-th fold entry, checkpoint or receipt, must
    /// cover more than (k - 1) * CHECKPOINT_INTERVAL records, the spare receipt excepted. A session of n records
    /// therefore holds at most ceil(n / CHECKPOINT_INTERVAL) entries under the budget, whoever posts them, plus the
    /// one spare receipt, which is what a circuit of capacity N folds (checkpointSlots(N)). The budget grows with
    /// the records, so there is no cap to exhaust, and nobody can spend slots ahead of records a circuit would have
    /// to hold.
    uint32 public immutable CHECKPOINT_INTERVAL;
    /// Seconds after close before any claim on the session can be settled: the user's time to post its spare
    /// receipt (postReceipt) against a close it was not warned of. Without it a provider could close short of a
    /// receipt it signed and settle in the same block. Claims filed before close lose this much of their
    /// PROOF_WINDOW, so an honest provider closes promptly; `vai deploy` sets 1 hour.
    uint32 public immutable RECEIPT_WINDOW;
    /// The account that deployed the escrow: the only one that may add a predicate the registries do not serve
    /// yet (Escrow.appendPredicateVerifiers). It can change no entry once written, so no promise depends on it.
    /// No getter: one more selector would cost checkpoint() a dispatch comparison; the deployment transaction
    /// (and the SDK's deployment record) names it.
    address internal immutable _DEPLOYER;

    // ---------------------------------------------------------------- EIP-712 receipts

    /// A receipt is the provider's signature over its chain head after n records (sdk/core/receipt.ts has the same
    /// definition). The user can post it, so a provider that signed n records cannot close on fewer unnoticed.
    bytes32 public constant RECEIPT_TYPEHASH = keccak256("Receipt(bytes32 sessionId,uint32 n,uint256 root)");
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    string internal constant DOMAIN_NAME = "zkVAI Escrow";
    string internal constant DOMAIN_VERSION = "2";
    /// secp256k1's order n / 2. A signature (r, s) has a twin (r, n - s) that recovers the same signer; only the low
    /// one is accepted, so a receipt has one valid encoding (as OpenZeppelin's ECDSA and EIP-2 require).
    uint256 internal constant SECP256K1_HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    /// The domain separator as of deployment. A fork that changes the chain id must not accept receipts signed for
    /// the original chain, so _domainSeparator() recomputes it whenever block.chainid differs from this one's.
    uint256 private immutable _CACHED_CHAIN_ID;
    bytes32 private immutable _CACHED_DOMAIN_SEPARATOR;

    // ---------------------------------------------------------------- storage (its types: IEscrow.sol)

    uint256 internal constant ACC_MASK = (1 << 254) - 1;
    uint256 internal constant OPENED = 1 << 255;
    uint256 internal constant CLOSED = 1 << 254;
    /// Session.flags. SPARE_RECEIPT: the user's one receipt outside the checkpoint rules (postReceipt) is spent.
    /// CLAIMED: a claim on the session was filed (on any promise); with RECEIPT_WINDOW past close, the fold is then
    /// frozen for the spare receipt (postReceipt's SpareReceiptTooLate).
    uint8 internal constant SPARE_RECEIPT = 1;
    uint8 internal constant CLAIMED = 2;

    /// One counter orders registrations, retirements and session openings, so coverage is decided by order,
    /// never by timestamps that two transactions in one block share.
    uint64 public coverageNonce;
    uint64 public promiseCount;
    uint64 public claimCount;

    mapping(uint32 => VerifierSet) internal _registry;
    mapping(uint256 => PromiseState) internal _promises;
    mapping(bytes32 => Session) internal _sessions;
    mapping(uint256 => Claim) internal _claims;
    mapping(bytes32 => mapping(uint256 => Pair)) internal _pairs;
    /// Withdrawable balance plus one, once an account is touched (0: never touched). The +1 keeps the slot
    /// nonzero for good, so settle() and claimDefault() rewrite a slot (5k gas) instead of creating one (22k).
    /// Every beneficiary is touched beforehand, and pays for it once: the provider in registerPromise, the
    /// claimant in fileClaim. Read balances with credits().
    mapping(address => uint256) internal _creditsPlusOne;

    // ---------------------------------------------------------------- constructor

    /// circomlib's Poseidon(1, 2, 3) (sdk/core/hash.ts poseidon([1n, 2n, 3n])): the constructor's known answer.
    uint256 internal constant POSEIDON3_OF_1_2_3 = 0x0e7732d89e6939c0ff03d5e58dab6302f3230e269dc5b968f725df34ab36d732;

    /// @param checkpointInterval the budget's step (CHECKPOINT_INTERVAL), > 0.
    /// @param receiptWindow RECEIPT_WINDOW, in seconds, below PROOF_WINDOW (0 only for development chains).
    /// @param registry the verifiers of every predicate served from the start, grouped by predicate in ascending
    /// capacity; each circuit of capacity N folds exactly checkpointSlots(N) entries, the most a session it can hold
    /// reaches under the budget. Who deploys the escrow vouches for this list, and for the predicates it appends
    /// later; anyone can check each address's code against the manifest (`vai promise check`, `vai verify`).
    constructor(address poseidon3, uint32 checkpointInterval, uint32 receiptWindow, VerifierEntry[] memory registry) {
        if (poseidon3.code.length == 0 || checkpointInterval == 0 || receiptWindow >= PROOF_WINDOW) revert InvalidConfig();
        // A known-answer call refuses a Poseidon that is not one (one returning 0 would make every checkpoint
        // list fold to the same accumulator). It cannot prove the contract right on every input: `vai verify`
        // also compares its code with contracts/PoseidonT4.sol as built.
        if (IPoseidon3(poseidon3).poseidon([uint256(1), 2, 3]) != POSEIDON3_OF_1_2_3) revert InvalidConfig();
        POSEIDON3 = IPoseidon3(poseidon3);
        CHECKPOINT_INTERVAL = checkpointInterval;
        RECEIPT_WINDOW = receiptWindow;
        _CACHED_CHAIN_ID = block.chainid;
        _CACHED_DOMAIN_SEPARATOR = _buildDomainSeparator();
        _DEPLOYER = msg.sender;
        for (uint256 i; i < registry.length; ++i) _addVerifier(registry[i], checkpointInterval);
    }

    // ---------------------------------------------------------------- views

    function getPromise(uint256 promiseId) external view returns (PromiseView memory v) {
        PromiseState storage p = _promise(promiseId);
        // The promise's own copies, which settle() and proveSegment call: `vai promise check` holds them to the
        // registries.
        (v.capacities, v.verifiers) = _classes(p.verifierSet);
        v.segmentVerifier = p.segmentVerifier;
        v.provider = p.provider;
        v.predicateId = p.predicateId;
        v.nonce = p.nonce;
        v.paramsHash = p.paramsHash;
        v.profileHash = p.profileHash;
        v.payout = p.payout;
        v.reserve = p.reserve;
        v.retiredAt = p.retiredAt;
        v.retiredNonce = p.retiredNonce;
        v.earmarks = p.earmarks;
    }

    /// @notice The registry's verifiers for a predicate, by ascending capacity (empty: the predicate is not served).
    function verifierSet(uint32 predicateId) external view returns (uint32[] memory capacities, address[] memory verifiers) {
        return _classes(_registry[predicateId]);
    }

    /// A set's classes in use, by ascending capacity.
    function _classes(VerifierSet storage set)
        internal
        view
        returns (uint32[] memory capacities, address[] memory verifiers)
    {
        uint256 k;
        while (k < MAX_VERIFIERS && set.capacities[k] != 0) ++k;
        capacities = new uint32[](k);
        verifiers = new address[](k);
        for (uint256 i; i < k; ++i) {
            capacities[i] = set.capacities[i];
            verifiers[i] = set.verifiers[i];
        }
    }

    /// @notice The free reserve: what is not earmarked for covered sessions (reserve - earmarks * payout). A new
    /// session is covered from it, and the provider may withdraw it at any time; no session relies on it.
    function availableReserve(uint256 promiseId) external view returns (uint256) {
        return _available(_promise(promiseId));
    }

    /// @notice What the promise guarantees this session: its coverage state, the claim open on the pair (0: none)
    /// and the amount earmarked for it (the payout while Earmarked, else 0). `vai promise check` and the SDK read it.
    function coverageOf(bytes32 sessionId, uint256 promiseId)
        external
        view
        returns (Coverage coverage, uint256 openClaimId, uint256 amount)
    {
        PromiseState storage p = _promise(promiseId);
        Pair storage pair = _pairs[sessionId][promiseId];
        coverage = pair.coverage;
        openClaimId = pair.openClaimId;
        if (coverage == Coverage.Earmarked) amount = p.payout;
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
                nonce: s.nonce,
                spareReceiptUsed: s.flags & SPARE_RECEIPT != 0
            });
    }

    /// @notice Fold entries a circuit of `capacity` records must hold: ceil(capacity / CHECKPOINT_INTERVAL) under
    /// the budget, plus the user's one spare receipt. The constructor holds every registry entry to it.
    function checkpointSlots(uint32 capacity) external view returns (uint256) {
        return _checkpointSlots(capacity, CHECKPOINT_INTERVAL);
    }

    /// @notice The EIP-712 domain separator receipts are signed under: name "zkVAI Escrow", version "2", this chain's
    /// current id and this escrow.
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparator();
    }

    /// @notice EIP-5267: the domain's fields, so wallets and SDKs can build it without hard-coding it.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", DOMAIN_NAME, DOMAIN_VERSION, block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice The EIP-712 digest the session's provider signs for a receipt (sdk/core/receipt.ts receiptDigest).
    function receiptDigest(bytes32 sessionId, uint32 n, uint256 root) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(RECEIPT_TYPEHASH, sessionId, n, root));
        return keccak256(abi.encodePacked(hex"1901", _domainSeparator(), structHash));
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
        return (pair.openClaimId, pair.coverage == Coverage.Resolved);
    }

    function credits(address account) external view returns (uint256) {
        uint256 raw = _creditsPlusOne[account];
        return raw == 0 ? 0 : raw - 1;
    }

    /// @notice Last second at which the session's user may file a claim on this promise (inclusive);
    /// type(uint256).max while neither the session is closed nor the promise retired. Coverage is not checked.
    function claimDeadline(bytes32 sessionId, uint256 promiseId) external view returns (uint256) {
        return _claimDeadline(_session(sessionId), _promise(promiseId));
    }

    /// @notice The proof's first public input: binds it to this chain, this escrow and this (session, promise)
    /// pair (P4). keccak is wider than the field, so it drops its low 3 bits, as sdk/core/hash.ts reduceBytes32 does.
    function contextOf(bytes32 sessionId, uint256 promiseId) public view returns (uint256) {
        return uint256(keccak256(abi.encode(block.chainid, address(this), sessionId, promiseId))) >> 3;
    }

    /// @notice The exact public inputs settle() would pass to the verifier for this claim and outcome.
    function publicInputsOf(uint256 claimId, bool violated) external view returns (uint256[6] memory inputs) {
        Claim storage c = _claim(claimId);
        (inputs, ) = _publicInputs(c.sessionId, c.promiseId, _sessions[c.sessionId], _promises[c.promiseId], violated);
    }

    /// @notice The first second settle() takes a proof for a claim on this session: closedAt + RECEIPT_WINDOW.
    function settleOpensAt(bytes32 sessionId) external view returns (uint256) {
        Session storage s = _session(sessionId);
        if (s.accWord & CLOSED == 0) revert SessionNotClosed(sessionId);
        return uint256(s.closedAt) + RECEIPT_WINDOW;
    }

    /// @notice The verifier (and its capacity) settle() would call for this claim.
    function verifierOf(uint256 claimId) external view returns (address verifier, uint32 capacity) {
        Claim storage c = _claim(claimId);
        Session storage s = _sessions[c.sessionId];
        if (s.accWord & CLOSED == 0) revert SessionNotClosed(c.sessionId);
        return _verifierFor(_promises[c.promiseId], s.finalN);
    }

    // ---------------------------------------------------------------- internals

    /// One registry entry, checked (the constructor's and appendPredicateVerifiers' loop body):
    /// appended as the predicate's next class, above its last capacity.
    function _addVerifier(VerifierEntry memory e, uint256 interval) internal {
        if (e.verifier.code.length == 0) revert VerifierNotContract(e.verifier);
        if (e.capacity == 0) revert BadCapacities();
        // A circuit with fewer slots could not prove a session the budget lets fill them all; one with more
        // would fold padding the escrow never produces. Either way the registry entry is wrong.
        _requireSlots(e.checkpoints, e.capacity, interval);
        VerifierSet storage set = _registry[e.predicateId];
        uint256 k;
        while (k < MAX_VERIFIERS && set.capacities[k] != 0) ++k;
        if (k == MAX_VERIFIERS) revert TooManyVerifiers(MAX_VERIFIERS);
        if (k > 0 && e.capacity <= set.capacities[k - 1]) revert BadCapacities();
        set.capacities[k] = e.capacity;
        set.verifiers[k] = e.verifier;
        emit VerifierRegistered(e.predicateId, e.capacity, e.checkpoints, e.verifier);
    }

    /// Reverts CheckpointsMismatch unless a circuit of `capacity` records folds checkpointSlots(capacity) entries.
    /// A call, not inline in _addVerifier: inline, the optimiser shared _addVerifier's event tail with
    /// closeSession's, which then paid a jump (1 gas) more.
    function _requireSlots(uint32 checkpoints, uint32 capacity, uint256 interval) internal pure {
        uint256 slots = _checkpointSlots(capacity, interval);
        if (checkpoints != slots) revert CheckpointsMismatch(checkpoints, slots);
    }

    function _checkpointSlots(uint256 capacity, uint256 interval) internal pure returns (uint256) {
        return (capacity + interval - 1) / interval + 1;
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    DOMAIN_TYPEHASH,
                    keccak256(bytes(DOMAIN_NAME)),
                    keccak256(bytes(DOMAIN_VERSION)),
                    block.chainid,
                    address(this)
                )
            );
    }

    function _domainSeparator() internal view returns (bytes32) {
        return block.chainid == _CACHED_CHAIN_ID ? _CACHED_DOMAIN_SEPARATOR : _buildDomainSeparator();
    }

    /// The address that signed `digest`, or address(0) for a signature that is malleable (high s), has a v other
    /// than 27 or 28, or that ecrecover rejects: callers compare it with a nonzero provider, so 0 never passes.
    function _recover(bytes32 digest, uint8 v, bytes32 r, bytes32 s) internal pure returns (address) {
        if (uint256(s) > SECP256K1_HALF_N || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    function _field(uint256 x) internal pure {
        if (x >= FIELD_MODULUS) revert NotFieldElement(x);
    }

    function _u112(uint256 x) internal pure returns (uint112) {
        if (x > type(uint112).max) revert AmountTooLarge(x);
        return uint112(x);
    }

    function _promise(uint256 promiseId) internal view returns (PromiseState storage p) {
        p = _promises[promiseId];
        if (p.provider == address(0)) revert UnknownPromise(promiseId);
    }

    function _session(bytes32 sessionId) internal view returns (Session storage s) {
        s = _sessions[sessionId];
        if (s.provider == address(0)) revert UnknownSession(sessionId);
    }

    function _claim(uint256 claimId) internal view returns (Claim storage c) {
        c = _claims[claimId];
        if (c.status == ClaimStatus.None) revert UnknownClaim(claimId);
    }

    /// reserve - earmarks * payout; never negative: openSession earmarks only from this free part, withdrawReserve
    /// takes at most it, and only settle and claimDefault, which also drop an earmark, take a payout out.
    function _available(PromiseState storage p) internal view returns (uint256) {
        return uint256(p.reserve) - uint256(p.earmarks) * p.payout;
    }

    function _touch(address account) internal {
        if (_creditsPlusOne[account] == 0) _creditsPlusOne[account] = 1;
    }

    function _credit(address account, uint256 amount) internal {
        uint256 raw = _creditsPlusOne[account];
        _creditsPlusOne[account] = (raw == 0 ? 1 : raw) + amount;
    }

    /// closedAt + CLAIM_WINDOW; unbounded until the session closes. Checkpoints never start the clock: only the
    /// final commitment (closedAt) does. The promise's retirement does not either: a session covered when it
    /// opened stays covered until its own close + CLAIM_WINDOW, whatever the provider does later, and the
    /// provider, who closes its sessions, bounds its own locked capital by closing them.
    function _claimDeadline(Session storage s, PromiseState storage) internal view returns (uint256 deadline) {
        uint256 closedAt = s.closedAt;
        deadline = closedAt == 0 ? type(uint256).max : closedAt + CLAIM_WINDOW;
    }

    /// Everything comes from storage; the caller chooses only the outcome, which the circuit pins. Each input is
    /// below r: context by its shift, finalRoot and paramsHash by _field at write time, finalN as a uint32, and acc
    /// as a Poseidon output.
    function _publicInputs(
        bytes32 sessionId,
        uint256 promiseId,
        Session storage s,
        PromiseState storage p,
        bool violated
    ) internal view returns (uint256[6] memory inputs, uint32 finalN) {
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

    /// The fences every proof path shares (settle, proveSegment, settleSegments), in this order: the claim is open,
    /// its PROOF_WINDOW has not ended (from then on it defaults, and the two never overlap), the session has its
    /// final commitment, and RECEIPT_WINDOW has passed since it, so the user's last receipt binds the proof.
    function _provableClaim(uint256 claimId)
        internal
        view
        returns (Claim storage c, bytes32 sessionId, uint256 promiseId, Session storage s)
    {
        c = _claims[claimId];
        if (c.status != ClaimStatus.Open) revert ClaimNotOpen(claimId);
        uint256 endsAt = uint256(c.filedAt) + PROOF_WINDOW;
        if (block.timestamp >= endsAt) revert ProofWindowClosed(endsAt);
        sessionId = c.sessionId;
        promiseId = c.promiseId;
        s = _sessions[sessionId];
        uint256 closedAt = s.closedAt;
        if (closedAt == 0) revert SessionNotClosed(sessionId);
        uint256 opensAt = closedAt + RECEIPT_WINDOW;
        if (block.timestamp < opensAt) revert ReceiptWindowOpen(opensAt);
    }

    /// The payment of a claim whose outcome is proven, by one proof (settle) or a chain of segments
    /// (settleSegments): one tail, so the two paths cannot pay differently. violated: the user gets payout + bond
    /// out of the session's earmark (locked since it opened, so the reserve holds it); satisfied: the provider gets
    /// the bond and the earmark goes back to the free reserve. Either way the claim is Settled and the pair
    /// resolved for good. Effects only: credits are withdrawn later.
    function _settleProven(
        uint256 claimId,
        Claim storage c,
        bytes32 sessionId,
        uint256 promiseId,
        Session storage s,
        PromiseState storage p,
        bool violated
    ) internal {
        uint112 reserve = p.reserve;
        address beneficiary = s.provider;
        uint256 amount = c.bond;
        if (violated) {
            uint112 payout = p.payout;
            if (reserve < payout) revert InsufficientReserve(reserve, payout);
            reserve -= payout;
            beneficiary = s.user;
            amount += payout;
        }
        p.reserve = reserve;
        p.earmarks -= 1;
        c.status = ClaimStatus.Settled;
        _resolve(sessionId, promiseId);
        _credit(beneficiary, amount);
        emit ClaimSettled(claimId, violated, beneficiary, amount);
    }

    /// The claim's end: the pair's earmark is spent (paid out, or back to the free reserve) and the pair is closed.
    function _resolve(bytes32 sessionId, uint256 promiseId) internal {
        _pairs[sessionId][promiseId] = Pair({openClaimId: 0, coverage: Coverage.Resolved});
    }

    /// Smallest capacity that fits: capacities ascend, so the first fit is the cheapest circuit.
    function _verifierFor(PromiseState storage p, uint32 n) internal view returns (address, uint32) {
        VerifierSet storage set = p.verifierSet;
        for (uint256 i; i < MAX_VERIFIERS; ++i) {
            uint32 capacity = set.capacities[i];
            if (capacity == 0) break; // the constructor refuses a zero capacity: 0 ends the list
            if (capacity >= n) return (set.verifiers[i], capacity);
        }
        revert NoVerifierForSize(n);
    }

    /// A verifier that reverts or returns anything but `true` rejects the proof. The call is encoded by hand: the
    /// verifier's arguments are static arrays, so they are 14 words in a row (proof words in snarkjs order, then
    /// the public inputs), which spares settle() Solidity's nested memory arrays.
    function _verify(address verifier, uint256[8] calldata proof, uint256[6] memory inputs)
        internal
        view
        returns (bool ok)
    {
        bytes4 selector = IGroth16Verifier6.verifyProof.selector;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, selector)
            calldatacopy(add(m, 0x04), proof, 0x100)
            for { let i := 0 } lt(i, 6) { i := add(i, 1) } {
                mstore(add(add(m, 0x104), mul(i, 0x20)), mload(add(inputs, mul(i, 0x20))))
            }
            ok := staticcall(gas(), verifier, m, 0x1c4, 0x00, 0x20)
            ok := and(ok, and(eq(returndatasize(), 0x20), eq(mload(0x00), 1)))
        }
    }

    /// Raw staticcall: skips Solidity's memory-array ABI encoding in the hottest path (every checkpoint).
    function _poseidon3(uint256 a, uint256 b, uint256 c) internal view returns (uint256 h) {
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
