import { describe, expect, it } from '@jest/globals';
import { ConfigError, DEFAULT_FIXTURES_PATH, loadFixturesFile } from '../../src/config/fixtures.js';
import { resolveConfig } from '../../src/config/options.js';

const fixtures = () => loadFixturesFile(DEFAULT_FIXTURES_PATH);

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('resolving options', () => {
  it('defaults to the try profile, port 8080 on loopback, vendor service and a silent log', () => {
    const c = resolveConfig();
    expect(c).toMatchObject({ profile: 'try', port: 8080, host: '127.0.0.1', vendor: 'service', log: 'silent', frozen: false });
    expect(c.lifetime.days).toBe(7);
    expect(c.credentials.get('merchant')).toEqual({ password: 'secret', entities: new Set(['default']), detokenize: false });
  });

  it('lets a fixtures credential detokenize only with detokenize: true, and never one added by --user', () => {
    const f = fixtures();
    f.credentials.push({ username: 'reader', password: 'pw', entities: ['default'], detokenize: true });
    f.credentials.push({ username: 'plain', password: 'pw', entities: ['default'], detokenize: false });
    const c = resolveConfig({ fixtures: f, users: ['qa:pw'] });
    expect([...c.credentials].map(([name, credential]) => [name, credential.detokenize])).toEqual([
      ['merchant', false],
      ['reader', true],
      ['plain', false],
      ['qa', false],
    ]);
    expect(resolveConfig({ fixtures: f, users: ['reader:other'] }).credentials.get('reader')?.detokenize).toBe(false);
  });

  it('refuses a detokenize that is not a boolean, at its JSONPath', () => {
    const f = fixtures() as unknown as { credentials: Record<string, unknown>[] };
    f.credentials.push({ username: 'reader', password: 'pw', entities: ['default'], detokenize: 'yes' });
    expect(messageOf(() => resolveConfig({ fixtures: f as never }))).toMatch(/\$\.credentials\[1\]\.detokenize: .*boolean/);
  });

  it('lets --user replace or add a credential with the default entity', () => {
    const c = resolveConfig({ users: ['merchant:other', 'qa:pa:ss'] });
    expect(c.credentials.get('merchant')?.password).toBe('other');
    expect(c.credentials.get('qa')?.password).toBe('pa:ss');
  });

  it('refuses a credential whose entity is not configured', () => {
    const f = fixtures();
    f.credentials.push({ username: 'x', password: 'y', entities: ['ghost'] });
    expect(messageOf(() => resolveConfig({ fixtures: f }))).toMatch(/'ghost'/);
  });

  it('lists every fixtures problem with its JSONPath', () => {
    const f = fixtures() as unknown as Record<string, unknown>;
    f.bins = [{ prefix: '4x', network: '', countryCode: 'gb', fundingType: 'credit' }, { prefix: '55-5', network: 'MC', countryCode: 'US', fundingType: 'credit' }];
    delete f.credentials;
    const message = messageOf(() => resolveConfig({ fixtures: f as never }));
    expect(message).toContain('$.credentials: credentials is required');
    expect(message).toContain('$.bins[0].prefix');
    expect(message).toContain('$.bins[0].network');
    expect(message).toContain('$.bins[0].countryCode');
    expect(message).toContain('$.bins[1].prefix');
  });

  it.each([
    [{ now: '2030-13-45T00:00:00Z' }, /--now/],
    [{ now: '2030-01-01T00:00:00' }, /--now/],
    // Outside the clock's range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (decision 0021).
    [{ now: '0000-12-31T23:59:59Z' }, /--now .*range/],
    [{ now: '9999-12-31T23:59:59-01:00' }, /--now .*range/],
    [{ now: 8_640_000_000_000_000 }, /--now .*range/],
    [{ now: new Date(-8_640_000_000_000_000) }, /--now .*range/],
    [{ baseUrl: 'ftp://x' }, /--base-url/],
    [{ vendor: 'a b' }, /--vendor/],
    [{ port: -1 }, /--port/],
  ])('refuses %p', (options, pattern) => {
    expect(messageOf(() => resolveConfig(options))).toMatch(pattern);
  });
});
