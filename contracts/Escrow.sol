// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EscrowSegments} from "./EscrowSegments.sol";

/// @title zkVAI escrow
/// @notice Holds promise reserves and claim bonds; settles claims with Groth16 proofs whose public inputs are
/// read from this contract's storage, or by default once PROOF_WINDOW has passed without one.
/// @dev Money moves only by pull payment: every path credits an account, and withdraw() alone sends ether, after
/// zeroing the credit (checks-effects-interactions). No other function makes an external call that can re-enter:
/// Poseidon and the verifiers are STATICCALLed. Types, events and errors: IEscrow.sol; storage and views:
/// EscrowBase.sol; settlement by a chain of segment proofs: EscrowSegments.sol. The full state machine and
/// settlement table: docs/PROTOCOL.md, "Escrow state machine".
contract Escrow is EscrowSegments {
    constructor(
        address poseidon3,
        uint32 checkpointInterval,
        uint32 receiptWindow,
        VerifierEntry[] memory registry,
        SegmentEntry[] memory segments
    ) EscrowSegments(poseidon3, checkpointInterval, receiptWindow, registry, segments) {}

    // ---------------------------------------------------------------- registry

    /// @notice The deployer adds a predicate the escrow does not serve yet: its whole-claim verifiers (ascending
    /// capacity) and at most one segment verifier, each checked as the constructor checks its entries. Only a
    /// predicate with no entry in either registry qualifies (PredicateExists otherwise), and its whole set lands in
    /// this one transaction: registerPromise refuses a predicate without entries, so no promise of it exists yet,
    /// and once it has entries nothing can add to, swap or remove them. Every promise therefore settles through
    /// exactly the set it copied when it registered, whatever is appended later.
    /// @dev Kept from moving other transactions' gas. The name is chosen for its selector: solc's dispatcher (a
    /// binary search over the sorted selectors) then takes as many comparisons as before for every other
    /// transaction but claimDefault, which takes one fewer (22 gas); renaming it, or adding a public function or
    /// getter, shifts those costs. And the optimiser shares identical code tails between functions, so the code
    /// here can cost another function a jump (_requireSlots). Compare `npx tsx scripts/gas-escrow.ts` before and
    /// after any change (docs/BENCHMARKS.md "Escrow gas").
    function appendPredicateVerifiers(
        uint32 predicateId,
        VerifierEntry[] calldata verifiers,
        SegmentEntry[] calldata segments
    ) external {
        if (msg.sender != _DEPLOYER) revert NotDeployer();
        if (_registry[predicateId].capacities[0] != 0 || _segmentRegistry[predicateId].verifier != address(0))
            revert PredicateExists(predicateId);
        if (verifiers.length + segments.length == 0) revert EmptyAppend(predicateId);
        uint256 interval = CHECKPOINT_INTERVAL;
        for (uint256 i; i < verifiers.length; ++i) {
            uint32 entryPredicateId = verifiers[i].predicateId;
            if (entryPredicateId != predicateId) revert PredicateMismatch(predicateId, entryPredicateId);
            _addVerifier(verifiers[i], interval);
        }
        address segment;
        for (uint256 i; i < segments.length; ++i) {
            uint32 entryPredicateId = segments[i].predicateId;
            if (entryPredicateId != predicateId) revert PredicateMismatch(predicateId, entryPredicateId);
            _addSegmentVerifier(segments[i], interval); // a second one reverts DuplicateSegmentVerifier
            segment = segments[i].verifier;
        }
        emit PredicateAppended(predicateId, verifiers.length, segment);
    }

    // ---------------------------------------------------------------- promises

    /// @notice Registers a promise backed by msg.value (at least `payout`). Its predicate, θ hash, profile and payout
    /// are fixed from here on (P5); its verifiers are the registry's for the predicate (single-proof ones, a segment
    /// verifier, or both), copied here and never changed (appendPredicateVerifiers adds only new predicates), so
    /// the provider chooses none.
    function registerPromise(uint32 predicateId, uint256 paramsHash, uint256 profileHash, uint256 payout)
        external
        payable
        returns (uint256 promiseId)
    {
        _field(paramsHash);
        _field(profileHash);
        if (payout == 0) revert ZeroPayout();
        if (msg.value < payout) revert InsufficientReserve(msg.value, payout);
        uint112 reserve = _u112(msg.value);
        VerifierSet storage set = _registry[predicateId];
        SegmentVerifier memory segment = _segmentRegistry[predicateId];
        // Served by single-proof verifiers, a segment verifier, or both.
        if (set.capacities[0] == 0 && segment.verifier == address(0)) revert UnknownPredicate(predicateId);

        uint64 nonce = ++coverageNonce;
        promiseId = ++promiseCount;
        PromiseState storage p = _promises[promiseId];
        p.provider = msg.sender;
        p.nonce = uint48(nonce);
        p.payout = uint112(payout); // payout <= msg.value < 2^112
        p.reserve = reserve;
        p.predicateId = predicateId;
        if (segment.verifier != address(0)) {
            p.segmentVerifier = segment.verifier;
        }
        p.paramsHash = paramsHash;
        p.profileHash = profileHash;
        // Copy only the classes in use: a whole-struct copy would also write the empty slots.
        for (uint256 i; i < MAX_VERIFIERS && set.capacities[i] != 0; ++i) {
            p.verifierSet.capacities[i] = set.capacities[i];
            p.verifierSet.verifiers[i] = set.verifiers[i];
        }
        _touch(msg.sender);
        emit PromiseRegistered(promiseId, msg.sender, predicateId, paramsHash, profileHash, payout, msg.value, nonce);
    }

    /// @notice Anyone may add to a promise's reserve until it is retired.
    function fund(uint256 promiseId) external payable {
        PromiseState storage p = _promise(promiseId);
        if (msg.value == 0) revert ZeroValue();
        if (p.retiredNonce != 0) revert PromiseIsRetired(promiseId);
        uint112 reserve = _u112(uint256(p.reserve) + msg.value);
        p.reserve = reserve;
        emit PromiseFunded(promiseId, msg.sender, msg.value, reserve);
    }

    /// @notice Ends new coverage: openSession refuses the promise from now on. Sessions it covers keep their
    /// earmarks: each one's claims close CLAIM_WINDOW after its own close, as before. The provider only, once.
    function retirePromise(uint256 promiseId) external {
        PromiseState storage p = _promise(promiseId);
        if (msg.sender != p.provider) revert NotProvider();
        if (p.retiredNonce != 0) revert PromiseIsRetired(promiseId);
        uint64 nonce = ++coverageNonce;
        p.retiredNonce = uint48(nonce);
        p.retiredAt = uint48(block.timestamp);
        emit PromiseRetired(promiseId, block.timestamp, nonce);
    }

    /// @notice Credits the free reserve (availableReserve: what no covered session's earmark holds) to the
    /// provider, at any time, retired or not: every session the promise covers has its payout earmarked since it
    /// opened, so the free part backs nobody. The earmarks stay until their claims end or their windows pass
    /// (releaseCoverage); a promise withdrawn to 0 covers no new session until it is funded again.
    function withdrawReserve(uint256 promiseId) external {
        PromiseState storage p = _promise(promiseId);
        if (msg.sender != p.provider) revert NotProvider();
        uint256 amount = _available(p);
        if (amount == 0) revert NothingToWithdraw();
        p.reserve -= uint112(amount); // amount <= reserve
        _credit(msg.sender, amount);
        emit ReserveWithdrawn(promiseId, msg.sender, amount);
    }

    /// @notice Gives a session's earmark on a promise back to the free reserve once the pair's claim window has
    /// ended (claimDeadline passed) with no claim open: nothing can spend it any more. Anyone may call it (the
    /// provider's SDK does, for its own sessions: EscrowClient.releaseExpired). A claim that was settled or
    /// defaulted released its earmark already.
    function releaseCoverage(bytes32 sessionId, uint256 promiseId) external {
        Session storage s = _session(sessionId);
        PromiseState storage p = _promise(promiseId);
        Pair storage pair = _pairs[sessionId][promiseId];
        if (pair.coverage != Coverage.Earmarked) revert NotCovered();
        uint256 claimId = pair.openClaimId;
        if (claimId != 0) revert ClaimAlreadyOpen(claimId);
        uint256 deadline = _claimDeadline(s, p);
        if (block.timestamp <= deadline) revert ClaimWindowOpen(deadline);
        pair.coverage = Coverage.Released;
        p.earmarks -= 1;
        emit CoverageReleased(sessionId, promiseId, p.payout, _available(p));
    }

    // ---------------------------------------------------------------- sessions

    /// @notice The caller becomes the session's provider and binds `user`, the only account that may claim. The id's
    /// top 20 bytes must be the caller's address (sdk/chain/escrow.ts scopedSessionId), so nobody who copies the
    /// transaction from the mempool can take the id first.
    /// Coverage is decided here, once: each promise in `cover` must be the caller's, not retired, and pinned to
    /// `profileHash` (else the call reverts), and each one whose free reserve holds its payout earmarks it for this
    /// session (SessionCovered, covered = true). Only a claim on this session can spend that earmark, and nothing
    /// the provider does later (self-claims on other sessions, retiring, withdrawing) can take it back. A promise
    /// short of free reserve leaves the session uncovered by it, visibly: SessionCovered with covered = false, and
    /// coverageOf says None. An empty `cover` opens a session no promise covers.
    function openSession(bytes32 sessionId, address user, uint256 profileHash, uint256[] calldata cover) external {
        _field(profileHash);
        if (address(bytes20(sessionId)) != msg.sender) revert ForeignSessionId(sessionId, msg.sender);
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
        for (uint256 i; i < cover.length; ++i) _earmark(sessionId, cover[i], profileHash);
    }

    /// @notice Folds (n, root) into the session's accumulator: acc = Poseidon(acc, n, root), where root is the
    /// provider's chain head over its first n records (the circuit checks it). Provider only, before close, with n
    /// strictly increasing from 1 (lastN starts at 0) and within the budget: the k-th entry needs
    /// n > (k - 1) * CHECKPOINT_INTERVAL. No other limit: the budget alone keeps the entries within the circuits'.
    function checkpoint(bytes32 sessionId, uint32 n, uint256 root) external {
        _field(root);
        Session storage s = _sessions[sessionId];
        if (s.provider != msg.sender) revert NotProvider();
        uint256 word = s.accWord;
        if (word & CLOSED != 0) revert AlreadyClosed(sessionId);
        uint256 acc = _foldBeforeClose(s, word, n, root);
        emit Checkpointed(sessionId, n, root, acc);
    }

    /// @notice The session's user posts a receipt: the provider's EIP-712 signature (RECEIPT_TYPEHASH under
    /// DOMAIN_SEPARATOR) over (sessionId, n, root), its chain head after n records. It folds into acc as a checkpoint
    /// does, acc = Poseidon(acc, n, root), so a provider that signed n records can no longer commit to fewer or to
    /// another history and prove it. The caller says which of two kinds it posts:
    ///  - spare = false: before close only, with a checkpoint's rules (n > lastN, the budget) and effects;
    ///    closeSession then refuses any final n below it (FinalBelowCheckpoint). A rule that fails reverts with its
    ///    own error, and nothing is spent;
    ///  - spare = true: the session's one spare entry, the slot checkpointSlots reserves, with any n >= 1 and
    ///    neither ordering nor budget: before close at any time; after close before RECEIPT_WINDOW has passed, or
    ///    later as long as no claim on the session has been filed (SpareReceiptTooLate otherwise). Before close an
    ///    n above lastN raises lastN; after close an n above finalN leaves acc with an entry no proof over finalN
    ///    records can match, and a head of another history matches no row of the final trace either: claims
    ///    default and pay.
    /// The kind is the caller's, never inferred: were a receipt that fails the rules taken as the spare, a provider
    /// could spend the user's spare by front-running its receipt with a checkpoint, and then close short or commit
    /// another history with nothing left to show it. A user's best move is one spare after close, for its
    /// highest n: it shows truncation (n > finalN) and rewriting (its head is no row of the final trace) alike, and
    /// settle() waits RECEIPT_WINDOW after close for it, so the provider cannot close and settle in one block.
    /// The deadline keeps the provider's whole proving time free of it: no proof can land before closedAt +
    /// RECEIPT_WINDOW, and from then on a claimed session's acc cannot change, so every proof of a claim lands in
    /// [max(filedAt, closedAt + RECEIPT_WINDOW), filedAt + PROOF_WINDOW) on a fixed fold. A claim filed later than
    /// a spare is proven against it from the start. A user who filed before close and holds a receipt posts its
    /// spare within RECEIPT_WINDOW of close: once any claim is filed the freeze also holds for later claims.
    /// @param v 27 or 28; (r, s) with s in the lower half of the curve order (sdk/core/receipt.ts normalises).
    function postReceipt(bytes32 sessionId, uint32 n, uint256 root, bool spare, uint8 v, bytes32 r, bytes32 s)
        external
    {
        _field(root);
        Session storage sess = _session(sessionId);
        if (msg.sender != sess.user) revert NotUser();
        uint256 word = sess.accWord;
        bool closed = word & CLOSED != 0;
        uint32 lastN = sess.lastN;
        uint32 count = sess.checkpointCount;
        uint8 flags;
        if (spare) {
            flags = sess.flags;
            if (flags & SPARE_RECEIPT != 0) revert SpareReceiptUsed(sessionId);
            if (n == 0) revert EmptyReceipt();
            // Frozen once settlement is open on a claimed session: a spare then would void proofs the provider
            // is building within its PROOF_WINDOW (settle and the segment path read acc from storage).
            if (closed && flags & CLAIMED != 0) {
                uint256 deadline = uint256(sess.closedAt) + RECEIPT_WINDOW;
                if (block.timestamp >= deadline) revert SpareReceiptTooLate(deadline);
            }
        } else {
            if (closed) revert AlreadyClosed(sessionId);
            _requireRules(n, lastN, count);
        }
        // The signer must be the provider stored at openSession: never an address from the caller.
        if (_recover(receiptDigest(sessionId, n, root), v, r, s) != sess.provider) revert BadReceiptSignature();

        uint256 acc = _poseidon3(word & ACC_MASK, n, root);
        // lastN is closeSession's floor: before close it follows the highest n folded, the spare's included; after
        // close it is left as the last bound before close (the event carries this n). Entries under the budget
        // before close number at most ceil(lastN / interval) (the k-th needs n > (k - 1) * interval, and n <=
        // lastN), the spare adds one, and lastN <= finalN <= capacity of the verifier settle() picks: every session
        // fits checkpointSlots(capacity) = ceil(capacity / interval) + 1 entries. The count cannot overflow: 2^32 - 1
        // entries would take as many transactions.
        if (!closed && n > lastN) sess.lastN = n;
        sess.checkpointCount = count + 1;
        if (spare) sess.flags = flags | SPARE_RECEIPT;
        sess.accWord = acc | (word & (OPENED | CLOSED));
        emit ReceiptPosted(sessionId, n, root, acc, spare);
    }

    /// @notice The final commitment: once, provider only, n at least the last checkpoint's. It starts the
    /// session's CLAIM_WINDOW.
    function closeSession(bytes32 sessionId, uint32 n, uint256 root) external {
        _field(root);
        Session storage s = _sessions[sessionId];
        if (s.provider != msg.sender) revert NotProvider();
        uint256 word = s.accWord;
        if (word & CLOSED != 0) revert AlreadyClosed(sessionId);
        if (n < s.lastN) revert FinalBelowCheckpoint(n, s.lastN);
        s.finalN = n;
        s.closedAt = uint40(block.timestamp);
        s.finalRoot = root;
        s.accWord = word | CLOSED;
        emit SessionClosed(sessionId, n, root, word & ACC_MASK);
    }

    // ---------------------------------------------------------------- claims

    /// @notice The session's user claims that the session violated the promise, with a bond. The promise must
    /// cover the session (its payout earmarked for it at openSession), the claim window must be open, and the pair
    /// must be neither resolved nor already claimed. The claim is paid from the session's own earmark, so no other
    /// claim (a provider's self-claim on a sock-puppet session included) can leave it unpaid or front-run it.
    function fileClaim(bytes32 sessionId, uint256 promiseId) external payable returns (uint256 claimId) {
        Session storage s = _session(sessionId);
        if (msg.sender != s.user) revert NotUser();
        if (msg.value == 0) revert ZeroValue();
        if (msg.value > type(uint128).max) revert AmountTooLarge(msg.value);
        PromiseState storage p = _promise(promiseId);
        Pair storage pair = _pairs[sessionId][promiseId];
        Coverage coverage = pair.coverage;
        if (coverage == Coverage.Resolved) revert PairResolved();
        if (coverage == Coverage.None) revert NotCovered();
        // Released comes only after the deadline, so it fails here.
        uint256 deadline = _claimDeadline(s, p);
        if (block.timestamp > deadline) revert ClaimWindowClosed(deadline);
        if (pair.openClaimId != 0) revert ClaimAlreadyOpen(pair.openClaimId);

        claimId = ++claimCount;
        pair.openClaimId = uint64(claimId);
        uint8 flags = s.flags;
        if (flags & CLAIMED == 0) s.flags = flags | CLAIMED;
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

    /// @notice Settles an open claim with a proof against the session's final commitment, within PROOF_WINDOW of
    /// filing. Anyone may submit it, for either outcome; the outcome is a public input, so nobody can pick it.
    /// violated: the user gets payout + bond out of the session's earmark.
    /// satisfied: the provider gets the bond. Either way the pair is resolved for good.
    /// @param proof [a0, a1, b00, b01, b10, b11, c0, c1] in snarkjs `exportSolidityCallData` order.
    function settle(uint256 claimId, uint256[8] calldata proof, bool violated) external {
        // The user's last word first: a receipt posted within RECEIPT_WINDOW of close still binds the proof.
        (Claim storage c, bytes32 sessionId, uint256 promiseId, Session storage s) = _provableClaim(claimId);
        PromiseState storage p = _promises[promiseId];
        _checkProof(sessionId, promiseId, s, p, proof, violated);
        _settleProven(claimId, c, sessionId, promiseId, s, p, violated);
    }

    /// @notice No proof within PROOF_WINDOW of filing: the user gets payout + bond, whoever calls. This is also
    /// the only answer to a session without a final commitment, which no proof can settle ("missing evidence
    /// pays without provider action"). The payout was earmarked when the session opened, so the reserve holds it.
    function claimDefault(uint256 claimId) external {
        Claim storage c = _claims[claimId];
        if (c.status != ClaimStatus.Open) revert ClaimNotOpen(claimId);
        uint256 endsAt = uint256(c.filedAt) + PROOF_WINDOW;
        if (block.timestamp < endsAt) revert ProofWindowOpen(endsAt);
        uint256 promiseId = c.promiseId;
        PromiseState storage p = _promises[promiseId];
        uint112 payout = p.payout;
        uint112 reserve = p.reserve;
        if (reserve < payout) revert InsufficientReserve(reserve, payout);

        p.reserve = reserve - payout;
        p.earmarks -= 1;
        c.status = ClaimStatus.Defaulted;
        bytes32 sessionId = c.sessionId;
        _resolve(sessionId, promiseId);
        address claimant = _sessions[sessionId].user;
        uint256 amount = uint256(payout) + c.bond;
        _credit(claimant, amount);
        emit ClaimDefaulted(claimId, claimant, amount);
    }

    // ---------------------------------------------------------------- payments

    /// @notice Sends the caller everything credited to it. The credit is zeroed before the transfer, so a
    /// receiver that re-enters finds nothing left; a receiver that rejects ether reverts the whole call.
    function withdraw() external {
        uint256 raw = _creditsPlusOne[msg.sender];
        if (raw <= 1) revert NothingToWithdraw();
        uint256 amount = raw - 1;
        _creditsPlusOne[msg.sender] = 1;
        emit Withdrawn(msg.sender, amount);
        (bool ok, ) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }

    // ---------------------------------------------------------------- internals

    /// openSession's check and earmark of one covering promise (see openSession).
    function _earmark(bytes32 sessionId, uint256 promiseId, uint256 profileHash) private {
        PromiseState storage p = _promise(promiseId);
        if (p.provider != msg.sender) revert ProviderMismatch();
        if (p.retiredNonce != 0) revert PromiseIsRetired(promiseId);
        if (p.profileHash != profileHash) revert ProfileMismatch();
        Pair storage pair = _pairs[sessionId][promiseId];
        if (pair.coverage != Coverage.None) revert DuplicateCover(promiseId);
        uint256 payout = p.payout;
        uint256 available = _available(p);
        bool covered = available >= payout;
        if (covered) {
            pair.coverage = Coverage.Earmarked;
            p.earmarks += 1;
            available -= payout;
        }
        emit SessionCovered(sessionId, promiseId, covered, covered ? payout : 0, available);
    }

    /// Reverts with InvalidProof unless the promise's verifier for the session's size accepts `proof` against the
    /// public inputs built from storage.
    function _checkProof(
        bytes32 sessionId,
        uint256 promiseId,
        Session storage s,
        PromiseState storage p,
        uint256[8] calldata proof,
        bool violated
    ) private view {
        (uint256[6] memory inputs, uint32 finalN) = _publicInputs(sessionId, promiseId, s, p, violated);
        (address verifier, ) = _verifierFor(p, finalN);
        if (!_verify(verifier, proof, inputs)) revert InvalidProof();
    }

    /// A checkpoint's fold before close: the rules (_requireRules), then acc = Poseidon(acc, n, root). Writes slot 0
    /// and accWord only. postReceipt applies the same rules to a receipt that is not the spare, with the same effects.
    function _foldBeforeClose(Session storage s, uint256 word, uint32 n, uint256 root) private returns (uint256 acc) {
        uint32 lastN = s.lastN;
        uint32 count = s.checkpointCount;
        _requireRules(n, lastN, count);

        acc = _poseidon3(word & ACC_MASK, n, root);
        s.lastN = n;
        s.checkpointCount = count + 1;
        s.accWord = acc | OPENED;
    }

    /// A checkpoint's rules: n strictly above lastN, and within the budget, n > count * interval (in 256 bits, so the
    /// product cannot wrap). _requireRules says which one fails.
    function _followsRules(uint32 n, uint32 lastN, uint32 count) private view returns (bool) {
        return n > lastN && uint256(n) > uint256(count) * CHECKPOINT_INTERVAL;
    }

    function _requireRules(uint32 n, uint32 lastN, uint32 count) private view {
        if (n <= lastN) revert CheckpointNotIncreasing(n, lastN);
        uint32 interval = CHECKPOINT_INTERVAL;
        if (uint256(n) <= uint256(count) * interval) revert CheckpointBudget(n, count, interval);
    }
}
