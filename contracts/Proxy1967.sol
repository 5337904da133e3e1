// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";

/// @notice Plain OpenZeppelin ERC1967Proxy under a local name so it gets its own artifact. Deploy it
/// with an InitializableERC20 implementation and `initialize` calldata; upgrades go through the
/// implementation's UUPS `upgradeToAndCall`.
contract Proxy1967 is ERC1967Proxy {
    constructor(address implementation, bytes memory data) payable ERC1967Proxy(implementation, data) {}
}
