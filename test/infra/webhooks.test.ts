/** Webhook delivery against a real HTTP receiver (a node:http server on port 0). */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookSender } from '../../src/http/webhook-sender.js';
import { WebhookDispatcher, type WebhookItem, type WebhookOptions } from '../../src/infra/webhooks.js';

interface Received {
  path: string;
  body: string;
  contentType: string | undefined;
  status: number;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose answer is still open (a hanging receiver). */
  hanging: ServerResponse[];
  close(): Promise<void>;
}

type Answer = (req: IncomingMessage, body: string, n: number) => number | 'hang' | Promise<number>;

async function receiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void Promise.resolve(answer(req, body, ++n)).then((status) => {
        if (status === 'hang') {
          hanging.push(res);
          return;
        }
        received.push({ path: req.url ?? '', body, contentType: req.headers['content-type'], status });
        res.statusCode = status;
        res.end('ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    hanging,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const MEDIA = 'application/vnd.service.events-v1.hal+json';

function item(url: string, orderKey: string, n: number, tenant = 'merchant'): WebhookItem {
  return { tenant, url, orderKey, eventId: `${orderKey}-e${n}`, type: 'sentForSettlement', body: JSON.stringify({ key: orderKey, n }), mediaType: MEDIA };
}

const open: (WebhookDispatcher | Receiver)[] = [];
function dispatcher(options: Partial<WebhookOptions> = {}): WebhookDispatcher {
  const sender = createWebhookSender();
  const d = new WebhookDispatcher({ send: sender.send, onClose: sender.close, backoffMs: 5, ...options });
  open.push(d);
  return d;
}
async function receiverOf(answer?: Answer): Promise<Receiver> {
  const r = await receiver(answer);
  open.push(r);
  return r;
}

afterEach(async () => {
  for (const x of open.splice(0)) await x.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('webhook dispatcher', () => {
  it('POSTs the body with its media type and logs it delivered', async () => {
    const r = await receiverOf();
    const d = dispatcher();
    d.enqueue({ ...item(`${r.url}/hooks/a`, 'p1', 1), body: '{"eventId":"e1"}' });
    await d.flush();
    expect(r.received).toEqual([{ path: '/hooks/a', body: '{"eventId":"e1"}', contentType: MEDIA, status: 200 }]);
    const { deliveries, count } = d.deliveries();
    expect(count).toBe(1);
    expect(deliveries[0]).toMatchObject({ eventId: 'p1-e1', type: 'sentForSettlement', url: `${r.url}/hooks/a`, tenant: 'merchant', attempts: 1, lastStatus: 200, lastError: null, state: 'delivered' });
    expect(typeof deliveries[0]?.finishedAt).toBe('string');
  });

  it('sends the credentials of a receiver URL but logs its password masked', async () => {
    let authorization: string | undefined;
    const r = await receiverOf((req) => {
      authorization = req.headers.authorization;
      return 200;
    });
    const d = dispatcher();
    const url = r.url.replace('http://', 'http://hook:s3cret@');
    d.enqueue(item(`${url}/in`, 'p1', 1));
    await d.flush();
    expect(authorization).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
    expect(d.deliveries().deliveries[0]?.url).toBe(`${r.url.replace('http://', 'http://hook:***@')}/in`);
  });

  it('delivers the items of one key in order, one at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const r = await receiverOf(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(3);
      inFlight--;
      return 200;
    });
    const d = dispatcher();
    for (let n = 1; n <= 10; n++) d.enqueue(item(r.url, 'p1', n));
    await d.flush();
    expect(r.received.map((x) => (JSON.parse(x.body) as { n: number }).n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(most).toBe(1);
  });

  it('delivers different keys concurrently, within the bound', async () => {
    let inFlight = 0;
    let most = 0;
    const r = await receiverOf(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(30);
      inFlight--;
      return 204;
    });
    const d = dispatcher({ concurrency: 3 });
    for (let k = 1; k <= 6; k++) d.enqueue(item(r.url, `p${k}`, 1));
    await d.flush();
    expect(r.received).toHaveLength(6);
    expect(most).toBe(3);
  });

  it('retries a receiver that fails twice, then logs 3 attempts, delivered, received once', async () => {
    const r = await receiverOf((_req, _body, n) => (n <= 2 ? 500 : 200));
    const d = dispatcher();
    d.enqueue(item(r.url, 'p1', 1));
    d.enqueue(item(r.url, 'p1', 2));
    await d.flush();
    expect(r.received.map((x) => [x.status, x.body])).toEqual([
      [500, '{"key":"p1","n":1}'],
      [500, '{"key":"p1","n":1}'],
      [200, '{"key":"p1","n":1}'],
      [200, '{"key":"p1","n":2}'],
    ]);
    expect(d.deliveries().deliveries.map((x) => [x.eventId, x.attempts, x.lastStatus, x.state])).toEqual([
      ['p1-e1', 3, 200, 'delivered'],
      ['p1-e2', 1, 200, 'delivered'],
    ]);
  });

  it('gives up after 5 attempts, keeps the failure in the log, and delivers the key\'s next item', async () => {
    const r = await receiverOf((_req, body) => (body.includes('"n":1') ? 503 : 200));
    const d = dispatcher();
    d.enqueue(item(r.url, 'p1', 1));
    d.enqueue(item(r.url, 'p1', 2));
    await d.flush();
    expect(r.received.map((x) => x.status)).toEqual([503, 503, 503, 503, 503, 200]);
    expect(d.deliveries().deliveries.map((x) => [x.eventId, x.attempts, x.lastStatus, x.lastError, x.state])).toEqual([
      ['p1-e1', 5, 503, 'answered 503', 'failed'],
      ['p1-e2', 1, 200, null, 'delivered'],
    ]);
  });

  it('waits 100, 200, 400, 800 ms between attempts by default', async () => {
    const times: number[] = [];
    const r = await receiverOf(() => {
      times.push(performance.now());
      return 500;
    });
    // No backoffMs: the defaults.
    const sender = createWebhookSender();
    const d = new WebhookDispatcher({ send: sender.send, onClose: sender.close });
    open.push(d);
    d.enqueue(item(r.url, 'p1', 1));
    await d.flush();
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    expect(gaps).toHaveLength(4);
    // At least each wait (timers may fire late on a loaded machine, never early), each longer than the one before.
    [100, 200, 400, 800].forEach((ms, i) => expect(gaps[i]).toBeGreaterThanOrEqual(ms - 5));
    expect((gaps[3] ?? 0) - (gaps[0] ?? 0)).toBeGreaterThan(500);
    expect(gaps.reduce((a, b) => a + b, 0)).toBeLessThan(1500 + 2000);
  });

  it('retries a network error (a closed port), with last status null', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    const d = dispatcher({ attempts: 3 });
    d.enqueue(item(url, 'p1', 1));
    await d.flush();
    const [delivery] = d.deliveries().deliveries;
    expect(delivery).toMatchObject({ attempts: 3, lastStatus: null, state: 'failed' });
    expect(delivery?.lastError).toMatch(/ECONNREFUSED/);
  });

  it('delivers after a network error once the receiver is up', async () => {
    const r = await receiverOf();
    const d = dispatcher({ backoffMs: 20 });
    d.enqueue(item('http://127.0.0.1:1/closed', 'p1', 1));
    d.enqueue(item(r.url, 'p2', 1));
    await d.flush();
    expect(d.deliveries().deliveries.map((x) => [x.eventId, x.state, x.attempts])).toEqual([
      ['p1-e1', 'failed', 5],
      ['p2-e1', 'delivered', 1],
    ]);
  });

  it('enqueue returns at once while the receiver hangs; an attempt times out and is retried', async () => {
    const r = await receiverOf(() => 'hang');
    const d = dispatcher({ timeoutMs: 100, attempts: 2 });
    const started = performance.now();
    for (let n = 1; n <= 1000; n++) d.enqueue(item(r.url, `p${n % 10}`, n));
    expect(performance.now() - started).toBeLessThan(200);
    expect(d.pending()).toBe(1000);
    d.clear();
    d.enqueue(item(r.url, 'p1', 1));
    await d.flush();
    const last = d.deliveries().deliveries.at(-1);
    expect(last).toMatchObject({ eventId: 'p1-e1', attempts: 2, lastStatus: null, state: 'failed' });
    expect(last?.lastError).toMatch(/no answer within 100 ms/);
  });

  it('flush waits for queued items and retries waiting on backoff', async () => {
    const r = await receiverOf((_req, _body, n) => (n === 1 ? 500 : 200));
    const d = dispatcher({ backoffMs: 150 });
    d.enqueue(item(r.url, 'p1', 1));
    const started = performance.now();
    await d.flush();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(r.received.map((x) => x.status)).toEqual([500, 200]);
    expect(d.pending()).toBe(0);
  });

  it('keeps no process alive while it waits to retry, unless someone awaits a flush', async () => {
    const r = await receiverOf(() => 500);
    const d = dispatcher({ backoffMs: 300, attempts: 2 });
    d.enqueue(item(r.url, 'p1', 1));
    while (d.deliveries().deliveries[0]?.attempts !== 1 || d.deliveries().deliveries[0]?.lastStatus !== 500) await sleep(5);
    const timers = (): number => process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;
    const before = timers();
    const flushed = d.flush();
    expect(timers()).toBe(before + 1);
    await flushed;
    expect(d.deliveries().deliveries[0]).toMatchObject({ attempts: 2, state: 'failed' });
  });

  it('flush for one tenant waits for that tenant only; a flush with a timeout says what is left', async () => {
    const r = await receiverOf((req) => (req.url === '/slow' ? 'hang' : 200));
    const d = dispatcher({ timeoutMs: 60_000 });
    d.enqueue(item(`${r.url}/slow`, 'a', 1, 'alice'));
    d.enqueue(item(`${r.url}/slow`, 'a', 2, 'alice'));
    d.enqueue(item(`${r.url}/fast`, 'b', 1, 'bob'));
    expect(await d.flush({ tenant: 'bob' })).toEqual({ flushed: true, pending: 0 });
    expect(r.received.map((x) => x.path)).toEqual(['/fast']);
    expect(await d.flush({ timeoutMs: 50 })).toEqual({ flushed: false, pending: 2 });
    expect(d.pending('alice')).toBe(2);
  });

  it('filters the log by tenant and state, pages it, and bounds it', async () => {
    const r = await receiverOf((_req, body) => (body.includes('bad') ? 500 : 200));
    const d = dispatcher({ logSize: 4, attempts: 1 });
    d.enqueue(item(r.url, 'a', 1, 'alice'));
    d.enqueue(item(r.url, 'b', 1, 'bob'));
    d.enqueue({ ...item(r.url, 'c', 1, 'alice'), body: 'bad' });
    d.enqueue(item(r.url, 'd', 1, 'bob'));
    d.enqueue(item(r.url, 'e', 1, 'alice'));
    await d.flush();
    expect(d.deliveries().deliveries.map((x) => x.eventId)).toEqual(['b-e1', 'c-e1', 'd-e1', 'e-e1']);
    expect(d.deliveries({ tenant: 'alice' }).deliveries.map((x) => x.eventId)).toEqual(['c-e1', 'e-e1']);
    expect(d.deliveries({ state: 'failed' }).deliveries.map((x) => x.eventId)).toEqual(['c-e1']);
    const page = d.deliveries({ limit: 2 });
    expect(page).toMatchObject({ count: 4 });
    expect(page.deliveries.map((x) => x.eventId)).toEqual(['b-e1', 'c-e1']);
    expect(d.deliveries({ since: page.deliveries.at(-1)?.seq ?? 0, limit: 2 }).deliveries.map((x) => x.eventId)).toEqual(['d-e1', 'e-e1']);
  });

  it('clear drops one tenant\'s queue and log entries, or all', async () => {
    const r = await receiverOf(() => 'hang');
    const d = dispatcher({ timeoutMs: 60_000 });
    d.enqueue(item(r.url, 'a', 1, 'alice'));
    d.enqueue(item(r.url, 'a', 2, 'alice'));
    d.enqueue(item(r.url, 'b', 1, 'bob'));
    d.clear('alice');
    expect(d.deliveries().deliveries.map((x) => x.tenant)).toEqual(['bob']);
    expect(d.pending()).toBe(1);
    d.clear();
    expect(d.deliveries().count).toBe(0);
    expect(d.pending()).toBe(0);
  });

  it('close stops timers and sockets: flush resolves, nothing keeps running', async () => {
    const r = await receiverOf(() => 'hang');
    const d = dispatcher({ timeoutMs: 60_000 });
    d.enqueue(item(r.url, 'p1', 1));
    await sleep(50);
    expect(r.hanging).toHaveLength(1);
    const flushed = d.flush();
    d.close();
    await flushed;
    d.enqueue(item(r.url, 'p2', 1));
    await d.flush();
    expect(d.deliveries().deliveries.map((x) => x.eventId)).toEqual(['p1-e1']);
  });

  it('never throws from enqueue, even on a broken item', () => {
    const d = dispatcher();
    expect(() => d.enqueue(null as unknown as WebhookItem)).not.toThrow();
    expect(() => d.enqueue({ ...item('not a url', 'k', 1) })).not.toThrow();
  });

  it('delivers many items over many keys, none lost, none duplicated', async () => {
    // Every 7th item fails its first attempt. (Failing every 7th request received could fail one item five
    // times in a row: with 8 requests in flight its retries can land on the multiples of 7 each time.)
    const failed = new Set<number>();
    const r = await receiverOf((_req, body) => {
      const { n } = JSON.parse(body) as { n: number };
      if (n % 7 !== 0 || failed.has(n)) return 200;
      failed.add(n);
      return 500;
    });
    const d = dispatcher({ backoffMs: 1 });
    for (let n = 1; n <= 200; n++) d.enqueue(item(r.url, `p${n % 13}`, n));
    await d.flush();
    const ok = r.received.filter((x) => x.status === 200).map((x) => (JSON.parse(x.body) as { key: string; n: number }));
    expect(ok).toHaveLength(200);
    expect(new Set(ok.map((x) => x.n)).size).toBe(200);
    for (let k = 0; k < 13; k++) {
      const ns = ok.filter((x) => x.key === `p${k}`).map((x) => x.n);
      expect(ns).toEqual([...ns].sort((a, b) => a - b));
    }
    expect(d.deliveries({ state: 'delivered' }).count).toBe(200);
    expect(failed.size).toBe(28);
    expect(r.received.filter((x) => x.status === 500)).toHaveLength(28);
  });
});
