// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/**
 * A wrapper that says each wrap twice: the ERC-20 Transfer from (to) the zero address of its
 * base, and WETH9's Deposit (Withdrawal). It answers totalSupply() and decimals(), so it is taken
 * for a wrapped native token; its balances must be counted once.
 */
contract DoubleSaidWrap {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    mapping(address => uint256) public balanceOf;
    uint256 public totalSupply;
    uint8 public constant decimals = 18;

    function deposit() external payable {
        balanceOf[msg.sender] += msg.value;
        totalSupply += msg.value;
        emit Transfer(address(0), msg.sender, msg.value);
        emit Deposit(msg.sender, msg.value);
    }

    function withdraw(uint256 wad) external {
        balanceOf[msg.sender] -= wad;
        totalSupply -= wad;
        emit Transfer(msg.sender, address(0), wad);
        emit Withdrawal(msg.sender, wad);
        payable(msg.sender).transfer(wad);
    }
}
