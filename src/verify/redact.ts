/** Redaction of a recording (contract 4.5): card data replaced by stand-ins, credentials reduced to the username (decision 0059). */
import { randomInt } from 'node:crypto';
import { passesLuhn } from '../domain/card.js';
import { maskBodyText, maskCardNumbersIn, maskCardText, maskField, maskHref, type CardRewrite } from '../wire/mask.js';

/** Digits of a card number that stay: the BIN, and never so many that fewer than four change. */
const keptDigits = (length: number): number => Math.max(0, Math.min(6, length - 4));

const randomDigits = (n: number): string => Array.from({ length: n }, () => String(randomInt(10))).join('');

/** A candidate stand-in for the digits of a card number: same length, same first digits, same Luhn result. */
function cardCandidate(digits: string): string {
  const valid = passesLuhn(digits);
  const keep = digits.slice(0, keptDigits(digits.length));
  const body = keep + randomDigits(digits.length - keep.length - 1);
  // Of the ten last digits exactly one makes the number valid: take it, or any of the nine others.
  const check = [...'0123456789'].filter((d) => passesLuhn(body + d) === valid);
  return body + (check[randomInt(check.length)] as string);
}

/** Draws of a stand-in before a small space (a short number or code) may give one already `taken`. */
const DRAWS = 100;

/**
 * A stand-in from `draw`: never `value`, and none of `taken` (the card data seen so far and the stand-ins handed
 * out) unless DRAWS draws found no other. Both are then taken. A code of one digit or none has no stand-in.
 */
function standIn(value: string, taken: Set<string>, draw: () => string): string {
  taken.add(value);
  for (let tries = 1; ; tries++) {
    const found = draw();
    if (found !== value && (tries > DRAWS || !taken.has(found))) return (taken.add(found), found);
  }
}

/** The value remembered for `key`, else a new one, made and remembered. */
const remembered = (map: Map<string, string>, key: string, make: () => string): string => map.get(key) ?? (map.set(key, make()).get(key) as string);

/** The card data of one recording and their stand-ins, consistent from its first exchange to its last. */
export class Redactor implements CardRewrite {
  readonly #cards = new Map<string, string>();
  readonly #taken = new Set<string>();
  readonly #codes = new Map<string, string>();

  /**
   * A card number as written (digits, maybe spaced or dashed): its digits replaced, the rest kept. A number
   * already masked (`4444********1111`, as the vendor answers it) is no card number and stays.
   */
  pan(value: string): string {
    const digits = value.replace(/[^0-9]/g, '');
    if (digits.length < 2 || value.includes('*')) return value;
    const replaced = remembered(this.#cards, digits, () => standIn(digits, this.#taken, () => cardCandidate(digits)));
    let i = 0;
    return value.replace(/[0-9]/g, () => replaced[i++] as string);
  }

  cvc(text: string): string {
    if (!/^[0-9]{2,}$/.test(text)) return '*'.repeat(text.length);
    return remembered(this.#codes, text, () => standIn(text, this.#taken, () => randomDigits(text.length)));
  }

  /** A code sent as a JSON number stays a number (the replay must meet the same validation). */
  cvcNumber(value: number): unknown {
    if (!Number.isSafeInteger(value) || value < 10) return value;
    return Number(this.cvc(String(value)));
  }

  /** A body's text: JSON redacted field by field (then written compactly), other text where keys or digits show it. */
  body(text: string): string {
    if (text === '') return text;
    const read = maskBodyText(text, this);
    return read.json ? JSON.stringify(read.value) : read.text;
  }

  /** A path and query: card numbers in the path, card data in each query value by its name. */
  target(pathAndQuery: string): string {
    const at = pathAndQuery.indexOf('?');
    if (at === -1) return maskCardNumbersIn(pathAndQuery, this);
    return `${maskCardNumbersIn(pathAndQuery.slice(0, at), this)}?${new URLSearchParams(this.query(pathAndQuery.slice(at + 1))).toString()}`;
  }

  /** A query string's pairs, redacted by name. */
  query(search: string): [string, string][] {
    return [...new URLSearchParams(search)].map(([name, value]) => [name, maskField(name, value, this)]);
  }

  /** A header's value: credentials reduced to the username, a link's authority and card data anywhere else. */
  header(name: string, value: string): string {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') return usernameOnly(value);
    if (lower === 'location' || lower === 'content-location') return maskHref(value, this);
    return maskCardText(value, this);
  }
}

/**
 * `Basic <base64 of user:password>` → `Basic <base64 of "user:">`: the username stays (it names the tenant), the
 * password goes. Any other scheme, or a Basic credential that does not decode, keeps its scheme alone.
 */
export function usernameOnly(value: string): string {
  const m = /^\s*(\S+)(?:\s+(\S*))?/.exec(value);
  if (!m) return '';
  const scheme = m[1] as string;
  const user = scheme.toLowerCase() === 'basic' && m[2] !== undefined ? userOf(m[2], true) : undefined;
  return user === undefined ? scheme : `${scheme} ${Buffer.from(`${user}:`, 'utf8').toString('base64')}`;
}

/** The user of a Basic credential's base64 `user:password` (`exact`: only where it encodes back the same). */
function userOf(base64: string, exact = false): string | undefined {
  const decoded = Buffer.from(base64, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1 || (exact && Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, ''))) return undefined;
  return decoded.slice(0, colon);
}

/** The username of a reduced (or full) Basic credential, or undefined. */
export function usernameOf(value: string | undefined): string | undefined {
  const m = value === undefined ? null : /^\s*basic\s+(\S+)/i.exec(value);
  return m ? userOf(m[1] as string) : undefined;
}
