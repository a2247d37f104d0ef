/** Card numbers and CVCs in anything recorded or shown never leave in full: any JSON type, any digit grouping. */
import { maskCardNumber, passesLuhn } from '../domain/card.js';
import { MAX_JSON_DEPTH } from './json.js';

/** Digit groups joined by one separator each: a space or dash as people write them, or a URL's space (`+`, `%20`). */
const DIGIT_CHAINS = /[0-9]+(?:(?:[ +-]|%20)[0-9]+)*/g;
/** One group of a chain and the separator after it (the digits of a `%20` are no group's). */
const GROUP = /([0-9]+)(?:[ +-]|%20)?/g;
const MIN_PAN = 12;
const MAX_PAN = 19;

/**
 * How card data found is rewritten: masked (MASK), or stand-ins for a recording (verify/redact.ts). `pan` and
 * `cvc` keep the number of characters; `cvcNumber` takes a security code written as a JSON number.
 */
export interface CardRewrite {
  pan(digits: string): string;
  cvc(text: string): string;
  cvcNumber(value: number): unknown;
}

export const MASK: CardRewrite = { pan: maskCardNumber, cvc: () => '***', cvcNumber: () => '***' };

/**
 * A chain with every Luhn-valid window of 12–19 digits rewritten. A window is whole groups: never part of a
 * longer unbroken run (an order number), but beside other groups (`ref 12 4444 3333 2222 1111`). Overlapping
 * windows all rewrite.
 */
function rewriteChain(chain: string, rewrite: CardRewrite): string {
  if (chain.length < MIN_PAN) return chain;
  const starts: number[] = [];
  const runs: string[] = [];
  for (const m of chain.matchAll(GROUP)) {
    starts.push(m.index);
    runs.push(m[1] as string);
  }
  if (runs.length === 1) return chain.length <= MAX_PAN && passesLuhn(chain) ? rewrite.pan(chain) : chain;
  let changed: string[] | undefined;
  for (let i = 0; i < runs.length; i++) {
    let digits = '';
    for (let j = i; j < runs.length; j++) {
      digits += runs[j];
      if (digits.length > MAX_PAN) break;
      if (digits.length < MIN_PAN || !passesLuhn(digits)) continue;
      const replaced = rewrite.pan(digits);
      changed ??= [...chain];
      let seen = 0;
      for (let g = i; g <= j; g++) {
        const run = runs[g] as string;
        for (let k = 0; k < run.length; k++, seen++) if (replaced[seen] !== digits[seen]) changed[(starts[g] as number) + k] = replaced[seen] as string;
      }
    }
  }
  return changed ? changed.join('') : chain;
}

/** Every Luhn-valid card number in a text masked, grouped or not (first and last four and separators kept). */
export function maskCardNumbersIn(text: string, rewrite: CardRewrite = MASK): string {
  return text.replace(DIGIT_CHAINS, (chain) => rewriteChain(chain, rewrite));
}

/** A text's digits rewritten as one card number (all but the first and last four starred), separators kept. */
function rewriteDigitsOf(text: string, rewrite: CardRewrite): string {
  const digits = text.replace(/[^0-9]/g, '');
  // Eight digits or fewer are no card number (its first and last four would be all of it).
  if (digits.length <= 8) return text;
  const replaced = rewrite.pan(digits);
  let seen = 0;
  return text.replace(/[0-9]/g, () => replaced[seen++] as string);
}

/** `cvc: 123`, `"cvv2":"123"`, `securityCode=123`: a security code after its key, in any text. */
const CVC_IN_TEXT = /((?:cvc|cvv|security[_ -]?code)[a-z0-9_]*["']?\s*[:=][\s"'[]*)([0-9]+)/gi;
/** `cardNumber: 4444 3333 2222 1111` (even Luhn-invalid): a card number after its key, in any text. */
const PAN_IN_TEXT = /(card[_ -]?number[a-z0-9_]*["']?\s*[:=][\s"'[]*)([0-9](?:[0-9]|[ -](?=[0-9]))*)/gi;

/** Card data in text that is not JSON (a broken body, a header): codes and numbers after their keys, then any card number. */
export function maskCardText(text: string, rewrite: CardRewrite = MASK): string {
  const codes = text.replace(CVC_IN_TEXT, (_m, key: string, code: string) => key + rewrite.cvc(code));
  return maskCardNumbersIn(codes.replace(PAN_IN_TEXT, (_m, key: string, digits: string) => key + rewriteDigitsOf(digits, rewrite)), rewrite);
}

/** A client's Correlation-Id (letters, digits, `._:-`) masked where its digits, grouped by that punctuation, hold a card number. */
export function maskCorrelationId(id: string): string {
  const probe = id.replace(/[._:]/g, '-');
  const masked = maskCardNumbersIn(probe);
  if (masked === probe) return id;
  let out = '';
  for (let i = 0; i < id.length; i++) out += masked[i] === '*' ? '*' : id[i];
  return out;
}

/** A link with its authority masked (the Host may come from the client); the rest is ours (a ref may hold any digits). */
export function maskHref(href: string, rewrite: CardRewrite = MASK): string {
  const scheme = href.indexOf('://');
  if (scheme === -1) return href;
  const slash = href.indexOf('/', scheme + 3);
  return slash === -1 ? maskCardNumbersIn(href, rewrite) : maskCardNumbersIn(href.slice(0, slash), rewrite) + href.slice(slash);
}

/** Keys whose values are the simulator's own identifiers, never card data: a 19-digit token id can pass Luhn. */
const OWN_IDS = new Set(['tokenId', 'paymentId', 'eventId', 'sealedCardNumber', 'correlationId']);

/** What a key says about the values under it, at any depth (array items and nested objects included). */
type Kind = 'cvc' | 'pan' | undefined;
const kindOfKey = (key: string): Kind => (/cvc|cvv|securitycode/i.test(key) ? 'cvc' : /cardnumber/i.test(key) ? 'pan' : undefined);

/** Whether values under this key are card data (a card number or a security code), which no message repeats. */
export const isCardDataKey = (key: string): boolean => kindOfKey(key) !== undefined;

/** The fewest digits a number under a card-number key has before it is masked (the field's shortest valid length). */
const MIN_PAN_FIELD_DIGITS = 10;

function maskNumber(value: number, kind: Kind, rewrite: CardRewrite): unknown {
  if (kind === 'cvc') return rewrite.cvcNumber(value);
  const text = String(value);
  if (kind === 'pan') return text.replace(/[^0-9]/g, '').length >= MIN_PAN_FIELD_DIGITS ? rewrite.pan(text) : value;
  const masked = maskCardNumbersIn(text, rewrite);
  return masked === text ? value : masked;
}

/** A text under a key of this kind: card data rewritten whole, a link's authority masked, else `other`. */
function maskString(value: string, key: string | undefined, kind: Kind, rewrite: CardRewrite, other: (text: string, rewrite: CardRewrite) => string): string {
  if (kind === 'cvc') return rewrite.cvc(value);
  if (kind === 'pan') return rewrite.pan(value);
  return key === 'href' ? maskHref(value, rewrite) : other(value, rewrite);
}

/**
 * A copy of a JSON value with card data masked: under a `cardNumber`-like key (a string, or a number of 10+
 * digits) first and last four kept; under a `cvc`/`cvv`/`securityCode`-like key `***`; both at any depth under
 * the key (`inherited`). Elsewhere card numbers are masked (a masked number becomes a string).
 */
export function maskCardData(value: unknown, key?: string, depth = 0, rewrite: CardRewrite = MASK, inherited?: Kind): unknown {
  if (key !== undefined && OWN_IDS.has(key)) return value;
  const kind = key === undefined ? inherited : (kindOfKey(key) ?? inherited);
  if (typeof value === 'string') return maskString(value, key, kind, rewrite, maskCardNumbersIn);
  if (typeof value === 'number') return maskNumber(value, kind, rewrite);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => maskCardData(v, undefined, depth + 1, rewrite, kind));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a "__proto__" key stays a plain key.
    Object.defineProperty(out, k, { value: maskCardData(v, k, depth + 1, rewrite, kind), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A named text value (a query parameter) masked as maskCardData masks a field of that name. */
export function maskField(name: string, value: string, rewrite: CardRewrite = MASK): string {
  return OWN_IDS.has(name) ? value : maskString(value, name, kindOfKey(name), rewrite, maskCardText);
}

/** A JSON string (to the end of a text cut short), stepped over, or a number literal. */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"?|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/** Number literals holding a card number masked from their exact digits: JSON.parse rounds 17–19 digits past Luhn. */
function maskNumberLiterals(text: string, rewrite: CardRewrite): string {
  return text.replace(STRING_OR_NUMBER, (token) => {
    if (token.startsWith('"')) return token;
    const masked = maskCardNumbersIn(token, rewrite);
    // Masked, a string; replaced by a stand-in of digits (or not at all), still a number.
    return /^-?[0-9]+$/.test(masked) || masked === token ? masked : `"${masked}"`;
  });
}

/** A recorded body as it may be shown: JSON parsed and masked, anything else as masked text. */
export function maskBodyText(text: string, rewrite: CardRewrite = MASK): { json: true; value: unknown } | { json: false; text: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(maskNumberLiterals(text, rewrite)) as unknown;
  } catch {
    return { json: false, text: maskCardText(text, rewrite) };
  }
  return { json: true, value: maskCardData(parsed, undefined, 0, rewrite) };
}
