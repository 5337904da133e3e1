// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A rebasing ERC-20 for tests and benchmarks, built like stETH: a balance is a share of a
/// pooled total, so `rebase` changes every holder's balance at once without a single event, while
/// mints and transfers emit the ordinary Transfer event with the token amount. Minting, moving and
/// rebasing are open to anyone on purpose: fixtures must be able to create any layout.
contract RebasingToken {
    event Transfer(address indexed from, address indexed to, uint256 value);

    error LengthMismatch();
    error InsufficientBalance(address holder, uint256 balance, uint256 needed);

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    /// @notice the pooled amount all shares divide
    uint256 public totalSupply;
    uint256 public totalShares;
    mapping(address => uint256) public sharesOf;

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    function balanceOf(address holder) public view returns (uint256) {
        return totalShares == 0 ? 0 : (sharesOf[holder] * totalSupply) / totalShares;
    }

    function _sharesFor(uint256 amount) private view returns (uint256) {
        return totalShares == 0 ? amount : (amount * totalShares) / totalSupply;
    }

    /// @notice Mints `amount` to each of `to`: one Transfer from the zero address per holder.
    function mintMany(address[] calldata to, uint256 amount) external {
        for (uint256 i = 0; i < to.length; ++i) {
            uint256 shares = _sharesFor(amount);
            sharesOf[to[i]] += shares;
            totalShares += shares;
            totalSupply += amount;
            emit Transfer(address(0), to[i], amount);
        }
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    /// @notice Moves `amounts[i]` from `from[i]` to `to[i]` without allowances (fixtures only).
    function shuffle(address[] calldata from, address[] calldata to, uint256[] calldata amounts) external {
        if (from.length != to.length || to.length != amounts.length) revert LengthMismatch();
        for (uint256 i = 0; i < to.length; ++i) _move(from[i], to[i], amounts[i]);
    }

    /// @notice Moves `from`'s whole balance to `to`, as a wallet's "send max" does after a rebase.
    function moveAll(address from, address to) external {
        _move(from, to, balanceOf(from));
    }

    /// @notice Sets the pooled total: every balance changes in proportion, and no event says so.
    function rebase(uint256 newTotalSupply) external {
        totalSupply = newTotalSupply;
    }

    function _move(address from, address to, uint256 amount) private {
        uint256 balance = balanceOf(from);
        if (amount > balance) revert InsufficientBalance(from, balance, amount);
        uint256 shares = amount == balance ? sharesOf[from] : _sharesFor(amount);
        sharesOf[from] -= shares;
        sharesOf[to] += shares;
        emit Transfer(from, to, amount);
    }
}
