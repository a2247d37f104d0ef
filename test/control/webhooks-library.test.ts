/**
 * The library's webhook calls (decision 0030): `webhooks()` and `flushWebhooks()` on a simulator in this
 * process, on its tenant handles, and on `connectSimulator`, with the same refusals; shutdown closes delivery.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatorError } from '../../src/simulator/facade.js';
import type { ComposedSimulator } from '../../src/simulator/compose.js';
import { connectSimulator } from '../../src/simulator/remote.js';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';
import { testSimulator } from '../support/sim.js';

const MEDIA = 'application/vnd.service.events-v1.hal+json';
const OPTIONS = { seed: 'test', now: '2030-01-01T00:00:00Z', frozen: true, port: 0, users: ['alice:pa', 'bob:pb'], log: 'silent' as const };
const quiet = { writeErr: () => undefined };

const servers: Server[] = [];
const running: StartedSimulator[] = [];
const sims: ComposedSimulator[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
  for (const s of sims.splice(0)) s.webhookDispatcher.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver that fails each body's first attempt (500), then takes it; `/hang` never answers. */
async function receiver(): Promise<{ url: string; seen: string[]; hanging: () => number }> {
  const seen: string[] = [];
  let hanging = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/hang') {
        hanging++;
        req.socket.on('close', () => hanging--);
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      res.statusCode = seen.includes(body) ? 200 : 500;
      seen.push(body);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, hanging: () => hanging };
}

function enqueue(s: ComposedSimulator, tenant: string, url: string, n: number): void {
  s.webhookDispatcher.enqueue({ tenant, url, orderKey: 'pay-1', eventId: `${tenant}-${n}`, type: 'refunded', body: `{"${tenant}":${n}}`, mediaType: MEDIA });
}

function errorOf(fn: () => unknown): SimulatorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SimulatorError) return err;
    throw err;
  }
  throw new Error('expected a SimulatorError');
}

describe('webhooks in the library', () => {
  it('flushes and lists deliveries in process, every tenant or one, with a state filter and a limit', async () => {
    const r = await receiver();
    const sim = testSimulator({ users: ['alice:pa', 'bob:pb'] }) as ComposedSimulator;
    sims.push(sim);
    enqueue(sim, 'alice', r.url, 1);
    enqueue(sim, 'alice', r.url, 2);
    enqueue(sim, 'bob', r.url, 1);
    expect(await sim.tenant('bob').flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect(await sim.flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect(sim.webhooks().map((w) => [w.eventId, w.attempts, w.lastStatus, w.state])).toEqual([
      ['alice-1', 2, 200, 'delivered'],
      ['alice-2', 2, 200, 'delivered'],
      ['bob-1', 2, 200, 'delivered'],
    ]);
    expect(sim.webhooks('bob').map((w) => w.eventId)).toEqual(['bob-1']);
    expect(sim.tenant('alice').webhooks({ limit: 1 }).map((w) => w.eventId)).toEqual(['alice-1']);
    expect(sim.webhooks({ tenant: 'alice', state: 'failed' })).toEqual([]);
    sim.tenant('alice').reset();
    expect(sim.webhooks().map((w) => w.eventId)).toEqual(['bob-1']);
  });

  it('refuses a bad filter, tenant or timeout with the SimulatorError of the HTTP call', async () => {
    const sim = testSimulator({ users: ['alice:pa'] }) as ComposedSimulator;
    sims.push(sim);
    expect(errorOf(() => sim.webhooks({ state: 'lost' as never })).details).toEqual({
      errorName: 'urlContainsInvalidValue',
      message: 'The query of webhooks() is not valid',
      validationErrors: [{ errorName: 'fieldHasInvalidValue', message: 'state must be pending, held, delivered, failed or dropped, given once' }],
    });
    expect(errorOf(() => sim.webhooks('carol')).errorName).toBe('urlContainsInvalidValue');
    expect(errorOf(() => sim.webhooks({ limit: -1 })).errorName).toBe('urlContainsInvalidValue');
    await expect(sim.flushWebhooks({ timeoutMs: 60_001 })).rejects.toMatchObject({ errorName: 'urlContainsInvalidValue' });
    await expect(sim.tenant('carol').flushWebhooks()).rejects.toBeInstanceOf(SimulatorError);
  });

  it('offers the same calls on connectSimulator, tenant-scoped with Basic credentials', async () => {
    const r = await receiver();
    const server = await startSimulator(OPTIONS, quiet);
    running.push(server);
    enqueue(server, 'alice', r.url, 1);
    enqueue(server, 'bob', r.url, 1);
    const remote = connectSimulator(server.url);
    expect(await remote.flushWebhooks({ timeoutMs: 10_000 })).toEqual({ flushed: true, pending: 0 });
    expect((await remote.webhooks()).map((w) => [w.eventId, w.attempts, w.state])).toEqual([
      ['alice-1', 2, 'delivered'],
      ['bob-1', 2, 'delivered'],
    ]);
    expect((await remote.tenant('bob').webhooks()).map((w) => w.eventId)).toEqual(['bob-1']);
    expect(await remote.tenant('bob').flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect((await remote.webhooks({ limit: 1 })).map((w) => w.eventId)).toEqual(['alice-1']);
    const alice = connectSimulator(server.url, { username: 'alice', password: 'pa' });
    expect((await alice.webhooks()).map((w) => w.eventId)).toEqual(['alice-1']);
    await expect(alice.webhooks('bob')).rejects.toMatchObject({ errorName: 'operationIsNotAllowed' });
    await expect(remote.webhooks({ state: 'lost' as never })).rejects.toMatchObject({ errorName: 'urlContainsInvalidValue' });
    await remote.reset();
    expect(await remote.webhooks()).toEqual([]);
  });

  it('reads the whole bounded log remotely: the newest 10,000 deliveries', async () => {
    const server = await startSimulator(OPTIONS, quiet);
    running.push(server);
    // A closed port, attempts never made: the deliveries stay pending while the log is read.
    for (let n = 1; n <= 10_005; n++) server.webhookDispatcher.enqueue({ tenant: 'alice', url: 'http://127.0.0.1:1/', orderKey: 'k', eventId: `e${n}`, type: 't', body: '{}', mediaType: MEDIA });
    const all = await connectSimulator(server.url).webhooks();
    expect(all).toHaveLength(10_000);
    expect(all[0]?.eventId).toBe('e6');
    expect(all.at(-1)?.eventId).toBe('e10005');
  });

  it('stops deliveries when the server closes: a hanging receiver is let go', async () => {
    const r = await receiver();
    const server = await startSimulator(OPTIONS, quiet);
    running.push(server);
    enqueue(server, 'alice', `${r.url}/hang`, 1);
    const deadline = performance.now() + 2000;
    while (r.hanging() === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.hanging()).toBe(1);
    await server.close();
    expect(await server.flushWebhooks()).toEqual({ flushed: false, pending: 1 });
    const until = performance.now() + 2000;
    while (r.hanging() > 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.hanging()).toBe(0);
  });
});
