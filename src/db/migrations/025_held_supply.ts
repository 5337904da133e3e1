// A token's supply kept in step with its balances (outside review: `total_supply` was the
// contract's answer when the metadata was read, never updated, so a WETH's supply and every
// holder's share of it went stale with the first deposit after). `held_supply` is the sum of
// the positive balances of every holder but the zero address, which is what `totalSupply()`
// returns for a token that mints from and burns to it; the balance writes keep it as they keep
// `holder_count` (write-balances.ts), so the token object, the web page's shares and the
// Etherscan-style supply read one column instead of summing the holders.
export const sql = /* sql */ `
ALTER TABLE tokens ADD COLUMN held_supply numeric(78,0) NOT NULL DEFAULT 0;

UPDATE tokens t SET held_supply = s.total
FROM (SELECT chain_id, token, sum(value) AS total FROM token_balances
      WHERE value > 0 AND holder <> '\\x0000000000000000000000000000000000000000'::bytea
      GROUP BY chain_id, token) s
WHERE s.chain_id = t.chain_id AND s.token = t.address;
`;
