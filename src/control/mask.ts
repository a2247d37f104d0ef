/** Masks card data in anything the simulator records or shows: card numbers and CVCs never leave in full. */
import { maskCardNumber, passesLuhn } from '../domain/card.js';

const MAX_DEPTH = 64;
const PAN_LIKE = /^[0-9]{12,19}$/;

/** A copy of a JSON value with `cardNumber`s and PAN-like strings masked and `cvc`s starred. */
export function maskCardData(value: unknown, key?: string, depth = 0): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && /cvc|cvv|securitycode/i.test(key)) return '***';
    if ((key !== undefined && /cardnumber|pan/i.test(key)) || (PAN_LIKE.test(value) && passesLuhn(value))) {
      return maskCardNumber(value);
    }
    return value;
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
