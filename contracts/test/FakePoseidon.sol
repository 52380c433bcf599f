// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice A Poseidon(3) impostor with the right ABI that hashes everything to 0, which would make every checkpoint
/// list fold to one accumulator. The escrow's constructor must refuse it (test/contracts/poseidon-parity.test.ts).
contract FakePoseidon {
    function poseidon(uint256[3] calldata) external pure returns (uint256) {
        return 0;
    }
}
