import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { percentile, round } from './stats.js';

export interface PhaseSample {
  /** reply.elapsedTime: the server-side time the targets are about */
  elapsed: number;
  /** routing, key, rate limit, chain scope and validation: up to the handler */
  before_handler: number;
  /** the route handler: the page statement, row mapping and the view */
  handler: number;
  /** JSON serialization of the response */
  serialize: number;
  /** onSend to the response finished */
  send: number;
}

const PHASES = ['onRequest', 'preHandler', 'preSerialization', 'onSend'] as const;

/**
 * Where each request's server-side time goes, from Fastify's hook points, so a latency figure
 * splits into what the framework, the database round trip with the view, and serialization
 * cost. Hooks added after the routes' plugins still apply: Fastify binds them when it boots.
 */
export function phaseRecorder(app: FastifyInstance) {
  const marks = new WeakMap<FastifyRequest, number[]>();
  const samples: PhaseSample[] = [];
  PHASES.forEach((hook, i) => {
    app.addHook(hook, async (request: FastifyRequest) => {
      let m = marks.get(request);
      if (!m) marks.set(request, (m = []));
      m[i] = performance.now();
    });
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const m = marks.get(request);
    const end = performance.now();
    if (!m || m.length !== PHASES.length) return;
    const [start, handler, serialization, send] = m as [number, number, number, number];
    samples.push({ elapsed: reply.elapsedTime, before_handler: handler - start, handler: serialization - handler, serialize: send - serialization, send: end - send });
  });
  return {
    /** the samples so far, emptied */
    take: (): PhaseSample[] => samples.splice(0),
  };
}

/** p50 of each phase */
export function phaseMedians(samples: readonly PhaseSample[]): Omit<PhaseSample, 'elapsed'> {
  const p50 = (k: keyof PhaseSample) => round(percentile(samples.map((s) => s[k]), 50));
  return { before_handler: p50('before_handler'), handler: p50('handler'), serialize: p50('serialize'), send: p50('send') };
}
