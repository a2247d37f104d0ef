/** Named streams per tenant (one test's draws never shift another's), an sfc32 each seeded by HMAC(key, name); snapshots keep draw counts. */
import { createHmac, type KeyObject } from 'node:crypto';
import type { Ids } from '../domain/ports.js';
import { BoundedMap } from './bounded-map.js';

const DIGITS = '0123456789';
const UPPER_ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The simulator's generated values: the Ids port's, webhook and correlation ids, and the numbers rules draw. */
export type IdSource = Streams & Record<Kind, (tenant: string) => string>;

/** Small Fast Counter PRNG (Chris Doty-Humphrey's sfc32): 128 bits of state, good statistics, no crypto; a call, its next word. */
function sfc32(seed: Buffer): () => number {
  const s = new Uint32Array([seed.readUInt32LE(0), seed.readUInt32LE(4), seed.readUInt32LE(8), seed.readUInt32LE(12)]);
  const next = (): number => {
    const a = s[0] ?? 0;
    const b = s[1] ?? 0;
    const c = s[2] ?? 0;
    const d = s[3] ?? 0;
    const t = (((a + b) >>> 0) + d) >>> 0;
    s[3] = (d + 1) >>> 0;
    s[0] = b ^ (b >>> 9);
    s[1] = (c + (c << 3)) >>> 0;
    s[2] = (((c << 21) | (c >>> 11)) + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}
/**
 * nanoid 5.1's `customRandom` (https://github.com/ai/nanoid, MIT License, Copyright 2017 Andrey Sitnik), exactly, so
 * seeded ids stay byte-identical; local as nanoid 5 is ESM-only (decision 0019).
 */
export function customRandom(alphabet: string, size: number, getRandom: (bytes: number) => Uint8Array): () => string {
  const safeByteCutoff = 256 - (256 % alphabet.length);
  // A power-of-two alphabet takes every byte, so nanoid asks for `size` bytes at a time.
  const step = safeByteCutoff === 256 ? size : Math.ceil((1.6 * 256 * size) / safeByteCutoff);
  return () => {
    let id = '';
    while (id.length < size) {
      const bytes = getRandom(step);
      for (let i = step; i-- > 0 && id.length < size; ) {
        const byte = bytes[i] ?? 256;
        if (byte < safeByteCutoff) id += alphabet[byte % alphabet.length];
      }
    }
    return id;
  };
}

/** Streams of numbers, not ids. No kind has a colon: a counter's tenant follows the first one. */
export type FractionKind = 'chance' | 'delay';

/** Each id stream's prefix, alphabet and size. */
const SHAPES = {
  tokenId: ['99', DIGITS, 17],
  authorizationCode: ['', UPPER_ALNUM, 6],
  schemeReference: ['', UPPER_ALNUM, 15],
  paymentId: ['99', DIGITS, 17],
  webhookId: ['', UPPER_ALNUM, 16],
} as const;
type Kind = keyof typeof SHAPES;
/** A card's payment account reference: drawn like an id, from a stream of its own seeded by the card number. */
const PAR_SHAPE = ['', UPPER_ALNUM, 29] as const;

/** Hex digits in the 8-4-4-4-12 shape of a UUID (fewer than 32: its start, up to the last dash). */
const uuidShaped = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

interface Stream {
  kind: Kind | FractionKind;
  rng: () => number;
  draws: number;
}

/** `processName`: each of several processes sharing a store names itself, so their correlation ids never collide (decision 0039). */
export function createIdSource(key: KeyObject, processName?: string): IdSource {
  const streams = new Streams(key, processName);
  const ids = Object.fromEntries(Object.keys(SHAPES).map((kind) => [kind, (tenant: string) => streams.draw(kind as Kind, tenant)]));
  return Object.assign(streams, ids as Record<Kind, (tenant: string) => string>);
}

export class Streams implements Pick<Ids, 'eventId' | 'paymentAccountReference'> {
  private readonly streams = new Map<string, Stream>();
  /** Positions from a state import, caught up with when a stream is first used again. */
  private restored = new Map<string, number>();
  /** Every stream kind seen, for one tenant's counters. */
  private readonly kinds = new Set<string>();
  /** A generator per shape, taking its bytes from `source`, the stream drawn. */
  private readonly generators = new Map<readonly [string, string, number], () => string>();
  private source: (() => number) | undefined;
  private readonly correlationPrefix: string;
  private correlationCount = 0;
  /** Recent cards' payment account references: a value of seed and number, so a cache, bounded. */
  private readonly pars = new BoundedMap<string, string>(10_000);

  constructor(private readonly key: KeyObject, processName: string | undefined) {
    this.correlationPrefix = uuidShaped(this.seedOf(processName === undefined ? 'correlationId' : `correlationId:${processName}`).toString('hex', 0, 10));
    for (const shape of [...Object.values(SHAPES), PAR_SHAPE]) this.generators.set(shape, customRandom(shape[1], shape[2], this.nextBytes));
  }

  private seedOf(name: string): Buffer {
    return createHmac('sha256', this.key).update(name).digest();
  }

  /** The drawn stream's next bytes: its 32-bit words, little-endian (byte by byte: a Buffer per draw cost a sale 5 % CPU). */
  private readonly nextBytes = (size: number): Uint8Array => {
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i += 4) {
      const word = this.source?.() ?? 0;
      // A Uint8Array keeps the low 8 bits.
      for (let j = 0; j < 4 && i + j < size; j++) out[i + j] = word >>> (8 * j);
    }
    return out;
  };

  private generate(rng: () => number, shape: readonly [string, string, number]): string {
    this.source = rng;
    return shape[0] + (this.generators.get(shape) as () => string)();
  }

  /** An id of the stream's shape, or (a fraction stream) one 32-bit word as a number in [0, 1). */
  private next(stream: Stream): string | number {
    stream.draws++;
    const { kind } = stream;
    if (kind === 'chance' || kind === 'delay') return stream.rng() / 2 ** 32;
    return this.generate(stream.rng, SHAPES[kind]);
  }

  draw(kind: Kind, tenant: string): string {
    return this.next(this.streamOf(kind, tenant)) as string;
  }

  /** The stream of a kind and tenant, caught up with a restored position when first used. */
  private streamOf(kind: Kind | FractionKind, tenant: string): Stream {
    const name = `${kind}:${tenant}`;
    let stream = this.streams.get(name);
    if (!stream) {
      stream = { kind, rng: sfc32(this.seedOf(name)), draws: 0 };
      this.streams.set(name, stream);
      this.kinds.add(kind);
      const target = this.restored.get(name) ?? 0;
      while (stream.draws < target) this.next(stream);
    }
    return stream;
  }

  eventId(tenant: string, paymentId: string, seq: number): string {
    return uuidShaped(createHmac('sha256', this.key).update(`event\0${tenant}\0${paymentId}\0${seq}`).digest('hex'));
  }
  // The same for one card number in every sale and run: a value of the seed and the number, no stream.
  paymentAccountReference(cardNumber: string): string {
    return (
      this.pars.get(cardNumber) ??
      this.pars.remember(cardNumber, this.generate(sfc32(this.seedOf(`paymentAccountReference:${cardNumber}`)), PAR_SHAPE))
    );
  }
  /** A number in [0, 1) from the tenant's stream: a scenario's `chance` and delay draws (decision 0037). */
  fraction(kind: FractionKind, tenant: string): number {
    return this.next(this.streamOf(kind, tenant)) as number;
  }
  // A seeded 20-hex-digit prefix, then a counter: unique, reproducible, and cheap on every response.
  correlationId(): string {
    return `${this.correlationPrefix}${(++this.correlationCount).toString(16).padStart(12, '0')}`;
  }
  /** Draw counts of every stream, for state export. */
  counters(): Record<string, number> {
    return { ...Object.fromEntries(this.restored), ...Object.fromEntries([...this.streams].map(([name, st]) => [name, st.draws])) };
  }
  restoreCounters(counters: Record<string, number>): void {
    this.streams.clear();
    this.restored = new Map(Object.entries(counters));
    for (const name of this.restored.keys()) this.kinds.add(name.slice(0, name.indexOf(':')));
  }
  /** Draw counts of one tenant's streams (`<kind>:<tenant>`), for a shared store's replica (decision 0039). */
  tenantCounters(tenant: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const kind of this.kinds) {
      const name = `${kind}:${tenant}`;
      const n = this.streams.get(name)?.draws ?? this.restored.get(name) ?? 0;
      if (n > 0) out[name] = n;
    }
    return out;
  }
  /** Puts one tenant's streams at these draw counts (absent: 0), forward or back. */
  restoreTenantCounters(tenant: string, counters: Readonly<Record<string, number>>): void {
    for (const name of Object.keys(counters)) this.kinds.add(name.slice(0, name.indexOf(':')));
    for (const kind of this.kinds) {
      const name = `${kind}:${tenant}`;
      const target = counters[name] ?? 0;
      const stream = this.streams.get(name);
      if (stream && stream.draws <= target) {
        while (stream.draws < target) this.next(stream);
        continue;
      }
      this.streams.delete(name);
      if (target > 0) this.restored.set(name, target);
      else this.restored.delete(name);
    }
  }
}
