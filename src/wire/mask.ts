/** Masks card data in anything the simulator records or shows: card numbers and CVCs never leave in full. */
import { maskCardNumber, passesLuhn } from '../domain/card.js';

const MAX_DEPTH = 64;
/** Runs of 12 to 19 digits not inside a longer run. */
const DIGIT_RUNS = /(?<![0-9])[0-9]{12,19}(?![0-9])/g;

/** Masks every Luhn-valid 12–19 digit run inside a text: a card number pasted into any field. */
export function maskCardNumbersIn(text: string): string {
  return text.replace(DIGIT_RUNS, (run) => (passesLuhn(run) ? maskCardNumber(run) : run));
}

/** Keys whose values are the simulator's own identifiers, never card data: a 19-digit token id can pass Luhn. */
const OWN_IDS = new Set(['tokenId', 'sealedCardNumber', 'href', 'correlationId']);

/** A copy of a JSON value with `cardNumber`s and card-number-like digits masked and `cvc`s starred. */
export function maskCardData(value: unknown, key?: string, depth = 0): unknown {
  if (key !== undefined && OWN_IDS.has(key)) return value;
  if (typeof value === 'string') {
    if (key !== undefined && /cvc|cvv|securitycode/i.test(key)) return '***';
    if (key !== undefined && /cardnumber/i.test(key)) return maskCardNumber(value);
    return maskCardNumbersIn(value);
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => maskCardData(v, undefined, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a "__proto__" key stays a plain key.
    Object.defineProperty(out, k, { value: maskCardData(v, k, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
