import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator } from '../../src/index.js';
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
});
