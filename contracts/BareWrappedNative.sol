// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A wrapped native token with WETH's Deposit/Withdrawal events and balances but without
/// totalSupply() or decimals(): the events alone do not tell it from a vault, so an explorer counts
/// its wraps only when it is configured as wrapped native (`wrappedNativeTokens`).
contract BareWrappedNative {
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    mapping(address => uint256) public balanceOf;

    receive() external payable {
        deposit();
    }

    function deposit() public payable {
        balanceOf[msg.sender] += msg.value;
        emit Deposit(msg.sender, msg.value);
    }

    function withdraw(uint256 wad) external {
        require(balanceOf[msg.sender] >= wad, "insufficient balance");
        balanceOf[msg.sender] -= wad;
        payable(msg.sender).transfer(wad);
        emit Withdrawal(msg.sender, wad);
    }
}
