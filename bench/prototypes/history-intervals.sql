-- Prototype, not the shipped design: holders of a 10,000,000-holder token at any past block
-- with no snapshot, measured for issue 13 (BENCHMARKS.md, "Holders at a past block").
--
-- Each kept balance is an interval: the value a balance held from the block that set it to
-- the block that changed it (`hist`), while the current value stays the live row with the
-- exact block of its last change (`live`). The holders at N are the live rows set at or
-- before N plus the intervals that span N; both tables carry a page index in the holders
-- order with the blocks included, so a page at N is two index range scans merged, skipping
-- what is not valid at N: no pass over the token's history, cold or warm.
--
--   psql -d <scratch database> -f bench/prototypes/history-intervals.sql
--
-- Synthetic history: 10M holders, each set once at a uniform block of 1M, half of them set
-- again at a later block (5M closed intervals).
\timing on
SET maintenance_work_mem = '1GB';
SET work_mem = '256MB';
SET synchronous_commit = off;
SELECT setseed(0.42);
CREATE TABLE h AS
  SELECT i, substring(sha256(int8send(i)) FROM 1 FOR 20) AS holder, floor(random() * 1000000)::bigint AS a,
         random() < 0.5 AS twice,
         floor(1e15 * power(1 - random(), -1.2))::numeric(78,0) AS v1,
         floor(1e15 * power(1 - random(), -1.2))::numeric(78,0) AS v2
  FROM generate_series(1, 10000000) i;
ALTER TABLE h ADD COLUMN b bigint;
UPDATE h SET b = a + floor(random() * (1000000 - a))::bigint WHERE twice;
CREATE TABLE live (token bytea, holder bytea, value numeric(78,0), block bigint);
INSERT INTO live SELECT '\x01'::bytea, holder, CASE WHEN twice THEN v2 ELSE v1 END, CASE WHEN twice THEN b ELSE a END FROM h;
CREATE TABLE hist (token bytea, holder bytea, value numeric(78,0), from_block bigint, to_block bigint);
INSERT INTO hist SELECT '\x01'::bytea, holder, v1, a, b FROM h WHERE twice AND b > a;
CREATE INDEX live_page ON live (token, value DESC, holder DESC) INCLUDE (block);
CREATE INDEX hist_page ON hist (token, value DESC, holder DESC) INCLUDE (from_block, to_block);
VACUUM ANALYZE live;
VACUUM ANALYZE hist;
SELECT pg_size_pretty(pg_relation_size('hist')) AS hist_heap, pg_size_pretty(pg_relation_size('hist_page')) AS hist_page_index;

-- A page at N after the cursor (cv, ch): the first page passes (1e80, '\xff').
PREPARE page_at(bigint, numeric, bytea) AS
SELECT holder, value FROM (
  (SELECT holder, value FROM live WHERE token = '\x01' AND block <= $1 AND (value, holder) < ($2, $3)
   ORDER BY value DESC, holder DESC LIMIT 51)
  UNION ALL
  (SELECT holder, value FROM hist WHERE token = '\x01' AND from_block <= $1 AND to_block > $1 AND (value, holder) < ($2, $3)
   ORDER BY value DESC, holder DESC LIMIT 51)
) u ORDER BY value DESC, holder DESC LIMIT 51;
-- 10 %, 50 % and 90 % of the way back: first pages
EXPLAIN (ANALYZE, BUFFERS) EXECUTE page_at(900000, 1e80, '\xff');
EXPLAIN (ANALYZE, BUFFERS) EXECUTE page_at(500000, 1e80, '\xff');
EXPLAIN (ANALYZE, BUFFERS) EXECUTE page_at(100000, 1e80, '\xff');
