/**
 * `--store`, `--store-prefix` and `--workers` on the command line, and their twins in the environment
 * (TOKEN_SIM_STORE, TOKEN_SIM_STORE_PREFIX, TOKEN_SIM_WORKERS) and a config file: what the program hands its
 * run handler, and the one line (exit code 2) a refused value gets. Never a password in that line. The
 * workers themselves run in workers.process.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { availableParallelism } from 'node:os';
import { parsedStart, refusal, startCli, tempFile } from '../support/cli-in-process.js';


/** What `token-sim <args>` would start with: the options and the number of processes. */
const started = parsedStart;

const REDIS = 'redis://127.0.0.1:6379/2';
const MEMORY_WORKERS = (n: string): string =>
  `token-sim: --workers ${n} needs --store redis://host:port: with the memory store each worker would have its own state`;

describe('--store and --store-prefix', () => {
  it('are absent by default (memory, token-sim:), and one process runs', async () => {
    const { options, workers } = await started([]);
    expect(options).not.toHaveProperty('store');
    expect(options).not.toHaveProperty('storePrefix');
    expect(workers).toBe(1);
  });

  it('come from flags, the environment and a config file, a flag first', async () => {
    expect((await started(['--store', REDIS, '--store-prefix', 'qa:'])).options).toMatchObject({ store: REDIS, storePrefix: 'qa:' });
    expect((await started([], { TOKEN_SIM_STORE: REDIS, TOKEN_SIM_STORE_PREFIX: 'env:' })).options).toMatchObject({ store: REDIS, storePrefix: 'env:' });
    const config = tempFile('token-sim.json', JSON.stringify({ store: 'rediss://h:6380', storePrefix: 'file:' }));
    expect((await started(['--config', config])).options).toMatchObject({ store: 'rediss://h:6380', storePrefix: 'file:' });
    expect((await started(['--config', config, '--store', 'memory'], { TOKEN_SIM_STORE_PREFIX: 'env:' })).options).toMatchObject({
      store: 'memory',
      storePrefix: 'env:',
    });
  });

  it.each([
    [['--store', 'ftp://x'], {}, "token-sim: --store must be memory or a redis://host:port[/db] or rediss:// URL, got 'ftp://x'"],
    [['--store', 'redis://h:6379/16'], {}, "token-sim: --store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://h:6379/16'"],
    [[], { TOKEN_SIM_STORE: 'redis://h:99999' }, "token-sim: TOKEN_SIM_STORE must have a port from 1 to 65535, got 'redis://h:99999'"],
    [['--store-prefix', 'a b'], {}, 'token-sim: --store-prefix must be a non-empty string without spaces or control characters, got "a b"'],
    [[], { TOKEN_SIM_STORE_PREFIX: 'a\tb' }, 'token-sim: TOKEN_SIM_STORE_PREFIX must be a non-empty string without spaces or control characters, got "a\\tb"'],
  ])('refuses %j %j with one line', async (args, env, line) => {
    expect(await refusal(args, env)).toBe(line);
  });

  it('never shows the password of a refused URL, from a flag, a variable or a file', async () => {
    const flag = await refusal(['--store', 'redis://:hunter2@h:0']);
    expect(flag).toBe("token-sim: --store must have a port from 1 to 65535, got 'redis://:***@h:0'");
    const variable = await refusal([], { TOKEN_SIM_STORE: 'redis://app:hunter2@h:6379/x' });
    expect(variable).toBe("token-sim: TOKEN_SIM_STORE must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://app:***@h:6379/x'");
    const config = tempFile('token-sim.yaml', 'store: redis://:hunter2@:6379\n');
    const file = await refusal(['--config', config]);
    expect(file).toBe(`token-sim: config file ${config}: $.store must name a host: redis://host:port[/db], got 'redis://:***@:6379'`);
  });
});

describe('--workers', () => {
  it.each([
    [['--workers', '2'], {}, 2],
    [['--workers', '64'], {}, 64],
    [['--workers', 'auto'], {}, Math.min(availableParallelism(), 64)],
    [[], { TOKEN_SIM_WORKERS: '3' }, 3],
    [[], { TOKEN_SIM_WORKERS: 'auto' }, Math.min(availableParallelism(), 64)],
    [['--workers', '4'], { TOKEN_SIM_WORKERS: '3' }, 4],
  ])('with a Redis store: %j %j runs %d processes', async (args, env, workers) => {
    expect((await started(['--store', REDIS, ...args], env)).workers).toBe(workers);
  });

  it('comes from a config file as a number or auto', async () => {
    expect((await started(['--config', tempFile('w.json', JSON.stringify({ store: REDIS, workers: 5 }))])).workers).toBe(5);
    expect((await started(['--config', tempFile('w.yaml', `store: ${REDIS}\nworkers: auto\n`)])).workers).toBe(Math.min(availableParallelism(), 64));
  });

  it('takes 1 with the memory store: one process, as without it', async () => {
    expect((await started(['--workers', '1'])).workers).toBe(1);
    const { run, url } = await startCli(['--port', '0', '--log', 'silent', '--workers', '1']);
    try {
      expect((await fetch(`${url}/_sim/health`)).status).toBe(200);
    } finally {
      await run.stop();
    }
  });

  it.each([
    [['--workers', '2'], {}, MEMORY_WORKERS('2')],
    [['--workers', 'auto'], {}, MEMORY_WORKERS('auto')],
    [['--workers', '2', '--store', 'memory'], {}, MEMORY_WORKERS('2')],
    [[], { TOKEN_SIM_WORKERS: '8' }, MEMORY_WORKERS('8')],
    [['--workers', '2'], { TOKEN_SIM_STORE: 'memory' }, MEMORY_WORKERS('2')],
  ])('needs a Redis store for more than one process: %j %j', async (args, env, line) => {
    expect(await refusal(args, env)).toBe(line);
  });

  it.each([
    [['--workers', '0'], {}, "token-sim: option '--workers <n|auto>' argument '0' is invalid. must be a whole number from 1 to 64 or auto"],
    [['--workers', '65'], {}, "token-sim: option '--workers <n|auto>' argument '65' is invalid. must be a whole number from 1 to 64 or auto"],
    [['--workers', 'abc'], {}, "token-sim: option '--workers <n|auto>' argument 'abc' is invalid. must be a whole number from 1 to 64 or auto"],
    [['--workers', '1.5'], {}, "token-sim: option '--workers <n|auto>' argument '1.5' is invalid. must be a whole number from 1 to 64 or auto"],
    [['--workers', 'AUTO'], {}, "token-sim: option '--workers <n|auto>' argument 'AUTO' is invalid. must be a whole number from 1 to 64 or auto"],
    [[], { TOKEN_SIM_WORKERS: '0' }, "token-sim: TOKEN_SIM_WORKERS must be a whole number from 1 to 64 or auto, got '0'"],
    [[], { TOKEN_SIM_WORKERS: '02x' }, "token-sim: TOKEN_SIM_WORKERS must be a whole number from 1 to 64 or auto, got '02x'"],
  ])('refuses %j %j with one line', async (args, env, line) => {
    expect(await refusal(['--store', REDIS, ...args], env)).toBe(line);
  });

  it.each([
    ['"2"', '$.workers must be a whole number from 1 to 64 or auto, got "2"'],
    ['0', '$.workers must be a whole number from 1 to 64 or auto, got 0'],
    ['2.5', '$.workers must be a whole number from 1 to 64 or auto, got 2.5'],
    ['100', '$.workers must be a whole number from 1 to 64 or auto, got 100'],
    ['true', '$.workers must be a whole number from 1 to 64 or auto, got true'],
  ])('refuses workers: %s in a config file', async (value, problem) => {
    const config = tempFile('w.json', `{"store": "${REDIS}", "workers": ${value}}`);
    expect(await refusal(['--config', config])).toBe(`token-sim: config file ${config}: ${problem}`);
  });
});
