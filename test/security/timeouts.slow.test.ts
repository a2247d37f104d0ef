/**
 * Slow clients are closed on time (issue 13, defect 6): with the documented defaults, a client that never
 * finishes its headers is closed about 10 s after it connected, not at Node's 30 s check.
 */
import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startSimulator } from '../../src/simulator/server.js';

describe('the documented header timeout', () => {
  it('closes a client that sends part of its headers 10 s after it connected, to within a second', async () => {
    const sim = await startSimulator({ port: 0 }, { writeErr: () => undefined });
    try {
      const { port } = new URL(sim.url);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      const connectedAt = performance.now();
      socket.write('GET /_sim/health HTTP/1.1\r\nHost: x\r\n');
      socket.resume();
      await once(socket, 'close');
      const closedAfter = performance.now() - connectedAt;
      expect(closedAfter).toBeGreaterThan(9_500);
      expect(closedAfter).toBeLessThan(11_500);
    } finally {
      await sim.close();
    }
  }, 45_000);
});
