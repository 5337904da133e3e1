import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gauge, Registry } from 'prom-client';
import { ensureChain } from '../../src/db/queries/chains.js';
import { metricsText } from '../../src/api/metrics-server.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { availableEngines } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const ROUTE = '/:chain_id/api/v2/addresses/:address_hash_param/blocks-validated';
const path = `/1/api/v2/addresses/${addressOf(1, 'metrics')}/blocks-validated`;

/** /metrics is rendered at most once a second (metricsText): a read after that shows what came before it. */
const rendered = () => new Promise((resolve) => setTimeout(resolve, 1_050));

/** /metrics counts what the server answered, per route pattern and status: what an operator alerts on. */
describe.each(await availableEngines())('request series on /metrics (%s)', (engine) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(engine);
    await ensureChain(api.db, 1);
  });
  afterAll(() => api?.close());

  const series = async () => {
    const text = (await api.app.inject({ url: '/metrics' })).body;
    const value = (line: string) => {
      const found = text.split('\n').find((l) => l.startsWith(`${line} `));
      return found === undefined ? 0 : Number(found.slice(line.length + 1));
    };
    return {
      ok: value(`explorer_api_requests_total{route="${ROUTE}",status="200"}`),
      unauthorized: value(`explorer_api_requests_total{route="${ROUTE}",status="401"}`),
      unmatched: value('explorer_api_requests_total{route="unmatched",status="404"}'),
      timed: value(`explorer_api_request_duration_seconds_count{route="${ROUTE}"}`),
    };
  };

  it('renders the series at most once a second, and the OpenAPI document once', async () => {
    const registry = new Registry();
    const renders = { n: 0 };
    new Gauge({ name: 'renders', help: 'times collected', registers: [registry], collect() { this.set(++renders.n); } });
    const text = metricsText(registry, 200);
    const first = await Promise.all([text(), text(), text()]);
    expect(new Set(first).size).toBe(1);
    expect(renders.n).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await text()).toContain('renders 2');
    const docs = await Promise.all([1, 2].map(() => api.app.inject({ url: '/api/v2/openapi.json' })));
    expect(docs.map((d) => d.statusCode)).toEqual([200, 200]);
    expect(docs[0]!.body).toBe(docs[1]!.body);
    expect(docs[0]!.json().paths).toHaveProperty('/{chain_id}/api/v2/tokens/{address_hash_param}/holders');
  });

  it('counts each answer under its route pattern and status, and times it', async () => {
    const before = await series();
    for (let i = 0; i < 3; i++) expect((await api.get(path)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await api.app.inject({ url: `${path}?apikey=not-a-key-of-anyone-000` })).statusCode).toBe(401);
    expect((await api.app.inject({ url: '/no/such/route' })).statusCode).toBe(404);
    await rendered();
    const after = await series();
    expect({ ok: after.ok - before.ok, unauthorized: after.unauthorized - before.unauthorized, unmatched: after.unmatched - before.unmatched, timed: after.timed - before.timed }).toEqual({
      ok: 3,
      unauthorized: 2,
      unmatched: 1,
      timed: 5,
    });
  });

  it("counts the Etherscan-style API's refusals under the status they stand for, though answered 200 with NOTOK", async () => {
    const etherscan = (status: number) => `explorer_api_requests_total{route="/v2/api",status="${status}"}`;
    const count = async () => {
      const text = (await api.app.inject({ url: '/metrics' })).body;
      return (status: number) => Number(text.split('\n').find((l) => l.startsWith(`${etherscan(status)} `))?.split(' ')[1] ?? 0);
    };
    const before = await count();
    const call = (query: string) => api.app.inject({ url: `/v2/api?chainid=1&module=token&action=tokenholdercount&${query}` });
    const refusedKey = await call(`contractaddress=${addressOf(1, 'metrics')}&apikey=not-a-key-of-anyone-000`);
    expect([refusedKey.statusCode, refusedKey.json().result]).toEqual([200, 'Invalid API Key']);
    const refusedParameter = await api.app.inject({ url: `/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=0x12`, headers: { 'x-api-key': TEST_KEY } });
    expect([refusedParameter.statusCode, refusedParameter.json().message]).toEqual([200, 'NOTOK']);
    const answered = await api.app.inject({ url: `/v2/api?chainid=1&module=token&action=tokenholdercount&contractaddress=${addressOf(1, 'metrics')}`, headers: { 'x-api-key': TEST_KEY } });
    expect([answered.statusCode, answered.json().status]).toEqual([200, '1']);
    await rendered();
    const after = await count();
    expect([200, 400, 401].map((s) => after(s) - before(s))).toEqual([1, 1, 1]);
  });
});
