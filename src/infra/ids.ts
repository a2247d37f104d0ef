/**
 * Generated values from counter-based streams: value n of stream s is drawn from
 * HMAC-SHA256(key, s + n). With a seeded key every run yields the same sequence, and each tenant has
 * its own stream, so one test's tokens never shift another's ids.
 */
import { createHmac } from 'node:crypto';
import { customRandom } from 'nanoid';
import type { Ids } from '../domain/ports.js';

const DIGITS = '0123456789';
const UPPER_ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface IdSource extends Ids {
  correlationId(): string;
  /** Counters of every stream, for state export. */
  counters(): Record<string, number>;
  restoreCounters(counters: Record<string, number>): void;
  resetCounters(): void;
}

export function createIdSource(key: Buffer): IdSource {
  const counters = new Map<string, number>();

  /** The bytes of draw n of a stream; nanoid asks for as many as it needs. */
  function bytesOf(stream: string, n: number): (size: number) => Uint8Array {
    let block = 0;
    return (size) => {
      const out = new Uint8Array(size);
      let filled = 0;
      while (filled < size) {
        const chunk = createHmac('sha256', key).update(`${stream}#${n}#${block++}`).digest();
        const take = Math.min(chunk.length, size - filled);
        out.set(chunk.subarray(0, take), filled);
        filled += take;
      }
      return out;
    };
  }

  /** The next draw of a counted stream. */
  function draw(stream: string, alphabet: string, size: number): string {
    const n = counters.get(stream) ?? 0;
    counters.set(stream, n + 1);
    return customRandom(alphabet, size, bytesOf(stream, n))();
  }

  /** A value that depends only on the key and the stream name: the same every time. */
  const fixed = (stream: string, alphabet: string, size: number): string => customRandom(alphabet, size, bytesOf(stream, 0))();

  return {
    tokenId: (tenant) => `99${draw(`tokenId:${tenant}`, DIGITS, 17)}`,
    authorizationCode: (tenant) => draw(`authorizationCode:${tenant}`, UPPER_ALNUM, 6),
    schemeReference: (tenant) => draw(`schemeReference:${tenant}`, UPPER_ALNUM, 15),
    paymentAccountReference: (cardNumber) => fixed(`paymentAccountReference:${cardNumber}`, UPPER_ALNUM, 29),
    correlationId: () => draw('correlationId', '0123456789abcdef', 32).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
    counters: () => Object.fromEntries(counters),
    restoreCounters(next) {
      counters.clear();
      for (const [k, v] of Object.entries(next)) counters.set(k, v);
    },
    resetCounters: () => counters.clear(),
  };
}
