// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";

/// @notice ERC-20 implementation meant to live behind a proxy: an EIP-1167 clone (CloneFactory) or an
/// ERC-1967 proxy (Proxy1967). Constructor-set state would land in the implementation's storage, not
/// the proxy's, so name/symbol/decimals/owner are set by `initialize` and read from our own slots.
/// UUPS lets tests upgrade a Proxy1967 and watch its EIP-1967 slot and `Upgraded` event change.
contract InitializableERC20 is ERC20, Ownable, Initializable, UUPSUpgradeable {
    string private _tokenName;
    string private _tokenSymbol;
    uint8 private _tokenDecimals;

    constructor() ERC20("", "") Ownable(msg.sender) {
        _disableInitializers();
    }

    function initialize(
        string calldata name_,
        string calldata symbol_,
        uint8 decimals_,
        address owner_,
        uint256 initialSupply
    ) external initializer {
        _tokenName = name_;
        _tokenSymbol = symbol_;
        _tokenDecimals = decimals_;
        _transferOwnership(owner_);
        if (initialSupply > 0) _mint(owner_, initialSupply);
    }

    function name() public view override returns (string memory) {
        return _tokenName;
    }

    function symbol() public view override returns (string memory) {
        return _tokenSymbol;
    }

    function decimals() public view override returns (uint8) {
        return _tokenDecimals;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function burn(uint256 amount) external {
        _burn(msg.sender, amount);
    }

    function _authorizeUpgrade(address) internal override onlyOwner {}
}
