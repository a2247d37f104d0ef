/** GET /_sim/metrics: the Prometheus text format, per simulator, the 50 busiest tenants only (decision 0028). */
import { describe, expect, it } from '@jest/globals';
import { register } from 'prom-client';
import request from 'supertest';
import type { Simulator } from '../../src/simulator/facade.js';
import { TOKEN_TYPE, client, createBody, createToken, handlerOf, scenarioFile, testSimulator } from '../support/sim.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition text (format 0.0.4), with the TYPE of each family. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: m[3] === '+Inf' ? Infinity : Number(m[3]) });
  }
  return { samples, types };
}

const pick = (samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

const one = (samples: Sample[], name: string, labels: Record<string, string> = {}): number => {
  const found = pick(samples, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
};

async function scrape(sim: Simulator, authorization?: string) {
  const t = request(handlerOf(sim)).get('/_sim/metrics');
  const res = await (authorization === undefined ? t : t.set('Authorization', authorization));
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(res.text);
}

describe('GET /_sim/metrics', () => {
  it('counts requests by operation and status, times them in a histogram, and reads tokens, payments and the journal', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api);
    expect((await api.get(links['tokens:token']!)).status).toBe(200);
    expect((await api.get(links['tokens:token']!)).status).toBe(200);
    expect((await api.get('http://x/tokens/nothing-here')).status).toBe(400);
    expect((await request(handlerOf(sim)).get('/tokens/nothing-here').set('Accept', TOKEN_TYPE)).status).toBe(401);

    const { samples, types } = await scrape(sim);
    expect(types.get('token_sim_requests_total')).toBe('counter');
    expect(types.get('token_sim_request_duration_seconds')).toBe('histogram');
    expect(pick(samples, 'token_sim_requests_total').map((s) => [s.labels.operation, s.labels.status, s.value]).sort()).toEqual([
      ['createToken', '201', 1],
      ['getToken', '200', 2],
      ['getToken', '400', 1],
      ['getToken', '401', 1],
    ]);
    // Cumulative buckets per operation: never decreasing, +Inf equal to _count.
    for (const [operation, count] of [['createToken', 1], ['getToken', 4]] as const) {
      const buckets = pick(samples, 'token_sim_request_duration_seconds_bucket', { operation });
      expect(buckets.length).toBeGreaterThan(10);
      expect(buckets.map((b) => b.labels.le)).toContain('0.001');
      expect(buckets.map((b) => b.labels.le)).toContain('60');
      const values = buckets.map((b) => b.value);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(one(samples, 'token_sim_request_duration_seconds_bucket', { operation, le: '+Inf' })).toBe(count);
      expect(one(samples, 'token_sim_request_duration_seconds_count', { operation })).toBe(count);
      expect(one(samples, 'token_sim_request_duration_seconds_sum', { operation })).toBeGreaterThan(0);
    }
    expect(one(samples, 'token_sim_tokens')).toBe(1);
    expect(one(samples, 'token_sim_payments')).toBe(0);
    expect(one(samples, 'token_sim_journal_entries')).toBe(5);
    expect(one(samples, 'token_sim_journal_bytes')).toBeGreaterThan(200);
    expect(pick(samples, 'token_sim_tenant_requests_total').map((s) => [s.labels.tenant, s.value])).toEqual([['merchant', 4]]);
    const rss = one(samples, 'process_resident_memory_bytes');
    expect(rss).toBeGreaterThan(process.memoryUsage.rss() / 4);
    expect(rss).toBeLessThan(process.memoryUsage.rss() * 4);
    const lag = one(samples, 'nodejs_eventloop_lag_seconds');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(5);
  });

  it('counts a request closed unanswered (a scripted connection reset) with status 0', async () => {
    const sim = testSimulator({ scenarios: [scenarioFile('connection-reset.yaml')] });
    const api = client(sim);
    const links = await createToken(api);
    expect((await api.get(links['tokens:token']!)).status).toBe(200);
    await expect(api.get(links['tokens:token']!)).rejects.toThrow();
    const { samples } = await scrape(sim);
    expect(one(samples, 'token_sim_requests_total', { operation: 'getToken', status: '0' })).toBe(1);
    expect(one(samples, 'token_sim_request_duration_seconds_count', { operation: 'getToken' })).toBe(2);
  });

  it('reads the journal and the tokens at each scrape', async () => {
    const sim = testSimulator();
    const links = await createToken(client(sim));
    expect((await request(handlerOf(sim)).delete('/_sim/requests')).status).toBe(204);
    expect((await client(sim).delete(links['tokens:token']!)).status).toBe(204);
    const { samples } = await scrape(sim);
    expect(one(samples, 'token_sim_journal_entries')).toBe(1);
    expect(one(samples, 'token_sim_tokens')).toBe(0);
    expect(one(samples, 'token_sim_requests_total', { operation: 'deleteToken', status: '204' })).toBe(1);
  });

  it('gives series of their own to the 50 busiest of 60 tenants only', async () => {
    const names = Array.from({ length: 60 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const sim = testSimulator({ users: names.map((n) => `${n}:pw`) });
    // t00…t09 send one request each, t10…t59 two: the busiest fifty are t10…t59.
    for (const [i, name] of names.entries()) {
      for (let k = 0; k < (i < 10 ? 1 : 2); k++) expect((await client(sim, name, 'pw').get('http://x/tokens/none')).status).toBe(400);
    }
    const { samples } = await scrape(sim);
    const tenants = pick(samples, 'token_sim_tenant_requests_total');
    expect(tenants).toHaveLength(50);
    expect(tenants.map((s) => s.labels.tenant).sort()).toEqual(names.slice(10));
    expect(tenants.every((s) => s.value === 2)).toBe(true);
    expect(one(samples, 'token_sim_requests_total', { operation: 'getToken', status: '400' })).toBe(110);
  });

  it('keeps two simulators in one process apart, and leaves prom-client’s global registry empty', async () => {
    const a = testSimulator();
    const b = testSimulator();
    await createToken(client(a));
    await createToken(client(a), createBody({ cardNumber: '5555555555554444' }));
    await createToken(client(b));
    const fromA = (await scrape(a)).samples;
    const fromB = (await scrape(b)).samples;
    expect(one(fromA, 'token_sim_requests_total', { operation: 'createToken', status: '201' })).toBe(2);
    expect(one(fromB, 'token_sim_requests_total', { operation: 'createToken', status: '201' })).toBe(1);
    expect(one(fromA, 'token_sim_tokens')).toBe(2);
    expect(one(fromB, 'token_sim_tokens')).toBe(1);
    expect(one(fromB, 'token_sim_request_duration_seconds_count', { operation: 'createToken' })).toBe(1);
    expect((await register.metrics()).trim()).toBe('');
  });

  it('needs the admin token when one is set, and nothing else opens it', async () => {
    const sim = testSimulator({ adminToken: 's3cret' });
    const control = request(handlerOf(sim));
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${Buffer.from('merchant:secret').toString('base64')}`]) {
      const t = control.get('/_sim/metrics');
      const res = await (authorization === undefined ? t : t.set('Authorization', authorization));
      expect([authorization, res.status, res.body.errorName]).toEqual([authorization, 401, 'accessDenied']);
    }
    expect(one((await scrape(sim, 'Bearer s3cret')).samples, 'token_sim_tokens')).toBe(0);
  });

  it('is open without an admin token, refuses query parameters and other methods', async () => {
    const sim = testSimulator();
    const control = request(handlerOf(sim));
    expect((await control.get('/_sim/metrics')).status).toBe(200);
    const query = await control.get('/_sim/metrics?tenant=merchant');
    expect([query.status, query.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const post = await control.post('/_sim/metrics');
    expect([post.status, post.body.errorName, post.headers.allow]).toEqual([405, 'methodNotAllowed', 'GET']);
  });
});
