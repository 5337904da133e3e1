// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Contracts whose calls never answer: every call runs out of gas. Any unprivileged deployer can
// make one; the indexer must treat that as the contract's answer, not as a node fault to retry.

/** Emits whatever Transfer its caller asks for; balanceOf and name run out of gas. */
contract GasBombToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    uint256 private spent;

    function emitTransfer(address from, address to, uint256 value, uint256 times) external {
        for (uint256 i = 0; i < times; i++) emit Transfer(from, to, value);
    }

    function balanceOf(address) external view returns (uint256) {
        return burn();
    }

    function name() external view returns (string memory) {
        burn();
        return "never";
    }

    function burn() private view returns (uint256 x) {
        while (gasleft() > 0) x += spent + 1;
    }
}

/** A WETH-style Deposit from a contract whose totalSupply and decimals run out of gas. */
contract GasBombDeposit {
    event Deposit(address indexed dst, uint256 wad);
    uint256 private spent;

    function emitDeposit(address dst, uint256 wad) external {
        emit Deposit(dst, wad);
    }

    function totalSupply() external view returns (uint256) {
        return burn();
    }

    function decimals() external view returns (uint8) {
        burn();
        return 18;
    }

    function burn() private view returns (uint256 x) {
        while (gasleft() > 0) x += spent + 1;
    }
}

/**
 * Emits whatever Transfer its caller asks for; balanceOf asks for more memory than gas can be
 * counted for (a length that underflowed), which revm reports as `InvalidOperandOOG`, not `OutOfGas`.
 */
contract OperandBombToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    function emitTransfer(address from, address to, uint256 value) external {
        emit Transfer(from, to, value);
    }

    function balanceOf(address) external pure returns (uint256) {
        assembly {
            calldatacopy(0, 0, sub(calldatasize(), 160))
        }
        return 0;
    }
}
