/**
 * State snapshots: every token, the clocks and the id counters as JSON. Card numbers travel sealed (siv.ts,
 * keys from the seed): a snapshot shows no card number, and it imports only into a simulator with the same
 * seed (or the same process).
 */
import * as z from 'zod';
import { maskCardNumber } from '../domain/card.js';
import { formatDuration, parseDuration, type Duration } from '../domain/duration.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { cardIdentity, type Token } from '../domain/token.js';
import { schemaError, type FieldProblem } from '../wire/problems.js';
import { billingAddress, toBillingAddress } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';
import type { Siv } from '../infra/siv.js';

const instant = z.string().refine((v) => parseInstant(v) !== undefined, {
  error: 'must be an ISO 8601 date-time',
  params: { errorName: 'dateHasInvalidFormat' },
});
const clockState = z.object({ now: instant, frozen: z.boolean() });
const expiryDate = z.object({ month: z.int().min(1).max(12), year: z.int().max(9999) });

const tokenState = z.object({
  tenant: z.string().min(1),
  tokenId: z.string().regex(/^[0-9A-HJ-NP-Z]{15,21}$/, 'must be 15 to 21 of 0-9 and A-Z without I and O'),
  entity: z.string().min(1),
  namespace: z.string().min(1).optional(),
  description: z.string().min(1),
  maskedCardNumber: z.string().optional(),
  sealedCardNumber: z.string().min(1),
  cardHolderName: z.string().min(1),
  cardExpiryDate: expiryDate,
  billingAddress: billingAddress.optional(),
  network: z.string().min(1),
  countryCode: z.string(),
  fundingType: z.string(),
  schemeTransactionReference: z.string().optional(),
  createdAt: instant,
  expiresAt: instant,
  lifetimeMs: z.number().positive(),
  /** Absent in snapshots of older versions: the importing simulator's profile applies. */
  extension: z
    .string()
    .refine((v) => parseDuration(v) !== undefined, { error: 'must be an ISO 8601 duration', params: { errorName: 'fieldHasInvalidValue' } })
    .optional(),
  conflict: z
    .object({
      values: z.object({
        cardHolderName: z.string().optional(),
        cardExpiryDate: expiryDate.optional(),
        billingAddress: billingAddress.optional(),
        schemeTransactionReference: z.string().optional(),
      }),
      expiresAt: instant,
    })
    .optional(),
});

export const stateSchema = z.object({
  format: z.literal('token-sim-state', { error: "must be 'token-sim-state'" }),
  version: z.literal(1, { error: 'must be 1' }),
  clock: clockState,
  tenantClocks: z.record(z.string(), clockState),
  counters: z.object({
    ids: z.record(z.string(), z.int().min(0)),
    scenarios: z.record(z.string(), z.record(z.string(), z.object({ matches: z.int().min(0), applications: z.int().min(0) }))).optional(),
  }),
  tokens: z.array(tokenState),
});

export type StateSnapshot = z.output<typeof stateSchema>;
export type TokenState = z.output<typeof tokenState>;
export interface ClockState {
  now: string;
  frozen: boolean;
}

export function tokenToState(token: Token, siv: Siv): TokenState {
  const { card } = token;
  return {
    tenant: token.tenant,
    tokenId: token.tokenId,
    entity: token.entity,
    ...(token.namespace !== undefined && { namespace: token.namespace }),
    description: token.description,
    maskedCardNumber: maskCardNumber(card.number),
    sealedCardNumber: siv.seal(card.number),
    cardHolderName: card.holderName,
    cardExpiryDate: { ...card.expiryDate },
    ...(card.billingAddress && { billingAddress: { ...card.billingAddress } }),
    network: card.network,
    countryCode: card.countryCode,
    fundingType: card.fundingType,
    ...(token.schemeTransactionReference !== undefined && { schemeTransactionReference: token.schemeTransactionReference }),
    createdAt: formatInstant(token.createdAt),
    expiresAt: formatInstant(token.expiresAt),
    lifetimeMs: token.lifetimeMs,
    extension: formatDuration(token.extension),
    ...(token.pendingConflict && {
      conflict: { values: structuredClone(token.pendingConflict.values), expiresAt: formatInstant(token.pendingConflict.expiresAt) },
    }),
  };
}

const ms = (iso: string): number => parseInstant(iso) ?? Number.NaN;

function tokenFromState(t: TokenState, cardNumber: string, extension: Duration): Token {
  const v = t.conflict?.values;
  return {
    tenant: t.tenant,
    tokenId: t.tokenId,
    entity: t.entity,
    ...(t.namespace !== undefined && { namespace: t.namespace }),
    description: t.description,
    card: {
      number: cardNumber,
      holderName: t.cardHolderName,
      expiryDate: Object.freeze({ month: t.cardExpiryDate.month, year: t.cardExpiryDate.year }),
      ...(t.billingAddress && { billingAddress: toBillingAddress(t.billingAddress) }),
      network: t.network,
      countryCode: t.countryCode,
      fundingType: t.fundingType,
    },
    ...(t.schemeTransactionReference !== undefined && { schemeTransactionReference: t.schemeTransactionReference }),
    createdAt: ms(t.createdAt),
    expiresAt: ms(t.expiresAt),
    lifetimeMs: t.lifetimeMs,
    extension: (t.extension === undefined ? undefined : parseDuration(t.extension)) ?? extension,
    revision: 0,
    ...(t.conflict &&
      v && {
        pendingConflict: {
          expiresAt: ms(t.conflict.expiresAt),
          values: {
            ...(v.cardHolderName !== undefined && { cardHolderName: v.cardHolderName }),
            ...(v.cardExpiryDate && { cardExpiryDate: { month: v.cardExpiryDate.month, year: v.cardExpiryDate.year } }),
            ...(v.billingAddress && { billingAddress: toBillingAddress(v.billingAddress) }),
            ...(v.schemeTransactionReference !== undefined && { schemeTransactionReference: v.schemeTransactionReference }),
          },
        },
      }),
  };
}

export interface ParsedState {
  snapshot: StateSnapshot;
  tokens: Token[];
}

/**
 * Checks a snapshot whole before anything changes: its shape, that every card number unseals with this
 * simulator's keys, and that no token id or card identity repeats within a tenant. A token without its own
 * extension (an older snapshot) takes `extension`.
 */
export function parseState(data: unknown, siv: Siv, extension: Duration): ParsedState {
  const snapshot = parseBody(stateSchema, data, 'state');
  const problems: FieldProblem[] = [];
  const tokens: Token[] = [];
  const ids = new Set<string>();
  const identities = new Set<string>();
  snapshot.tokens.forEach((t, i) => {
    const number = siv.open(t.sealedCardNumber);
    if (number === undefined || !/^[0-9]{10,19}$/.test(number)) {
      problems.push({
        errorName: 'fieldHasInvalidValue',
        message: 'sealedCardNumber was not sealed by a simulator with this seed',
        path: ['tokens', i, 'sealedCardNumber'],
      });
      return;
    }
    const token = tokenFromState(t, number, extension);
    const idKey = `${t.tenant}\u0000${t.tokenId}`;
    const identity = `${t.tenant}\u0000${cardIdentity(t.entity, t.namespace, number)}`;
    if (ids.has(idKey)) {
      problems.push({ errorName: 'fieldHasInvalidValue', message: 'tokenId repeats within its tenant', path: ['tokens', i, 'tokenId'] });
    } else if (identities.has(identity)) {
      problems.push({ errorName: 'fieldHasInvalidValue', message: 'the same card is tokenized twice for this tenant, entity and namespace', path: ['tokens', i] });
    }
    ids.add(idKey);
    identities.add(identity);
    tokens.push(token);
  });
  if (problems.length > 0) {
    throw schemaError(problems, 'The state does not match the schema');
  }
  return { snapshot, tokens };
}
