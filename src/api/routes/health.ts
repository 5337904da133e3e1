import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Registry, RegistryRead } from '../registry.js';
import type { ChainStatus } from '../../db/queries/chains.js';
import type { LockWait } from '../../db/queries/lock-waits.js';
import { StatementTimeoutError } from '../../db/client.js';
import { isConnectionFailure, isPoolExhausted } from '../../db/unavailable.js';
import { renderedAtMostEvery } from '../render-cache.js';
import type { ShutdownDrain } from '../shutdown-drain.js';
import { ChainHealth, Health, HealthQuery, chainIdsOf, type HealthBody } from '../schemas/health.js';

export interface HealthThresholds {
  /** blocks behind the node before a chain is degraded; 0: never */
  maxLag: number;
  /** ms without the indexer reaching its node before a chain is degraded; 0: never */
  staleMs: number;
}

const FAILURES: Record<string, string> = {
  rpc: 'the RPC node failed',
  database: 'the database failed',
  'disk-full': "the database's disk is full: free space where it keeps its data (the data directory, or the PostgreSQL server's)",
  settings: "the chain's settings do not fit its node's blocks (see the indexer log)",
  internal: 'an internal error (see the indexer log)',
  stopped: 'the indexer stopped on an error it does not retry (see its log); the other chains go on',
};

const asNumber = (v: bigint | null) => (v === null ? null : Number(v));

const NOT_CHECKED_IN = 'the indexer has not checked in for';

/** A lock wait in the database, as the reason of a chain whose indexer has not checked in. */
const lockWaitText = ({ waitedS, holder }: LockWait) =>
  `a session of the database has waited ${waitedS} s for a lock that pid ${holder.pid} holds (application ${holder.application}, ${holder.state}, its transaction open ${holder.transactionS} s)`;

/** Seconds since `since`, when they are past the staleness limit; else (or with no `since`) null. */
function pastStaleLimit(since: number | null, limits: HealthThresholds, now: number): number | null {
  if (since === null || limits.staleMs <= 0 || now - since <= limits.staleMs) return null;
  return Math.round((now - since) / 1000);
}

const limitText = (limits: HealthThresholds) => `(limit ${limits.staleMs / 1000} s)`;

/**
 * How long a parent chain's node has not been reached, past the staleness limit: the reason,
 * else null. Never polled: nothing was ever reached to go stale.
 */
function silence(polledAt: number | null, limits: HealthThresholds, now: number, what: string): string | null {
  const seconds = pastStaleLimit(polledAt, limits, now);
  return seconds === null ? null : `${what} has not reached its node for ${seconds} s ${limitText(limits)}`;
}

/**
 * An Arbitrum chain's parent follower: shown, never judged (the chain is served without it),
 * but a parent node out of reach is said, since its head and lag are as of the last poll.
 */
function parentHealth(p: NonNullable<ChainStatus['parent']>, limits: HealthThresholds, now: number) {
  const stale = silence(p.polledAt, limits, now, 'the parent chain follower');
  return {
    indexed_block: asNumber(p.indexedBlock),
    head_block: asNumber(p.headBlock),
    lag: p.indexedBlock === null || p.headBlock === null ? null : Number(p.headBlock - p.indexedBlock),
    polled_at: p.polledAt === null ? null : new Date(p.polledAt).toISOString(),
    reasons: stale === null ? [] : [`${stale}: head_block and lag are as of polled_at`],
  };
}

/** One chain's health from what the indexer left in the database. */
export function chainHealth(c: ChainStatus, limits: HealthThresholds, now = Date.now()): Static<typeof ChainHealth> {
  const lag = c.indexedBlock === null || c.headBlock === null ? null : c.headBlock - c.indexedBlock;
  const reasons: string[] = [];
  if (c.failingSince !== null) {
    reasons.push(`indexing has been failing since ${c.failingSince.toISOString()}: ${FAILURES[c.failure ?? ''] ?? c.failure}`);
    // a negative lag, said in words where it explains the failure (a reset node, another chain
    // at the URL); on a working chain it is a reorg to a shorter branch, rolled back in a moment
    if (lag !== null && lag < 0n) reasons.push(`the node's head (${c.headBlock}) is below the indexed block (${c.indexedBlock}): the node was reset, or the URL now serves another chain`);
  }
  // (its heartbeat is stamped as each step starts with the node's head: a step that hangs ages it
  // as a node out of reach does, and the operator must be sent to both)
  const silent = pastStaleLimit(c.polledAt, limits, now);
  if (silent !== null) {
    reasons.push(`${NOT_CHECKED_IN} ${silent} s ${limitText(limits)}: its node out of reach, or a step stuck (a database lock waited on, a call that hangs)`);
  }
  // added to be indexed, and its node never reached since: as silent as a stopped indexer (a
  // chain with blocks but never polled was filled elsewhere: not judged; addedAt is null then)
  const waiting = c.polledAt === null ? pastStaleLimit(c.addedAt, limits, now) : null;
  if (waiting !== null) reasons.push(`the indexer has not reached its node since the chain was added ${waiting} s ago ${limitText(limits)}`);
  if (limits.maxLag > 0 && lag !== null && lag > BigInt(limits.maxLag)) {
    reasons.push(`indexing is ${lag} blocks behind the node (limit ${limits.maxLag})`);
  }
  // the node reached, its head known, and not one block committed yet: as far behind as can be
  // (the start block, which the API does not know, makes the lag unknown)
  if (limits.maxLag > 0 && c.indexedBlock === null && c.headBlock !== null) {
    reasons.push(`nothing indexed yet; the node's head is block ${c.headBlock}`);
  }
  return {
    chain_id: c.chainId,
    status: reasons.length === 0 ? 'ok' : 'degraded',
    indexed_block: asNumber(c.indexedBlock),
    head_block: asNumber(c.headBlock),
    // on a working chain a head below the index is a reorg being rolled back, or a provider's
    // backend behind the one that gave the blocks: 0 blocks behind, not a negative count for
    // dashboards to chart (L2-provider review); a failing chain keeps the figure its reason explains
    lag: asNumber(lag !== null && lag < 0n && c.failingSince === null ? 0n : lag),
    polled_at: c.polledAt === null ? null : new Date(c.polledAt).toISOString(),
    reasons,
    backfilling: c.backfilling,
    ...(c.parent ? { parent: parentHealth(c.parent, limits, now) } : {}),
  };
}

const DATABASE_DOWN = 'the database cannot be reached';

/** A read of the chains waiting this long says the database is not answering this process. */
const SILENCE_MS = 5_000;

/**
 * How long /health waits for a due read of the chains, by the age of the last one: a second
 * while that one is recent (a hung database still gets its answer at once), and otherwise as
 * a second past SILENCE_MS (so that a pool's own 5-s wait for a connection ends first and is
 * said as such), since a `polled_at` read a while ago (the first probe after a quiet spell)
 * would be judged as old as that read (operator review: every probe a minute apart was a 503).
 */
const readWait = (ageMs: number) => (ageMs <= RECENT_READ_MS ? 1_000 : SILENCE_MS + 1_000);
const RECENT_READ_MS = 5_000;

const unavailable = (reason: string): HealthBody => ({ status: 'unavailable', reasons: [reason], chains: [] });

const DRAINING = unavailable('this server is shutting down (SIGTERM): it answers requests until they stop coming, then closes');

/**
 * Why the database is not answering this process, from its last read of the chains; null when
 * it answers. A pool that gave no connection in time (every one busy with pages) is said apart
 * from a database out of reach: the operator's remedy differs.
 */
function databaseSilence(read: RegistryRead): string | null {
  if (read.waitingMs >= SILENCE_MS) return `the database has not answered for ${Math.round(read.waitingMs / 1000)} s`;
  const failure = read.failure;
  if (failure instanceof StatementTimeoutError) return 'the database did not answer within the statement timeout';
  if (isPoolExhausted(failure)) return "every database connection of this process stayed busy: none came free within the pool's wait";
  return isConnectionFailure(failure) ? DATABASE_DOWN : null;
}

/** How long one answer is reused: polled by load balancers and anyone else, without a key. */
const CACHE_MS = 1_000;

/** The chains a request asks about: every chain, or the listed ones (each a degraded entry when this database has none). */
function narrowed(health: HealthBody, chainIds: readonly number[] | null): HealthBody {
  if (health.status === 'unavailable') return health;
  let chains = health.chains;
  const reasons: string[] = [];
  if (chainIds !== null) {
    chains = chainIds.map((id) => chains.find((c) => c.chain_id === id) ?? missingChain(id));
  } else if (chains.length === 0) {
    reasons.push('no chain is indexed in this database yet');
  }
  return { status: reasons.length > 0 || chains.some((c) => c.status !== 'ok') ? 'degraded' : 'ok', reasons, chains };
}

const missingChain = (chainId: number): Static<typeof ChainHealth> => ({
  chain_id: chainId,
  status: 'degraded',
  indexed_block: null,
  head_block: null,
  lag: null,
  polled_at: null,
  reasons: ['this chain is not indexed in this database'],
  backfilling: false,
});

/**
 * Outside the keyed scope: load balancers and operators poll it. 200 when every chain is
 * served as it should be; 503 when one is degraded (its indexer failing, silent or too far
 * behind) or the database cannot be reached, so a load balancer takes the node out. It reads
 * only the registry's cached chain list, and one answer serves every request for a second.
 */
export function healthRoute(
  app: FastifyInstance,
  registry: Registry,
  limits: HealthThresholds,
  drain: ShutdownDrain,
  /** the database's longest lock wait, asked only while a chain's indexer has not checked in */
  lockWait: () => Promise<LockWait | null> = async () => null,
): void {
  const evaluate = async (): Promise<HealthBody> => {
    let read: RegistryRead;
    try {
      read = await registry.lastRead(readWait);
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      return unavailable(DATABASE_DOWN);
    }
    const silent = databaseSilence(read);
    if (silent !== null) return unavailable(silent);
    // judged as of the read: a heartbeat is as stale as it was then, not as that read is now
    const readAt = Date.now() - read.ageMs;
    const health = read.chains.map((c) => chainHealth(c, limits, readAt));
    // (at most once a CACHE_MS, and only then: a silent indexer may be waiting on a lock, and the
    // holder is what the operator must find)
    const unheard = health.filter((c) => c.reasons.some((r) => r.startsWith(NOT_CHECKED_IN)));
    const wait = unheard.length > 0 ? await lockWait().catch(() => null) : null;
    if (wait !== null) for (const c of unheard) c.reasons.push(lockWaitText(wait));
    return { status: health.some((c) => c.status !== 'ok') ? 'degraded' : 'ok', reasons: [], chains: health };
  };
  const current = renderedAtMostEvery(CACHE_MS, evaluate);
  app.get<{ Querystring: HealthQuery }>(
    '/health',
    {
      schema: {
        summary: 'Service and indexing status',
        description:
          '200 when every chain (or every chain of `chain_id`) is served as it should be; 503 when one is degraded, when the database cannot be reached, when no chain is indexed yet, or while the server drains before it stops.',
        tags: ['service'],
        querystring: HealthQuery,
        response: { 200: Health, 503: Health },
      },
    },
    async (request, reply) => {
      if (drain.draining) return reply.code(503).send(DRAINING);
      const health = narrowed(await current(), chainIdsOf(request.query.chain_id));
      return reply.code(health.status === 'ok' ? 200 : 503).send(health);
    },
  );
}
