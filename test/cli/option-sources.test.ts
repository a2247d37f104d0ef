/**
 * Options from TOKEN_SIM_* variables and a --config file, and their precedence: flag > environment > config
 * file > default. The options are read from what the program hands its run handler (no server), the refusals
 * from main (one line on stderr, exit code 2), and one run end to end.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsedStart, refusal, scenarioFile, startCli, tempFile } from '../support/cli-in-process.js';


/** What `token-sim <args>` would start the simulator with, and what it wrote to stderr on the way. */
const optionsOf = parsedStart;

/** A folder holding these files. */
function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-config-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const FIXTURES = new URL('../../fixtures/default.json', import.meta.url).pathname;


describe('precedence: flag > environment > config file > default', () => {
  const config = tempFile('token-sim.json', JSON.stringify({ port: 1111, seed: 'file', frozen: true, users: ['file:1'] }));

  it.each([
    ['the defaults', [], {}, { port: 8080, frozen: false }],
    ['the config file over the defaults', ['--config', config], {}, { port: 1111, seed: 'file', frozen: true, users: ['file:1'] }],
    [
      'the environment over the config file',
      ['--config', config],
      { TOKEN_SIM_PORT: '2222', TOKEN_SIM_SEED: 'env', TOKEN_SIM_FROZEN: 'false', TOKEN_SIM_USER: 'env:2' },
      { port: 2222, seed: 'env', frozen: false, users: ['env:2'] },
    ],
    [
      'flags over the environment',
      ['--config', config, '--port', '3333', '--seed', 'flag', '--user', 'flag:3'],
      { TOKEN_SIM_PORT: '2222', TOKEN_SIM_SEED: 'env', TOKEN_SIM_USER: 'env:2' },
      { port: 3333, seed: 'flag', frozen: true, users: ['flag:3'] },
    ],
  ])('takes %s', async (_, args, env, expected) => {
    const { options } = await optionsOf(args, env);
    expect(options).toMatchObject(expected);
    if (!('seed' in expected)) expect(options.seed).toBeUndefined();
  });

  it('takes TOKEN_SIM_CONFIG as --config, and --config over it', async () => {
    const other = tempFile('other.yaml', 'seed: other\n');
    expect((await optionsOf([], { TOKEN_SIM_CONFIG: config })).options.seed).toBe('file');
    expect((await optionsOf(['--config', other], { TOKEN_SIM_CONFIG: config })).options.seed).toBe('other');
  });

  it('treats a variable set to the empty string as unset', async () => {
    const { options } = await optionsOf(['--config', config], { TOKEN_SIM_PORT: '', TOKEN_SIM_SEED: '', TOKEN_SIM_CONFIG: '' });
    expect(options).toMatchObject({ port: 1111, seed: 'file' });
  });
});

describe('options from the environment', () => {
  it('reads every option from TOKEN_SIM_<OPTION>', async () => {
    const scenario = scenarioFile('outage.yaml');
    const { options, watch } = await optionsOf([], {
      TOKEN_SIM_PORT: '0',
      TOKEN_SIM_HOST: '::1',
      TOKEN_SIM_PROFILE: 'live',
      TOKEN_SIM_TOKEN_LIFETIME: 'P1D',
      TOKEN_SIM_TOKEN_EXTENSION: 'PT1H',
      TOKEN_SIM_NOW: '2030-01-01T00:00:00Z',
      TOKEN_SIM_FROZEN: 'true',
      TOKEN_SIM_SEED: 'abc',
      TOKEN_SIM_FIXTURES: FIXTURES,
      TOKEN_SIM_USER: 'qa:pw',
      TOKEN_SIM_VENDOR: 'worldpay',
      TOKEN_SIM_BASE_URL: 'https://try.example.com',
      TOKEN_SIM_ADMIN_TOKEN: 's3cret',
      TOKEN_SIM_JOURNAL_SIZE: '5',
      TOKEN_SIM_JOURNAL_TOTAL: '50',
      TOKEN_SIM_SCENARIO: scenario,
      TOKEN_SIM_WATCH: '1',
      TOKEN_SIM_LOG: 'json',
    });
    expect(options).toEqual({
      port: 0,
      host: '::1',
      profile: 'live',
      tokenLifetime: 'P1D',
      tokenExtension: 'PT1H',
      now: '2030-01-01T00:00:00Z',
      frozen: true,
      seed: 'abc',
      fixtures: FIXTURES,
      users: ['qa:pw'],
      vendor: 'worldpay',
      baseUrl: 'https://try.example.com',
      adminToken: 's3cret',
      journalSize: 5,
      journalTotal: 50,
      scenarios: [scenario],
      log: 'json',
    });
    expect(watch).toEqual([scenario]);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('reads TOKEN_SIM_FROZEN=%s as %p', async (text, frozen) => {
    expect((await optionsOf([], { TOKEN_SIM_FROZEN: text })).options.frozen).toBe(frozen);
  });

  it.each([
    ['comma-separated', 'a:1,b:2', ['a:1', 'b:2']],
    ['comma-separated with spaces and a trailing comma', ' a:1 , b:2 ,', ['a:1', 'b:2']],
    ['newline-separated, keeping commas inside an item', 'a:p,w\nb:2\n', ['a:p,w', 'b:2']],
    ['CRLF-separated', 'a:1\r\nb:2', ['a:1', 'b:2']],
  ])('reads a repeatable option %s', async (_, text, users) => {
    expect((await optionsOf([], { TOKEN_SIM_USER: text })).options.users).toEqual(users);
  });

  it('takes the plural of a repeatable option too (TOKEN_SIM_SCENARIOS, TOKEN_SIM_USERS)', async () => {
    const files = [scenarioFile('outage.yaml'), scenarioFile('slow-network.yaml')];
    const { options } = await optionsOf([], { TOKEN_SIM_SCENARIOS: files.join(','), TOKEN_SIM_USERS: 'a:1' });
    expect(options).toMatchObject({ scenarios: files, users: ['a:1'] });
  });

  it('warns about a TOKEN_SIM_ variable that is no option, with the one it probably meant, and starts anyway', async () => {
    const { options, err } = await optionsOf([], { TOKEN_SIM_PROT: '1', TOKEN_SIM_JOURNALSIZE: '3', TOKEN_SIM_ZZZ: 'x', TOKEN_SIM_PORT: '0' });
    expect(err).toEqual([
      'token-sim: warning: TOKEN_SIM_JOURNALSIZE is not a token-sim option (did you mean TOKEN_SIM_JOURNAL_SIZE?); it is ignored',
      'token-sim: warning: TOKEN_SIM_PROT is not a token-sim option (did you mean TOKEN_SIM_PORT?); it is ignored',
      'token-sim: warning: TOKEN_SIM_ZZZ is not a token-sim option; it is ignored',
    ]);
    expect(options.port).toBe(0);
  });

  it('does not warn about TOKEN_SIM_URL (the test-runner helpers set it) or other programs\' variables', async () => {
    const { err } = await optionsOf([], { TOKEN_SIM_URL: 'http://127.0.0.1:1234', PORT: 'x', NO_COLOR: '1' });
    expect(err).toEqual([]);
  });

  it.each([
    [{ TOKEN_SIM_PORT: 'abc' }, "token-sim: TOKEN_SIM_PORT must be a whole number from 0 to 65535, got 'abc'"],
    [{ TOKEN_SIM_PORT: '70000' }, "token-sim: TOKEN_SIM_PORT must be a whole number from 0 to 65535, got '70000'"],
    [{ TOKEN_SIM_JOURNAL_SIZE: '-1' }, "token-sim: TOKEN_SIM_JOURNAL_SIZE must be a whole number, got '-1'"],
    [{ TOKEN_SIM_JOURNAL_TOTAL: '1e3' }, "token-sim: TOKEN_SIM_JOURNAL_TOTAL must be a whole number, got '1e3'"],
    [{ TOKEN_SIM_FROZEN: 'yes' }, "token-sim: TOKEN_SIM_FROZEN must be true, false, 1 or 0, got 'yes'"],
    [{ TOKEN_SIM_WATCH: 'on' }, "token-sim: TOKEN_SIM_WATCH must be true, false, 1 or 0, got 'on'"],
    [{ TOKEN_SIM_PROFILE: 'forever' }, "token-sim: TOKEN_SIM_PROFILE must be try or live, got 'forever'"],
    [{ TOKEN_SIM_LOG: 'loud' }, "token-sim: TOKEN_SIM_LOG must be pretty, json or silent, got 'loud'"],
    [{ TOKEN_SIM_USER: 'a:1,nocolon' }, "token-sim: TOKEN_SIM_USER must be name:password, got 'nocolon'"],
    [{ TOKEN_SIM_BASE_URL: 'ftp://x' }, "token-sim: TOKEN_SIM_BASE_URL must be an http(s) URL, got 'ftp://x'"],
    [{ TOKEN_SIM_FIXTURES: '/nonexistent/f.json' }, 'token-sim: TOKEN_SIM_FIXTURES names a file that cannot be read: /nonexistent/f.json (ENOENT)'],
    [{ TOKEN_SIM_SCENARIO: '/nonexistent/s.yaml' }, 'token-sim: TOKEN_SIM_SCENARIO names a file that cannot be read: /nonexistent/s.yaml (ENOENT)'],
    [{ TOKEN_SIM_USER: 'a:1', TOKEN_SIM_USERS: 'b:2' }, 'token-sim: TOKEN_SIM_USER and TOKEN_SIM_USERS are the same option: set one of them'],
  ])('refuses %p with one line naming the variable and exit code 2', async (env, line) => {
    expect(await refusal([], env)).toBe(line);
  });

  it.each([
    [{ TOKEN_SIM_NOW: 'tomorrow' }, /^token-sim: TOKEN_SIM_NOW must be .*'tomorrow'/],
    [{ TOKEN_SIM_TOKEN_LIFETIME: 'P0D' }, /^token-sim: TOKEN_SIM_TOKEN_LIFETIME must be a positive ISO 8601 duration/],
    [{ TOKEN_SIM_TOKEN_EXTENSION: 'seven days' }, /^token-sim: TOKEN_SIM_TOKEN_EXTENSION must be a positive ISO 8601 duration/],
    [{ TOKEN_SIM_VENDOR: 'a b' }, /^token-sim: TOKEN_SIM_VENDOR must be letters, digits, dots or dashes/],
    [{ TOKEN_SIM_ADMIN_TOKEN: 'a b' }, /^token-sim: TOKEN_SIM_ADMIN_TOKEN must be a non-empty string without spaces/],
  ])('refuses %p with the simulator\'s own rule, naming the variable', async (env, pattern) => {
    expect(await refusal([], env)).toMatch(pattern);
  });

  it('lists every refused variable on the one line', async () => {
    expect(await refusal([], { TOKEN_SIM_PORT: 'x', TOKEN_SIM_LOG: 'y' })).toBe(
      "token-sim: TOKEN_SIM_PORT must be a whole number from 0 to 65535, got 'x'; TOKEN_SIM_LOG must be pretty, json or silent, got 'y'",
    );
  });

  it('reads a number the same way from a flag and a variable: past 2^53 it is no whole number either way (decision 0063)', async () => {
    const huge = '99999999999999999999';
    expect(await refusal(['--journal-size', huge])).toBe(`token-sim: option '--journal-size <n>' argument '${huge}' is invalid. must be a whole number`);
    expect(await refusal([], { TOKEN_SIM_JOURNAL_SIZE: huge })).toBe(`token-sim: TOKEN_SIM_JOURNAL_SIZE must be a whole number, got '${huge}'`);
    expect((await optionsOf(['--journal-size', '9007199254740991'])).options.journalSize).toBe(9007199254740991);
  });

  it('lets a flag stand when the variable it overrides is fine', async () => {
    expect((await optionsOf(['--profile', 'try'], { TOKEN_SIM_PROFILE: 'live' })).options.profile).toBe('try');
  });
});

describe('options from a config file', () => {
  it('reads every option from a YAML file, resolving its file paths against the file\'s folder', async () => {
    const dir = folderWith({
      'conf/token-sim.yaml': [
        'port: 0',
        'host: 127.0.0.2',
        'profile: live',
        'tokenLifetime: P1D',
        'tokenExtension: PT1H',
        'now: 2030-01-01T00:00:00Z',
        'frozen: true',
        'seed: abc',
        'fixtures: ../data/fixtures.json',
        'users: [qa:pw, ops:pw2]',
        'vendor: worldpay',
        'baseUrl: https://try.example.com',
        'adminToken: s3cret',
        'journalSize: 5',
        'journalTotal: 50',
        'scenarios:',
        '  - outage.yaml',
        `  - ${scenarioFile('slow-network.yaml')}`,
        'watch: true',
        'log: json',
        '',
      ].join('\n'),
      'conf/outage.yaml': 'name: outage\nrules: []\n',
      'data/fixtures.json': '{}',
    });
    const { options, watch } = await optionsOf(['--config', join(dir, 'conf/token-sim.yaml')]);
    const scenarios = [join(dir, 'conf/outage.yaml'), scenarioFile('slow-network.yaml')];
    expect(options).toEqual({
      port: 0,
      host: '127.0.0.2',
      profile: 'live',
      tokenLifetime: 'P1D',
      tokenExtension: 'PT1H',
      now: '2030-01-01T00:00:00Z',
      frozen: true,
      seed: 'abc',
      fixtures: join(dir, 'data/fixtures.json'),
      users: ['qa:pw', 'ops:pw2'],
      vendor: 'worldpay',
      baseUrl: 'https://try.example.com',
      adminToken: 's3cret',
      journalSize: 5,
      journalTotal: 50,
      scenarios,
      log: 'json',
    });
    expect(watch).toEqual(scenarios);
  });

  it('reads JSON, and takes the CLI\'s singular names (scenario, user) with one value or a list', async () => {
    const dir = folderWith({ 'c.json': JSON.stringify({ scenario: 'one.yaml', user: 'qa:pw' }), 'one.yaml': 'name: one\nrules: []\n' });
    const { options } = await optionsOf(['--config', join(dir, 'c.json')]);
    expect(options).toMatchObject({ scenarios: [join(dir, 'one.yaml')], users: ['qa:pw'] });
  });

  it('leaves a relative --config path and the paths inside it to be resolved from where they are', async () => {
    const dir = folderWith({ 'sub/c.yaml': 'fixtures: f.json\n', 'sub/f.json': '{}' });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect((await optionsOf(['--config', 'sub/c.yaml'])).options.fixtures).toBe(join(dir, 'sub/f.json'));
    } finally {
      process.chdir(cwd);
    }
  });

  it.each([
    ['a misspelt key, with the key it probably meant', { prot: 8080 }, '$.prot is not an option (did you mean port?)'],
    ['a kebab-case key', { 'token-lifetime': 'P1D' }, "$['token-lifetime'] is not an option (did you mean tokenLifetime?)"],
    ['a key nothing is close to', { colour: true }, '$.colour is not an option'],
    ['a port as a string', { port: '8080' }, '$.port must be a whole number from 0 to 65535, got "8080"'],
    ['a port out of range', { port: 70000 }, '$.port must be a whole number from 0 to 65535, got 70000'],
    ['a fractional journal size', { journalSize: 1.5 }, '$.journalSize must be a whole number, got 1.5'],
    ['frozen as a string', { frozen: 'true' }, '$.frozen must be true or false, got "true"'],
    ['an unknown profile', { profile: 'forever' }, '$.profile must be try or live, got "forever"'],
    ['a seed as a number', { seed: 42 }, '$.seed must be a string, got 42'],
    ['a list with a number in it', { users: ['a:1', 2] }, '$.users must be a string or a list of strings, got ["a:1",2]'],
    ['both scenario and scenarios', { scenario: scenarioFile('outage.yaml'), scenarios: [scenarioFile('outage.yaml')] }, '$.scenarios: scenario and scenarios are the same option: give one of them'],
    ['a missing fixtures file', { fixtures: '/nonexistent/f.json' }, '$.fixtures names a file that cannot be read: /nonexistent/f.json (ENOENT)'],
  ])('refuses %s with one line naming the file and the JSONPath', async (_, data, problem) => {
    const file = tempFile('token-sim.json', JSON.stringify(data));
    expect(await refusal(['--config', file])).toBe(`token-sim: config file ${file}: ${problem}`);
  });

  it('refuses an unparsable date with the simulator\'s own rule at $.now', async () => {
    const file = tempFile('token-sim.yaml', 'now: tomorrow\n');
    expect(await refusal(['--config', file])).toMatch(new RegExp(`^token-sim: config file ${file}: \\$\\.now must be .*'tomorrow'`));
  });

  it('lists every problem of the file on the one line', async () => {
    const file = tempFile('token-sim.yaml', 'prot: 1\nlog: loud\nseed: ok\n');
    expect(await refusal(['--config', file])).toBe(
      `token-sim: config file ${file}: $.prot is not an option (did you mean port?); $.log must be pretty, json or silent, got "loud"`,
    );
  });

  it.each([
    ['a YAML syntax error, with its line', 'c.yaml', 'port: 1\n  bad: [\n', /^token-sim: config file .*c\.yaml is not valid YAML at line \d+, column \d+$/],
    ['a JSON syntax error', 'c.json', '{"port": ', /^token-sim: config file .*c\.json is not valid JSON$/],
    ['a list instead of an object', 'c.yaml', '- port\n', /^token-sim: config file .*c\.yaml: \$ must be an object of options/],
    ['an empty file', 'c.yaml', '', /^token-sim: config file .*c\.yaml: \$ must be an object of options/],
  ])('refuses %s', async (_, name, text, pattern) => {
    expect(await refusal(['--config', tempFile(name, text)])).toMatch(pattern);
  });

  it('refuses a config file it cannot read, named by --config or TOKEN_SIM_CONFIG', async () => {
    expect(await refusal(['--config', '/nonexistent/c.yaml'])).toBe('token-sim: cannot read config file /nonexistent/c.yaml: ENOENT');
    expect(await refusal([], { TOKEN_SIM_CONFIG: '/nonexistent/d.yaml' })).toBe('token-sim: cannot read config file /nonexistent/d.yaml: ENOENT');
  });
});

describe('options from every source, end to end', () => {
  it('starts with the config file\'s scenario and seed, the environment\'s clock and the flag\'s port', async () => {
    const dir = folderWith({
      'token-sim.yaml': 'port: 1\nseed: from-file\nnow: 2031-01-01T00:00:00Z\nfrozen: true\nscenario: scenarios/outage.yaml\nlog: silent\n',
      'scenarios/outage.yaml': 'name: local-outage\nrules: []\n',
    });
    const { run, url } = await startCli(['--port', '0'], { env: { TOKEN_SIM_CONFIG: join(dir, 'token-sim.yaml'), TOKEN_SIM_NOW: '2030-06-01T00:00:00Z' } });
    try {
      expect(await (await fetch(`${url}/_sim/clock`)).json()).toEqual({ now: '2030-06-01T00:00:00Z', frozen: true });
      const loaded = (await (await fetch(`${url}/_sim/scenarios`)).json()) as { scenarios: { name: string }[] };
      expect(loaded.scenarios.map((s) => s.name)).toEqual(['local-outage']);
      expect(run.err).toEqual([]);
    } finally {
      await run.stop();
    }
  });
});

describe('--allowed-host and --allowed-origin (decision 0042)', () => {
  it('read from flags, TOKEN_SIM_* variables (singular or plural) and a config file', async () => {
    expect((await optionsOf(['--allowed-host', 'a.example', '--allowed-host', 'b.example', '--allowed-origin', 'http://localhost:3000'])).options).toMatchObject({
      allowedHosts: ['a.example', 'b.example'],
      allowedOrigins: ['http://localhost:3000'],
    });
    expect((await optionsOf([], { TOKEN_SIM_ALLOWED_HOSTS: 'a.example,*', TOKEN_SIM_ALLOWED_ORIGIN: 'https://app.example' })).options).toMatchObject({
      allowedHosts: ['a.example', '*'],
      allowedOrigins: ['https://app.example'],
    });
    const config = tempFile('token-sim.yaml', 'allowedHosts: [c.example]\nallowedOrigin: http://127.0.0.1:5173\n');
    expect((await optionsOf(['--config', config])).options).toMatchObject({ allowedHosts: ['c.example'], allowedOrigins: ['http://127.0.0.1:5173'] });
  });

  it.each([
    [['--allowed-host', 'http://a.example'], "token-sim: --allowed-host must be a host name (no scheme, no port) or *, got 'http://a.example'"],
    [['--allowed-host', 'a.example:80'], "token-sim: --allowed-host must be a host name (no scheme, no port) or *, got 'a.example:80'"],
    [['--allowed-origin', 'localhost:3000'], "token-sim: --allowed-origin must be an origin such as http://localhost:3000 (scheme, host and port only), got 'localhost:3000'"],
    [['--allowed-origin', 'http://localhost:3000/app'], "token-sim: --allowed-origin must be an origin such as http://localhost:3000 (scheme, host and port only), got 'http://localhost:3000/app'"],
  ])('refuses %j with one line', async (args, line) => {
    expect(await refusal(args)).toBe(line);
  });
});
