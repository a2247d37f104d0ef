/**
 * The correlation header: its name follows the vendor (contract 3.3: `WP-CorrelationId` with `--vendor
 * worldpay`, else `Correlation-Id`), decided once when a simulator is built; the id is the client's own when
 * it sent a sane one under that name, else a new one (decision 0033).
 */
import type { IncomingMessage } from 'node:http';
import type { IdSource } from '../infra/ids.js';
import { maskCorrelationId } from '../wire/mask.js';

/** The vendors whose correlation header is not `Correlation-Id`, by vendor name in lower case. */
const VENDOR_HEADERS: ReadonlyMap<string, string> = new Map([['worldpay', 'WP-CorrelationId']]);

/** The name of the correlation header of a simulator for `vendor` (as `--vendor` gives it; any case). */
export const correlationHeaderFor = (vendor: string): string => VENDOR_HEADERS.get(vendor.toLowerCase()) ?? 'Correlation-Id';

const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Correlation {
  /** The header's name as answers write it. */
  readonly header: string;
  /** The same in lower case, as node keys request headers. */
  readonly key: string;
  /**
   * The client's own id when it sent a sane one under `header` (so it can tie its logs to ours), else a new
   * one. A card number in the client's id is masked: the id is echoed, journaled and logged.
   */
  idOf(req: IncomingMessage): string;
}

export function createCorrelation(header: string, ids: IdSource): Correlation {
  const key = header.toLowerCase();
  return {
    header,
    key,
    idOf(req) {
      const given = req.headers[key];
      return typeof given === 'string' && SAFE_CORRELATION_ID.test(given) ? maskCorrelationId(given) : ids.correlationId();
    },
  };
}
