// An address's holdings (the Etherscan-style addresstokenbalance and addresstokennftbalance):
// its positive balances in token order, so a page is one range scan however many tokens the
// address holds. Partial on value > 0 like token_balances_page: zero balances never enter it.
export const sql = /* sql */ `
CREATE INDEX token_balances_by_holder ON token_balances (chain_id, holder, token, token_id) INCLUDE (value) WHERE value > 0;
`;
