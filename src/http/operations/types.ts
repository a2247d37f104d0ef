/** What an operation of the simulated API takes and gives: no framework, no socket. */
import type { IncomingHttpHeaders } from 'node:http';
import type { PaymentScript } from '../../domain/payment.js';
import type { SaleOverride } from '../../domain/sale.js';

/** A request as an adapter parsed it, authenticated and checked. */
export interface ApiRequest {
  readonly method: string;
  /** The path as requested, without the query. */
  readonly path: string;
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
