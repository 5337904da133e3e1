// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @notice ERC-721 for tests and the devnet; mint/burn are unrestricted so fixtures need no owner key.
contract TestERC721 is ERC721 {
    string private _base;

    constructor(string memory name_, string memory symbol_, string memory baseURI_) ERC721(name_, symbol_) {
        _base = baseURI_;
    }

    function _baseURI() internal view override returns (string memory) {
        return _base;
    }

    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }

    /// @dev Exercises onERC721Received, so tests can cover the "safe" path too.
    function safeMint(address to, uint256 tokenId) external {
        _safeMint(to, tokenId);
    }

    /// @dev Burns without an ownership check (address(0) skips authorization).
    function burn(uint256 tokenId) external {
        _update(address(0), tokenId, address(0));
    }
}
