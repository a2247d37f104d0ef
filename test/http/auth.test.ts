/** Basic authentication: one lookup per user, constant-time comparison, remembered headers. */
import { describe, expect, it } from '@jest/globals';
import { createAuthenticator } from '../../src/http/auth.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('createAuthenticator', () => {
  const authenticate = createAuthenticator(new Map([['merchant', 'secret'], ['other', 'pw:with:colons']]));

  it('answers the username for valid credentials, however often they are sent', () => {
    expect(authenticate(basic('merchant', 'secret'))).toBe('merchant');
    expect(authenticate(basic('merchant', 'secret'))).toBe('merchant');
    expect(authenticate(basic('other', 'pw:with:colons'))).toBe('other');
  });

  it('refuses a wrong password after the right one was accepted', () => {
    expect(authenticate(basic('merchant', 'secret'))).toBe('merchant');
    expect(authenticate(basic('merchant', 'secreT'))).toBeUndefined();
    expect(authenticate(basic('merchant', 'secret '))).toBeUndefined();
    expect(authenticate(basic('other', 'secret'))).toBeUndefined();
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Bearer abc'],
    ['no colon', `Basic ${Buffer.from('merchant').toString('base64')}`],
    ['an unknown user', basic('nobody', 'secret')],
    ['characters outside base64', 'Basic !!!not-base64'],
  ])('refuses %s', (_name, header) => {
    expect(authenticate(header)).toBeUndefined();
  });

  it('accepts the scheme name in any case and spaces around the credentials, as RFC 7617 clients send them', () => {
    const encoded = Buffer.from('merchant:secret').toString('base64');
    expect(authenticate(`basic ${encoded}`)).toBe('merchant');
    expect(authenticate(`BASIC   ${encoded}  `)).toBe('merchant');
  });

  it('keeps answering correctly past the number of headers it remembers', () => {
    const users = new Map(Array.from({ length: 10_050 }, (_, i) => [`u${i}`, `p${i}`] as [string, string]));
    const many = createAuthenticator(users);
    for (let i = 0; i < 10_050; i++) expect(many(basic(`u${i}`, `p${i}`))).toBe(`u${i}`);
    expect(many(basic('u0', 'p0'))).toBe('u0');
    expect(many(basic('u0', 'p1'))).toBeUndefined();
  });
});
