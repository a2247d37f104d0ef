/**
 * HTTP Basic authentication in O(1) in the number of users: one map lookup by username, then one
 * constant-time comparison of that user's password digest. An unknown user costs the same comparison
 * (against a digest no password has), so timing does not tell which usernames exist.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The syntax RFC 7617 clients send (the `basic-auth` package's, which express-basic-auth used). */
const BASIC = /^ *[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9._~+/-]+=*) *$/;

export type Authenticate = (authorization: string | undefined) => string | undefined;

/** A checker for these username → password pairs: the username when the header holds valid credentials. */
export function createAuthenticator(passwords: ReadonlyMap<string, string>): Authenticate {
  const digests = new Map<string, Buffer>();
  for (const [username, password] of passwords) digests.set(username, digest(password));
  const nobody = digest(randomBytes(32).toString('hex'));
  return (authorization) => {
    const encoded = authorization === undefined ? undefined : BASIC.exec(authorization)?.[1];
    if (encoded === undefined) return undefined;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    const username = decoded.slice(0, colon);
    const expected = digests.get(username);
    const matches = timingSafeEqual(digest(decoded.slice(colon + 1)), expected ?? nobody);
    return matches && expected !== undefined ? username : undefined;
  };
}
