/**
 * HTTP Basic in O(1) in the number of users: digests compared in constant time (an unknown user against a digest no
 * password has); a header that passed is remembered, and a guess never matches one, so timing tells nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../infra/bounded-map.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The syntax RFC 7617 clients send (the `basic-auth` package's, which express-basic-auth used). */
const BASIC = /^ *[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9._~+/-]+=*) *$/;

/** Headers remembered per simulator: one per client credential in use, far more than a test run has. */
const VERIFIED_KEPT = 10_000;

export type Authenticate = (authorization: string | undefined) => string | undefined;

/** A checker for these username → password pairs: the username when the header holds valid credentials. */
export function createAuthenticator(passwords: ReadonlyMap<string, string>): Authenticate {
  const digests = new Map<string, Buffer>();
  for (const [username, password] of passwords) digests.set(username, digest(password));
  const nobody = digest(randomBytes(32).toString('hex'));
  const verified = new BoundedMap<string, string>(VERIFIED_KEPT);
  return (authorization) => {
    if (authorization === undefined) return undefined;
    const known = verified.get(authorization);
    if (known !== undefined) return known;
    const encoded = BASIC.exec(authorization)?.[1];
    if (encoded === undefined) return undefined;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    const username = decoded.slice(0, colon);
    const expected = digests.get(username);
    const matches = timingSafeEqual(digest(decoded.slice(colon + 1)), expected ?? nobody);
    if (!matches || expected === undefined) return undefined;
    return verified.remember(authorization, username);
  };
}
