/**
 * The shapes of a state snapshot (`exportState()`, `GET /_sim/state`, state files), declared once for the code
 * and the published types alike; state.ts and payment-state.ts read them with schemas checked against them.
 */
import type { BillingAddress } from '../wire/schemas.js';
import type { Scenario } from '../scenarios/schema.js';

export interface ClockState {
  /** ISO 8601. */
  now: string;
  frozen: boolean;
}

export interface ExpiryDate {
  month: number;
  year: number;
}

/** One token in a snapshot: its card number sealed with the simulator's keys. */
export interface TokenState {
  tenant: string;
  tokenId: string;
  entity: string;
  namespace?: string | undefined;
  description: string;
  maskedCardNumber?: string | undefined;
  sealedCardNumber: string;
  cardHolderName: string;
  cardExpiryDate: ExpiryDate;
  billingAddress?: BillingAddress | undefined;
  network: string;
  countryCode: string;
  fundingType: string;
  schemeTransactionReference?: string | undefined;
  createdAt: string;
  expiresAt: string;
  lifetimeMs: number;
  /** Absent in snapshots of older versions: the importing simulator's profile applies. */
  extension?: string | undefined;
  conflict?:
    | {
        values: {
          cardHolderName?: string | undefined;
          cardExpiryDate?: ExpiryDate | undefined;
          billingAddress?: BillingAddress | undefined;
          schemeTransactionReference?: string | undefined;
        };
        expiresAt: string;
      }
    | undefined;
}

export interface RuleCounts {
  matches: number;
  applications: number;
}

/** `exportState()` / `GET /_sim/state`: every token, the clocks, the counters and tenants' scenario sets. */
export interface StateSnapshot {
  format: 'token-sim-state';
  version: 1;
  clock: ClockState;
  tenantClocks: Record<string, ClockState>;
  counters: {
    ids: Record<string, number>;
    scenarios?: Record<string, Record<string, RuleCounts>> | undefined;
    /** The counts of tenants' own scenario sets: tenant → rule label → counts. */
    tenantScenarios?: Record<string, Record<string, RuleCounts>> | undefined;
  };
  tokens: TokenState[];
  /** Tenants' own scenario sets. */
  scenarios?: Record<string, Scenario[]> | undefined;
  /** Payments with their events and what the clock will bring. */
  payments?: PaymentState[] | undefined;
}

// The vendor's event names, declared once in the domain (a scenario's webhook rules match them too).
import type { PaymentEventType } from '../domain/payment.js';
export type { PaymentEventType } from '../domain/payment.js';

export interface PaymentEventState {
  /** The event's number within its payment (its webhook's eventId is derived from it). */
  seq: number;
  type: PaymentEventType;
  at: string;
  amount: number;
  reference?: string | undefined;
  refusal?: { code: string; description: string } | undefined;
}

/** A payment in a snapshot. */
export interface PaymentState {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  entity: string;
  currency: string;
  amount: number;
  createdAt: string;
  origin?: string | undefined;
  settlement: 'none' | 'pending' | 'settled' | 'failed' | 'cancelled';
  refunded: number;
  refundRequested: boolean;
  reversed: boolean;
  script: { settlementFails?: boolean | undefined; refundFailure?: { code: string; description: string } | undefined };
  events: PaymentEventState[];
  scheduled: PaymentEventState[];
  eventCount: number;
}
