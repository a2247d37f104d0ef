/** Where webhooks go (decision 0030): --webhook-url from every option source, a credential's own URL, and their checks. */
import { describe, expect, it } from '@jest/globals';
import { ConfigError, DEFAULT_FIXTURES_PATH, loadFixturesFile } from '../../src/config/fixtures.js';
import { resolveConfig, webhookUrlFor, type SimulatorOptions } from '../../src/config/options.js';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { exitCodeOf, parsedStart, refusal, runCli, tempFile } from '../support/cli-in-process.js';
import { testSimulator } from '../support/sim.js';
import type { ComposedSimulator } from '../../src/simulator/compose.js';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

/** Fixtures whose credential alice has her own receiver. */
function fixturesWith(webhookUrl: unknown): object {
  const f = loadFixturesFile(DEFAULT_FIXTURES_PATH) as unknown as { credentials: Record<string, unknown>[] };
  f.credentials.push({ username: 'alice', password: 'pa', entities: ['default'], webhookUrl });
  return f;
}

const optionsOf = async (args: readonly string[], env: Record<string, string> = {}): Promise<SimulatorOptions> => (await parsedStart(args, env)).options;

describe('the webhook URL', () => {
  it('is nowhere by default', () => {
    const c = resolveConfig();
    expect(c.webhookUrl).toBeUndefined();
    expect(webhookUrlFor(c, 'merchant')).toBeUndefined();
  });

  it("is --webhook-url for every tenant, except one whose fixtures credential names its own", () => {
    const c = resolveConfig({ webhookUrl: 'https://hooks.example.test/all', fixtures: fixturesWith('http://127.0.0.1:9/alice') as never, users: ['bob:pb'] });
    expect(webhookUrlFor(c, 'alice')).toBe('http://127.0.0.1:9/alice');
    expect(webhookUrlFor(c, 'bob')).toBe('https://hooks.example.test/all');
    expect(webhookUrlFor(c, 'merchant')).toBe('https://hooks.example.test/all');
    const own = resolveConfig({ fixtures: fixturesWith('http://127.0.0.1:9/alice') as never });
    expect(webhookUrlFor(own, 'alice')).toBe('http://127.0.0.1:9/alice');
    expect(webhookUrlFor(own, 'merchant')).toBeUndefined();
  });

  it("is looked up in the composed simulator's configuration, beside its dispatcher", () => {
    const sim = testSimulator({ webhookUrl: 'http://127.0.0.1:9/all', fixtures: fixturesWith('http://127.0.0.1:9/alice') as never }) as ComposedSimulator;
    expect(webhookUrlFor(sim.config, 'alice')).toBe('http://127.0.0.1:9/alice');
    expect(webhookUrlFor(sim.config, 'merchant')).toBe('http://127.0.0.1:9/all');
    expect(sim.webhookDispatcher.pending()).toBe(0);
  });

  it.each(['ftp://hooks.example.test/', 'hooks.example.test/x', '/relative', '', 'http://'])('refuses --webhook-url %j', (url) => {
    expect(messageOf(() => resolveConfig({ webhookUrl: url }))).toBe(`--webhook-url must be an absolute http or https URL, got '${url}'`);
  });

  it("refuses a credential's webhookUrl that is not an http(s) URL, at its JSONPath", () => {
    expect(messageOf(() => resolveConfig({ fixtures: fixturesWith('mailto:a@b.c') as never }))).toBe(
      'invalid fixtures object: $.credentials[1].webhookUrl: webhookUrl must be an absolute http or https URL',
    );
    expect(messageOf(() => resolveConfig({ fixtures: fixturesWith(42) as never }))).toMatch(/^invalid fixtures object: \$\.credentials\[1\]\.webhookUrl: /);
  });

  it('comes from the flag, TOKEN_SIM_WEBHOOK_URL or the config file key webhookUrl, in that order', async () => {
    const file = tempFile('config.json', JSON.stringify({ webhookUrl: 'http://file.test/h' }));
    expect((await optionsOf(['--config', file])).webhookUrl).toBe('http://file.test/h');
    expect((await optionsOf(['--config', file], { TOKEN_SIM_WEBHOOK_URL: 'http://env.test/h' })).webhookUrl).toBe('http://env.test/h');
    expect((await optionsOf(['--config', file, '--webhook-url', 'http://flag.test/h'], { TOKEN_SIM_WEBHOOK_URL: 'http://env.test/h' })).webhookUrl).toBe('http://flag.test/h');
    expect((await optionsOf([])).webhookUrl).toBeUndefined();
  });

  it('refuses a bad value from any source with one line and exit code 2', async () => {
    const flag = runCli(['--webhook-url', 'nope']);
    expect(await exitCodeOf(flag)).toBe(2);
    expect(flag.err).toEqual(["token-sim: --webhook-url must be an absolute http or https URL, got 'nope'"]);
    const env = runCli([], { env: { TOKEN_SIM_WEBHOOK_URL: 'nope' } });
    expect(await exitCodeOf(env)).toBe(2);
    expect(env.err.join('\n')).toContain('TOKEN_SIM_WEBHOOK_URL must be an absolute http or https URL');
  });
});

/** A port free right now on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a webhook URL that names the simulator itself (no loops, contract 4.1)', () => {
  it.each([
    ['http://127.0.0.1:{port}/_sim/reset'],
    ['http://localhost:{port}/hooks'],
    ['http://[::1]:{port}/'],
    ['http://0.0.0.0:{port}/'],
    ['http://127.0.0.2:{port}/'],
  ])('refuses --webhook-url %s at start with one line and exit 2', async (template) => {
    const port = await freePort();
    const url = template.replace('{port}', String(port));
    const line = await refusal(['--port', String(port), '--webhook-url', url, '--log', 'silent']);
    expect(line).toBe(
      `token-sim: --webhook-url ${url} names this simulator's own listener (port ${port}): each payment event would be sent to the simulator itself; point it at your webhook receiver`,
    );
  });

  it("refuses a fixtures credential's webhookUrl naming it, and a URL of its own --base-url", async () => {
    const port = await freePort();
    const fixtures = tempFile('fixtures.json', JSON.stringify(fixturesWith(`http://localhost:${port}/_sim/reset`)));
    expect(await refusal(['--port', String(port), '--fixtures', fixtures, '--log', 'silent'])).toBe(
      `token-sim: the fixtures credential 'alice' webhookUrl http://localhost:${port}/_sim/reset names this simulator's own listener (port ${port}): each payment event would be sent to the simulator itself; point it at your webhook receiver`,
    );
    const viaProxy = await refusal(['--port', String(port), '--base-url', 'https://sim.example.com', '--webhook-url', 'https://sim.example.com/hooks', '--log', 'silent']);
    expect(viaProxy).toMatch(/^token-sim: --webhook-url https:\/\/sim\.example\.com\/hooks names this simulator's own listener/);
  });

  it('starts with a receiver on another port of this machine', async () => {
    const port = await freePort();
    const run = runCli(['--port', String(port), '--webhook-url', `http://127.0.0.1:${port + 1 > 65535 ? port - 1 : port + 1}/hooks`, '--log', 'silent']);
    await run.returned;
    expect(run.serving()).toBe(true);
    expect(await run.stop()).toBe(0);
  });
});
