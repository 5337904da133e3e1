// Every page row is decorated by an equality probe into addresses. A hash index answers it in
// one or two page reads where the primary key's B-tree walks three levels: at 10M holders the
// holders statement's probes went from 161 to 71 buffer reads and its execution from 0.65 to
// 0.37 ms (BENCHMARKS.md). Hash indexes are WAL-logged and crash-safe since PostgreSQL 10.
export const sql = /* sql */ `
CREATE INDEX addresses_by_hash ON addresses USING hash (hash);
`;
