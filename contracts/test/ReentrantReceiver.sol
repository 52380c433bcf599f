// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice A hostile session user for escrow tests. It acts through exec() (file claims, withdraw, …); when the
/// escrow pays it, receive() re-enters the escrow once with the calldata armed by setReentry(), records the
/// outcome, and carries on. With setRejecting(true) it refuses ether instead, so withdraw() hits TransferFailed.
contract ReentrantReceiver {
    address public immutable escrow;
    bytes public reentry;
    bool public rejecting;
    uint256 public received;
    uint256 public reentries;
    bool public lastOk;
    bytes public lastReturn;
    bool private _inside;

    event ReentrySet(bytes data);
    event RejectingSet(bool rejecting);
    event Received(uint256 amount);
    event Reentered(bool ok, bytes ret);

    error Rejected();

    constructor(address escrow_) {
        escrow = escrow_;
    }

    function setReentry(bytes calldata data) external {
        reentry = data;
        emit ReentrySet(data);
    }

    function setRejecting(bool rejecting_) external {
        rejecting = rejecting_;
        emit RejectingSet(rejecting_);
    }

    /// Calls the escrow as this contract, forwarding msg.value, and bubbles up a revert unchanged.
    function exec(bytes calldata data) external payable returns (bytes memory ret) {
        bool ok;
        (ok, ret) = escrow.call{value: msg.value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
    }

    receive() external payable {
        if (rejecting) revert Rejected();
        received += msg.value;
        emit Received(msg.value);
        if (reentry.length == 0 || _inside) return;
        _inside = true;
        (bool ok, bytes memory ret) = escrow.call(reentry);
        _inside = false;
        reentries += 1;
        lastOk = ok;
        lastReturn = ret;
        emit Reentered(ok, ret);
    }
}
