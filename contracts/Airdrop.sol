// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestERC20} from "./TestERC20.sol";

/// @notice ERC-20 that emits many standard Transfer events per transaction, so benchmarks can build
/// chains with hundreds of thousands of transfers in a few hundred transactions. Every event is the
/// ordinary OpenZeppelin Transfer, indistinguishable from one emitted by `transfer`.
contract AirdropToken is TestERC20 {
    error LengthMismatch();

    constructor(string memory name_, string memory symbol_, uint8 decimals_) TestERC20(name_, symbol_, decimals_) {}

    /// @notice Mints `amounts[i]` to `to[i]`: Transfer events from the zero address.
    function airdrop(address[] calldata to, uint256[] calldata amounts) external {
        if (to.length != amounts.length) revert LengthMismatch();
        for (uint256 i = 0; i < to.length; ++i) {
            _mint(to[i], amounts[i]);
        }
    }

    /// @notice Moves `amounts[i]` from `from[i]` to `to[i]` without allowances: holder-to-holder
    /// Transfer events, the shape most real transfers have. Reverts on any insufficient balance.
    function shuffle(address[] calldata from, address[] calldata to, uint256[] calldata amounts) external {
        if (from.length != to.length || to.length != amounts.length) revert LengthMismatch();
        for (uint256 i = 0; i < to.length; ++i) {
            _transfer(from[i], to[i], amounts[i]);
        }
    }
}
