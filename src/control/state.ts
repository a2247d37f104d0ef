/** State snapshots as JSON: every token, the clocks and the counters; card numbers travel sealed (decision 0027). */
import { setImmediate } from 'node:timers/promises';
import * as z from 'zod';
import { maskCardNumber } from '../domain/card.js';
import { formatDuration, parseDuration, type Duration } from '../domain/duration.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardData } from '../wire/mask.js';
import { cardIdentity, type Token } from '../domain/token.js';
import { schemaError, type FieldProblem } from '../wire/problems.js';
import { schemaFor, strictBillingAddress, toBillingAddress } from '../wire/schemas.js';
import { parseBounded } from '../wire/validation.js';
import type { Siv } from '../infra/siv.js';
import { scenarioSchema, type Scenario } from '../scenarios/schema.js';
import { definedOf, instant, instantMs, paymentState } from './payment-state.js';
import type { StateSnapshot, TokenState } from './snapshot-types.js';

const clockState = z.strictObject({ now: instant, frozen: z.boolean() });
const expiryDate = z.strictObject({ month: z.int().min(1).max(12), year: z.int().max(9999) });

const tokenState = z.strictObject({
  tenant: z.string().min(1),
  tokenId: z.string().regex(/^[0-9A-HJ-NP-Z]{15,21}$/, 'must be 15 to 21 of 0-9 and A-Z without I and O'),
  entity: z.string().min(1),
  namespace: z.string().min(1).optional(),
  description: z.string().min(1),
  maskedCardNumber: z.string().optional(),
  sealedCardNumber: z.string().min(1),
  cardHolderName: z.string().min(1),
  cardExpiryDate: expiryDate,
  billingAddress: strictBillingAddress.optional(),
  network: z.string().min(1),
  countryCode: z.string(),
  fundingType: z.string(),
  schemeTransactionReference: z.string().optional(),
  createdAt: instant,
  expiresAt: instant,
  lifetimeMs: z.number().positive(),
  extension: z
    .string()
    .refine((v) => parseDuration(v) !== undefined, { error: 'must be an ISO 8601 duration', params: { errorName: 'fieldHasInvalidValue' } })
    .optional(),
  conflict: z
    .strictObject({
      values: z.strictObject({
        cardHolderName: z.string().optional(),
        cardExpiryDate: expiryDate.optional(),
        billingAddress: strictBillingAddress.optional(),
        schemeTransactionReference: z.string().optional(),
      }),
      expiresAt: instant,
    })
    .optional(),
});

const counts = z.strictObject({ matches: z.int().min(0), applications: z.int().min(0) });

export const stateSchema = schemaFor<StateSnapshot>()(
  z.strictObject({
    format: z.literal('token-sim-state', { error: "must be 'token-sim-state'" }),
    version: z.literal(1, { error: 'must be 1' }),
    clock: clockState,
    tenantClocks: z.record(z.string(), clockState),
    counters: z.strictObject({
      ids: z.record(z.string(), z.int().min(0)),
      scenarios: z.record(z.string(), z.record(z.string(), counts)).optional(),
      tenantScenarios: z.record(z.string(), z.record(z.string(), counts)).optional(),
    }),
    tokens: z.array(tokenState),
    // Tenants' own sets only: the global set is configuration, like the fixtures, and is not carried.
    scenarios: z.record(z.string(), z.array(scenarioSchema)).optional(),
    // Absent in snapshots of versions before payments: none.
    payments: z.array(paymentState).optional(),
  }),
);

const TOKEN_HEAD = ['tenant', 'tokenId', 'entity', 'namespace', 'description'] as const;
const CARD_KIND = ['network', 'countryCode', 'fundingType'] as const;
const REFERENCE = ['schemeTransactionReference'] as const;

export function tokenToState(token: Token, siv: Siv): TokenState {
  const { card } = token;
  return {
    ...definedOf(token, TOKEN_HEAD),
    maskedCardNumber: maskCardNumber(card.number),
    sealedCardNumber: siv.seal(card.number),
    cardHolderName: card.holderName,
    cardExpiryDate: { ...card.expiryDate },
    ...(card.billingAddress && { billingAddress: { ...card.billingAddress } }),
    ...definedOf(card, CARD_KIND),
    ...definedOf(token, REFERENCE),
    createdAt: formatInstant(token.createdAt),
    expiresAt: formatInstant(token.expiresAt),
    lifetimeMs: token.lifetimeMs,
    extension: formatDuration(token.extension),
    ...(token.pendingConflict && {
      conflict: { values: structuredClone(token.pendingConflict.values), expiresAt: formatInstant(token.pendingConflict.expiresAt) },
    }),
  };
}

const conflictFromState = ({ values: v, expiresAt }: NonNullable<TokenState['conflict']>) => ({
  expiresAt: instantMs(expiresAt),
  values: {
    ...definedOf(v, ['cardHolderName']),
    ...(v.cardExpiryDate && { cardExpiryDate: { month: v.cardExpiryDate.month, year: v.cardExpiryDate.year } }),
    ...(v.billingAddress && { billingAddress: toBillingAddress(v.billingAddress) }),
    ...definedOf(v, REFERENCE),
  },
});

export function tokenFromState(t: TokenState, cardNumber: string, extension: Duration): Token {
  return {
    ...definedOf(t, TOKEN_HEAD),
    card: {
      number: cardNumber,
      holderName: t.cardHolderName,
      expiryDate: Object.freeze({ month: t.cardExpiryDate.month, year: t.cardExpiryDate.year }),
      ...(t.billingAddress && { billingAddress: toBillingAddress(t.billingAddress) }),
      ...definedOf(t, CARD_KIND),
    },
    ...definedOf(t, REFERENCE),
    createdAt: instantMs(t.createdAt),
    expiresAt: instantMs(t.expiresAt),
    lifetimeMs: t.lifetimeMs,
    extension: (t.extension === undefined ? undefined : parseDuration(t.extension)) ?? extension,
    revision: 0,
    ...(t.conflict && { pendingConflict: conflictFromState(t.conflict) }),
  };
}

const NOT_SEALED_HERE = 'sealedCardNumber was not sealed by a simulator with this seed or state key';

export function refuseState(problems: readonly FieldProblem[]): void {
  if (problems.length > 0) throw schemaError([...problems], 'The state does not match the schema');
}

/** Where a scenario holds card numbers: the `when.cardNumber` predicate and its preloaded tokens' numbers. */
type CardHolder = Record<string, unknown>;
const isObject = (v: unknown): v is CardHolder => typeof v === 'object' && v !== null && !Array.isArray(v);
function cardHoldersOf(scenario: unknown): { holder: CardHolder; path: (string | number)[] }[] {
  if (!isObject(scenario)) return [];
  const within = (list: unknown, key: string, field: string) =>
    (Array.isArray(list) ? (list as unknown[]) : []).flatMap((item, i) => (isObject(item) && isObject(item[field]) ? [{ holder: item[field], path: [key, i, field] }] : []));
  return [...within(scenario.rules, 'rules', 'when'), ...within(scenario.tokens, 'tokens', 'paymentInstrument')];
}

/** Copies of scenarios with each card number moved from `from` to `to` as `convert` gives it; one it cannot give stays, told to `refused`. */
function moveCardNumbers(scenarios: readonly unknown[], from: string, to: string, convert: (h: CardHolder) => string | undefined, refused?: (path: (string | number)[], h: CardHolder) => void): unknown[] {
  return scenarios.map((scenario, i) => {
    const copy = structuredClone(scenario);
    for (const { holder, path } of cardHoldersOf(copy)) {
      if (!(from in holder)) continue;
      const value = convert(holder);
      if (value === undefined) {
        refused?.([i, ...path, from], holder);
        continue;
      }
      holder[to] = value;
      delete holder[from];
    }
    return copy;
  });
}

/** Tenants' scenario sets as a snapshot carries them: every card number sealed (`sealedCardNumber`), like the tokens'. */
export function sealScenarioSets(sets: ReadonlyMap<string, readonly Scenario[]>, siv: Siv): Record<string, Scenario[]> {
  const seal = (h: CardHolder): string | undefined => (typeof h.cardNumber === 'string' ? siv.seal(h.cardNumber) : undefined);
  return Object.fromEntries([...sets].map(([tenant, scenarios]) => [tenant, moveCardNumbers(scenarios, 'cardNumber', 'sealedCardNumber', seal) as Scenario[]]));
}

/** The snapshot with its scenario sets' sealed card numbers opened (a copy), and what could not be opened. */
export function openScenarioSets(data: unknown, siv: Siv): { data: unknown; problems: FieldProblem[] } {
  if (!isObject(data) || !isObject(data.scenarios)) return { data, problems: [] };
  const problems: FieldProblem[] = [];
  const opened = (h: CardHolder): string | undefined => (typeof h.sealedCardNumber === 'string' ? siv.open(h.sealedCardNumber) : undefined);
  const refused = (tenant: string) => (path: (string | number)[], h: CardHolder) =>
    problems.push({ errorName: 'fieldHasInvalidValue', message: opened(h) === undefined ? NOT_SEALED_HERE : 'give cardNumber or sealedCardNumber, not both', path: ['scenarios', tenant, ...path] });
  // fromEntries defines each tenant as an own property, `__proto__` included.
  const sets = Object.entries(data.scenarios).map(([tenant, scenarios]): [string, unknown] => [
    tenant,
    Array.isArray(scenarios) ? moveCardNumbers(scenarios, 'sealedCardNumber', 'cardNumber', (h) => ('cardNumber' in h ? undefined : opened(h)), refused(tenant)) : scenarios,
  ]);
  return { data: { ...data, scenarios: Object.fromEntries(sets) }, problems };
}

/**
 * Checks a snapshot whole before anything changes: its shape, that every card number unseals here, and that no
 * token id or card identity repeats within a tenant. A token without an extension (older snapshots) takes its tenant's.
 */
export function parseState(raw: unknown, siv: Siv, extensionOf: (tenant: string) => Duration): { snapshot: StateSnapshot; tokens: Token[] } {
  const { data, problems: sealProblems } = openScenarioSets(raw, siv);
  refuseState(sealProblems);
  const snapshot = parseBounded(stateSchema, data, 'state');
  const problems: FieldProblem[] = [];
  const tokens: Token[] = [];
  const ids = new Set<string>();
  const identities = new Set<string>();
  snapshot.tokens.forEach((t, i) => {
    const number = siv.open(t.sealedCardNumber);
    if (number === undefined || !/^[0-9]{10,19}$/.test(number)) {
      problems.push({ errorName: 'fieldHasInvalidValue', message: NOT_SEALED_HERE, path: ['tokens', i, 'sealedCardNumber'] });
      return;
    }
    const token = tokenFromState(t, number, extensionOf(t.tenant));
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
  refuseState(problems);
  return { snapshot, tokens };
}

/** A snapshot in parts: everything but the tokens, the live tokens as they are now, and the conversion of one token to its snapshot form. */
export interface StateParts {
  head: Omit<StateSnapshot, 'tokens'>;
  tokens: Token[];
  toState: (token: Token) => TokenState;
}

/** How a snapshot is written: tokens per slice, card data masked (`/_sim` output) or not (the state file). */
export interface StateTextOptions {
  slice: number;
  mask: boolean;
}

/**
 * A snapshot's JSON text from parts taken at one moment, `slice` tokens at a time, yielding between slices. Masked,
 * a token keeps its lifetime: a number that may read as a card number and must import back as one.
 */
export function stateText({ head, tokens, toState }: StateParts, { slice, mask }: StateTextOptions): AsyncGenerator<string> {
  const headJson = JSON.stringify(mask ? maskCardData(head) : head);
  const masked = (state: TokenState): unknown => (mask ? { ...(maskCardData(state) as object), lifetimeMs: state.lifetimeMs } : state);
  async function* text(): AsyncGenerator<string> {
    yield `${headJson.slice(0, -1)},"tokens":[`;
    for (let i = 0; i < tokens.length; i += slice) {
      yield `${i === 0 ? '' : ','}${tokens.slice(i, i + slice).map((t) => JSON.stringify(masked(toState(t)))).join(',')}`;
      // Always yield to the poll phase: when the socket takes each write at once, 'drain' comes on the next
      // tick, which would let the whole export run before any other request.
      await setImmediate();
    }
    yield ']}';
  }
  return text();
}
