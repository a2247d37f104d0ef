import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator } from '../../src/index.js';
import { createSimulator as createComposed } from '../../src/simulator/compose.js';
import { handlerOf } from '../support/sim.js';

function simWith(log: 'json' | 'pretty' | 'silent', isTTY = false) {
  const lines: string[] = [];
  const sim = createSimulator({ log, seed: 'log' }, { writeErr: (l) => lines.push(l), isTTY });
  return { sim, lines };
}

describe('the request log', () => {
  it('writes one JSON object per request with --log json (pino), card numbers in the URL masked', async () => {
    const { sim, lines } = simWith('json');
    const res = await request(handlerOf(sim)).get('/nope/4444333322221111');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, method: 'GET', path: '/nope/4444********1111', status: 404, correlationId: res.headers['correlation-id'], msg: 'request' });
    expect(typeof line.time).toBe('string');
    expect(typeof line.ms).toBe('number');
  });

  it('writes a readable line with --log pretty, coloured only on a terminal', async () => {
    const plain = simWith('pretty');
    await request(handlerOf(plain.sim)).get('/_sim/health');
    expect(plain.lines[0]).toMatch(/^GET \/_sim\/health 200 \d+\.\dms [0-9a-f-]{36}$/);
    const tty = simWith('pretty', true);
    await request(handlerOf(tty.sim)).get('/_sim/health');
    expect(tty.lines[0]).toContain('\u001b[32m200\u001b[0m');
  });

  it('writes nothing with --log silent', async () => {
    const { sim, lines } = simWith('silent');
    await request(handlerOf(sim)).get('/_sim/health');
    expect(lines).toEqual([]);
  });

  it.each(['json', 'pretty'] as const)('masks card numbers written with separators in the path, and a card number in the client’s Correlation-Id, with --log %s', async (format) => {
    const { sim, lines } = simWith(format);
    const res = await request(handlerOf(sim)).get('/nope/4444%203333%202222%201111/5555-5555-5555-4444').set('Correlation-Id', 'id-4111.1111.1111.1111');
    expect(res.headers['correlation-id']).toBe('id-4111.****.****.1111');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('/nope/4444%20****%20****%201111/5555-****-****-4444');
    expect(lines[0]).toContain('id-4111.****.****.1111');
    for (const digits of ['3333%202222', '5555-5555-5555-4444', '4111.1111.1111.1111']) expect(lines[0]).not.toContain(digits);
  });

  it.each(['json', 'pretty'] as const)('masks the control API’s lines too, with --log %s', async (format) => {
    const { sim, lines } = simWith(format);
    await request(handlerOf(sim)).get('/_sim/nope/4444-3333-2222-1111').set('Correlation-Id', '4444333322221111');
    expect(lines[0]).toContain('/_sim/nope/4444-****-****-1111');
    expect(lines[0]).toContain('4444********1111');
    expect(lines[0]).not.toMatch(/3333-2222|4444333322221111/);
  });

  it('masks card data quoted in the report of a bug', async () => {
    const lines: string[] = [];
    const sim = createComposed({ log: 'json', seed: 'log' }, { writeErr: (l) => lines.push(l) });
    sim.vault.create = () => {
      throw new TypeError('cannot store {"cardNumber": 4444 3333 2222 1111, "cvc": 987}');
    };
    const res = await request(handlerOf(sim))
      .post('/tokens')
      .auth('merchant', 'secret')
      .set('Content-Type', 'application/vnd.service.tokens-v1.hal+json')
      .set('Accept', 'application/vnd.service.tokens-v1.hal+json')
      .send(JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } }));
    expect(res.status).toBe(500);
    const report = lines.find((l) => l.startsWith('token-sim: unexpected error'));
    expect(report).toContain('TypeError: cannot store {"cardNumber": 4444 **** **** 1111, "cvc": ***}');
  });
});
