// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {InitializableERC20} from "./InitializableERC20.sol";

/// @notice Deploys EIP-1167 minimal proxies of one InitializableERC20, the pattern token launchpads
/// use; the explorer has to see through the 45-byte runtime code to the implementation's ABI.
contract CloneFactory {
    address public immutable implementation;

    event CloneCreated(address indexed clone, address indexed implementation, string symbol);

    constructor(address implementation_) {
        implementation = implementation_;
    }

    function createClone(
        string calldata name_,
        string calldata symbol_,
        uint8 decimals_,
        address owner_,
        uint256 initialSupply
    ) external returns (address clone) {
        clone = Clones.clone(implementation);
        InitializableERC20(clone).initialize(name_, symbol_, decimals_, owner_, initialSupply);
        emit CloneCreated(clone, implementation, symbol_);
    }
}
