// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice Stand-in for a snarkjs Groth16 segment verifier (3 public signals) in escrow unit tests: MockVerifier.sol
/// with the segment circuits' [claimDigest, stateIn, stateOut].
/// @dev The escrow calls verifiers with STATICCALL, so a verifier cannot write storage (or emit logs) while
/// verifying, and "recording the last inputs" from inside verifyProof is impossible. Instead a test arms the
/// mock with the exact proof words and public inputs it expects: in strict mode it accepts only those, so a
/// proveSegment() that succeeds proves the escrow passed exactly them.
contract MockVerifier3 {
    bool public result = true;
    bool public strict;
    uint256[8] public expectedProof;
    uint256[3] public expectedInputs;

    event ResultSet(bool result);
    event Expected(uint256[8] proof, uint256[3] inputs);
    event StrictCleared();

    function setResult(bool result_) external {
        result = result_;
        emit ResultSet(result_);
    }

    /// Accept only this proof and these public inputs from now on (and only if `result` is true).
    function expect(uint256[8] calldata proof, uint256[3] calldata inputs) external {
        expectedProof = proof;
        expectedInputs = inputs;
        strict = true;
        emit Expected(proof, inputs);
    }

    function clearExpectation() external {
        strict = false;
        emit StrictCleared();
    }

    function verifyProof(
        uint256[2] calldata pA,
        uint256[2][2] calldata pB,
        uint256[2] calldata pC,
        uint256[3] calldata pubSignals
    ) external view returns (bool) {
        if (!result) return false;
        if (!strict) return true;
        uint256[8] memory proof = [pA[0], pA[1], pB[0][0], pB[0][1], pB[1][0], pB[1][1], pC[0], pC[1]];
        for (uint256 i; i < 8; ++i) if (proof[i] != expectedProof[i]) return false;
        for (uint256 i; i < 3; ++i) if (pubSignals[i] != expectedInputs[i]) return false;
        return true;
    }

    /// The batch entry point of a rendered segment verifier: `result` for a well-shaped batch, any proof words
    /// (strict mode is for verifyProof; the batch itself is tested on real proofs, test/contracts/segment-batch).
    function verifyChain(uint256, uint256[] calldata states, uint256[] calldata proofs) external view returns (bool) {
        return result && states.length >= 2 && proofs.length == 8 * (states.length - 1);
    }
}
