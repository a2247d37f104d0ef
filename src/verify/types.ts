/**
 * The library's record and verify shapes (contract 4.5). No node types in them (the published declarations
 * stay self-contained, decision 0047): Uint8Array and string only.
 */
import type { SimulatorOptions } from '../config/options.js';

export interface RecordOptions {
  /** The API to record, e.g. `https://try.access.worldpay.com` (a path, if any, prefixes every request). */
  upstream: string;
  /** The HAR 1.2 file written after each exchange. */
  out: string;
  /** The proxy's port (default 0: a free one); it listens on 127.0.0.1. */
  port?: number;
  /** PEM CA certificate(s) trusted for an https upstream besides the system store: text or bytes. */
  upstreamCa?: string | Uint8Array;
}

export interface Recording {
  /** The proxy's own address: send the client here instead of the upstream. */
  readonly url: string;
  /** How many exchanges the HAR holds so far. */
  readonly exchanges: () => number;
  /** Stops listening; resolves once the HAR holds every exchange that completed. */
  close(): Promise<void>;
}

/** What a difference is about, in the order the report groups them. */
export const DIFFERENCE_KINDS = ['status', 'errorName', 'jsonPath', 'header', 'field missing', 'field extra', 'type', 'link'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface Difference {
  kind: DifferenceKind;
  /** The request's position in the recording, from 1. */
  index: number;
  method: string;
  /** The path as recorded (without the query). */
  path: string;
  /** What it is about: a header name, a JSONPath (`$.outcome`, `$.items[]`), a link relation; empty for status and errorName. */
  at: string;
  /** The recording's side and the simulator's; undefined where that side has none. */
  recorded?: string;
  simulator?: string;
}

export interface VerifyOptions {
  /** The recording: a HAR file's path, or its parsed document. */
  har: string | { log: { entries: readonly unknown[] } };
  /** The fresh simulator's options, as startSimulator takes them (`port` is always 0). */
  options?: SimulatorOptions;
}

export interface VerifyReport {
  /** How many requests were replayed. */
  requests: number;
  differences: Difference[];
  /** The differences counted by kind (kinds with none left out). */
  counts: Partial<Record<DifferenceKind, number>>;
}
