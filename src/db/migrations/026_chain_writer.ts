// One writer per chain, fenced (indexer/writer-lock.ts). The session advisory lock keeps a
// second writer waiting, but a writer whose lock connection is lost may still have a
// transaction in flight when the next one takes over (outside review: it committed a batch the
// new writer wrote too). So the lock's holder also writes a token of its own here, and every
// transaction of its pipeline ends by touching this row with that token: a transaction of a
// writer whose token was replaced rolls back, and one that touched the row first holds the
// takeover until it has committed.
export const sql = /* sql */ `
ALTER TABLE chains ADD COLUMN writer text;
`;
