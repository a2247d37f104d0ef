/** What an operation of the simulated API takes and gives: no framework, no socket. */
import type { IncomingHttpHeaders } from 'node:http';
import type { PaymentScript } from '../../domain/payment.js';
import type { Payments } from '../../domain/payments.js';
import type { SaleOverride, SalesDeps } from '../../domain/sale.js';
import type { Vault } from '../../domain/vault.js';
import type { PaymentRefPurpose, RefCodec } from '../../infra/refs.js';
import type { BoundedMap } from '../../infra/bounded-map.js';
import type { MediaTypes } from '../media.js';
import type { ReadCache } from '../present.js';

/** A request as the pipeline parsed, authenticated and checked it. */
export interface ApiRequest {
  /** The query string without `?` ('' when none). */
  readonly query: string;
  /** The path parameter (a token ref), percent-decoded; undefined on routes without one. */
  readonly ref: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** The body as text ('' when the operation reads none). */
  readonly body: string;
  /** The authenticated username. */
  readonly tenant: string;
  /** The base of generated links: `--base-url`, or `http://<Host>`. */
  readonly baseUrl: string;
  /** A scenario's scripted sale outcome. */
  readonly saleOverride?: SaleOverride;
  /** A scenario's script for the payment's later life (a sale's), or for this refund (a refund's). */
  readonly paymentScript?: PaymentScript;
}

export interface ApiResponse {
  status: number;
  /** The Content-Type of `body`. */
  mediaType?: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

/** What the operations work with: the vault, the sales and payments, their refs, and what answers keep. */
export interface OperationDeps {
  vault: Vault;
  sales: SalesDeps;
  payments: Payments;
  refs: RefCodec;
  paymentRefs: RefCodec<PaymentRefPurpose>;
  media: MediaTypes;
  /** GET answers, kept per token until it changes. */
  reads: ReadCache;
  /** 200 answers to a create of a card on file, kept alike: one string for all, in answers and in the journal. */
  existing: ReadCache;
  /** Whether the credential may detokenize (`detokenize: true` in fixtures; decision 0031). */
  mayDetokenize: (tenant: string) => boolean;
  /** The base URLs the sales' payments keep: one string per base URL, not one per payment. */
  origins: BoundedMap<string, string>;
}

/** An operation of the simulated API: the request in, the answer out (or a thrown error). */
export type Operation = (deps: OperationDeps, req: ApiRequest) => ApiResponse;
