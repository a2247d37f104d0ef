/** `GET /_sim/magic-values` (decision 0057): read from domain/magic-values.ts, the fixtures' BINs and the active rules. */
import type { BinRange } from '../../config/fixtures.js';
import { UNKNOWN_CARD } from '../../domain/card.js';
import { MAGIC_NAMES, UNLISTED_REFUSAL, magicCatalogue, scriptedRefusal, type NameOutcome } from '../../domain/magic-values.js';
import { ruleLabel } from '../../scenarios/engine.js';
import type { Rule, RuleThen, Scenario } from '../../scenarios/schema.js';
import * as z from 'zod';
import { schemaFor } from '../../wire/schemas.js';

/** A risk factor of a sale's answer. */
export interface MagicRiskFactor {
  risk: string;
  detail: string;
}

/** A magic card holder name: `ERROR`, `REFUSED`, `REFUSED<n>` (the last a pattern: n of 1 to 3 digits). */
export interface MagicName {
  value: string;
  outcome: 'sentForSettlement' | 'refused' | 'error';
  refusalCode?: string | undefined;
  refusalDescription?: string | undefined;
  effect: string;
}

/** A magic billing postal code (`null`: no billing address). */
export interface MagicPostalCode {
  value: string | null;
  riskFactors: MagicRiskFactor[];
  effect: string;
}

/** An amount (or a range of them) that an active scenario rule matches, and what the rule does. */
export interface MagicAmount {
  value: number | { min?: number | undefined; max?: number | undefined };
  /** The rule's operation (`any` when it names none). */
  operation: string;
  scenario: string;
  /** The rule's label, as the journal shows it. */
  rule: string;
  /** `tenant`: the tenant's own scenario set; `global`: everyone's. */
  set: 'tenant' | 'global';
  /** The rule's other predicates, by name: the amount alone is not enough when there are any. */
  alsoWhen: string[];
  effect: string;
}

/** An entry of the BIN table (`value` a prefix or a range of prefixes; `null`: a card no entry matches). */
export interface MagicCard {
  value: string | null;
  network: string;
  /** The sale answer's `brand`: the network in lower case. */
  brand: string;
  countryCode: string;
  fundingType: string;
  effect: string;
}

/** Every value that changes an outcome (`GET /_sim/magic-values`, `magicValues()`). */
export interface MagicValues {
  cardHolderNames: MagicName[];
  cardExpiryDates: { value: string; outcome: 'refused'; refusalCode: string; refusalDescription: string; effect: string }[];
  postalCodes: MagicPostalCode[];
  amounts: MagicAmount[];
  cards: MagicCard[];
}

/** Where the catalogue reads the simulator's own tables. */
export interface MagicSources {
  bins: readonly BinRange[];
  /** The active scenario set: the global one (no tenant), or a tenant's own. */
  scenarios: (tenant?: string) => readonly Scenario[];
}

const refusalText = (code: string, description: string): string => `refused, refusalCode ${code} ${description}`;

function nameEntry(value: string, outcome: NameOutcome): MagicName {
  if (outcome.kind === 'error') return { value, outcome: 'error', effect: 'the sale answers 500 internalErrorOccurred and makes no payment' };
  if (outcome.kind === 'approve') return { value, outcome: 'sentForSettlement', effect: 'approved (sentForSettlement)' };
  const { code, description } = outcome.refusal;
  return { value, outcome: 'refused', refusalCode: code, refusalDescription: description, effect: refusalText(code, description) };
}

const factorsText = (factors: readonly MagicRiskFactor[]): string =>
  factors.length === 0 ? 'no riskFactors' : `riskFactors ${factors.map((f) => `${f.risk} ${f.detail}`).join(', ')}`;

/** What a rule's actions do, in a sentence (actions it does not know by name are shown as written). */
function thenText(then: RuleThen): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(then) as [keyof RuleThen, unknown][]) {
    if (value === undefined || key === 'delayMs') continue;
    if (key === 'outcome' && then.outcome) {
      const refusal = scriptedRefusal(then.outcome);
      parts.push(refusal ? refusalText(refusal.code, refusal.description) : 'approved (sentForSettlement)');
    } else if (key === 'error' && then.error) parts.push(`answers ${then.error.status} ${then.error.errorName}`);
    else if (key === 'fault') parts.push(then.fault === 'connectionReset' ? 'resets the connection unanswered' : 'never answers');
    else if (key === 'riskFactors' && then.riskFactors) parts.push(factorsText(then.riskFactors));
    else if (key === 'settlement') parts.push('the settlement fails (settlementFailed)');
    else if (key === 'refund' && then.refund) parts.push(`refunds fail (refundFailed, ${then.refund.failed.code} ${then.refund.failed.description})`);
    else parts.push(`${key}: ${JSON.stringify(value)}`);
  }
  if (then.delayMs !== undefined) parts.push('after the rule\u2019s delay');
  return parts.join('; ');
}

/** The rules of a set that match an amount and do more than delay, in order. */
function amountRules(scenarios: readonly Scenario[], set: MagicAmount['set']): MagicAmount[] {
  return scenarios.flatMap((scenario) =>
    (scenario.rules ?? []).flatMap((rule: Rule, index) => {
      const amount = rule.when?.amount;
      if (amount === undefined || Object.keys(rule.then).every((key) => key === 'delayMs')) return [];
      const alsoWhen = Object.entries(rule.when ?? {})
        .filter(([key, v]) => v !== undefined && key !== 'amount' && key !== 'operation')
        .map(([key]) => key);
      const value = typeof amount === 'number' ? amount : { ...(amount.min !== undefined && { min: amount.min }), ...(amount.max !== undefined && { max: amount.max }) };
      return [{ value, operation: rule.when?.operation ?? 'any', scenario: scenario.name, rule: ruleLabel(scenario, rule, index), set, alsoWhen, effect: thenText(rule.then) }];
    }),
  );
}

function cardEntry(bin: Pick<BinRange, 'network' | 'countryCode' | 'fundingType'>, value: string | null): MagicCard {
  const brand = bin.network.toLowerCase();
  const { network, countryCode, fundingType } = bin;
  const accepted = value === null ? '; no entity accepts it: a sale answers 400 paymentInstrumentIsNotSupported' : '; a sale answers 400 paymentInstrumentIsNotSupported where the entity does not accept it';
  return { value, network, brand, countryCode, fundingType, effect: `${network} (brand ${brand}), ${countryCode}, ${fundingType}${accepted}` };
}

/** The catalogue of one simulator: the sandbox's table, its BIN table, and the amounts of the active rules (the tenant's own first). */
export function magicValuesOf(sources: MagicSources, tenant: string | undefined): MagicValues {
  const table = magicCatalogue();
  const { expiredCard } = table;
  return {
    cardHolderNames: [
      ...table.cardHolderNames.map((entry) => nameEntry(entry.value, entry.outcome)),
      {
        value: `${MAGIC_NAMES.refused}<n>`,
        outcome: 'refused',
        effect: `any other n of 1 to 3 digits: refused, refusalCode n (leading zeros dropped) ${UNLISTED_REFUSAL}`,
      },
    ],
    cardExpiryDates: [
      {
        value: 'a month before the virtual now',
        outcome: 'refused',
        refusalCode: expiredCard.code,
        refusalDescription: expiredCard.description,
        effect: `a card/plain sale: ${refusalText(expiredCard.code, expiredCard.description)}; a token's stored card: 400 underlyingPaymentInstrumentHasExpired`,
      },
    ],
    postalCodes: table.postalCodes.map(({ value, riskFactors }) => ({ value: value ?? null, riskFactors, effect: factorsText(riskFactors) })),
    amounts: [...(tenant === undefined ? [] : amountRules(sources.scenarios(tenant), 'tenant')), ...amountRules(sources.scenarios(), 'global')],
    cards: [...sources.bins.map((bin) => cardEntry(bin, bin.prefix)), cardEntry(UNKNOWN_CARD, null)],
  };
}

const entry = <T extends z.ZodRawShape>(shape: T) => z.strictObject({ ...shape, effect: z.string() });
const refusal = { refusalCode: z.string(), refusalDescription: z.string() };
const cardOrNone = z.string().nullable();

/** The OpenAPI document's answer, checked against MagicValues by the compiler. */
export const magicValuesSchema = schemaFor<MagicValues>()(
  z.strictObject({
    cardHolderNames: z.array(entry({ value: z.string(), outcome: z.enum(['sentForSettlement', 'refused', 'error']), refusalCode: z.string().optional(), refusalDescription: z.string().optional() })),
    cardExpiryDates: z.array(entry({ value: z.string(), outcome: z.literal('refused'), ...refusal })),
    postalCodes: z.array(entry({ value: cardOrNone, riskFactors: z.array(z.strictObject({ risk: z.string(), detail: z.string() })) })),
    amounts: z.array(
      entry({
        value: z.union([z.int(), z.strictObject({ min: z.int().optional(), max: z.int().optional() })]),
        operation: z.string(),
        scenario: z.string(),
        rule: z.string(),
        set: z.enum(['tenant', 'global']),
        alsoWhen: z.array(z.string()),
      }),
    ),
    cards: z.array(entry({ value: cardOrNone, network: z.string(), brand: z.string(), countryCode: z.string(), fundingType: z.string() })),
  }),
);

/** docs/magic-values.md (scripts/magic-values-doc.mjs, after a build) shows the amounts of this scenario. */
export const PAGE_SCENARIO = 'scenarios/amount-refusals.yaml';

const cell = (value: string): string => value.replaceAll('|', '\\|');
const code = (value: string): string => `\`${cell(value)}\``;
const row = (...cells: string[]): string => `| ${cells.join(' | ')} |`;
const table = (head: string[], rows: string[][]): string[] => [row(...head), row(...head.map(() => '---')), ...rows.map((r) => row(...r))];

function amountText(value: MagicAmount['value']): string {
  if (typeof value === 'number') return code(String(value));
  if (value.min !== undefined && value.max !== undefined) return `${code(String(value.min))} to ${code(String(value.max))}`;
  return value.min !== undefined ? `${code(String(value.min))} or more` : `up to ${code(String(value.max ?? 0))}`;
}

function amountSection(amounts: readonly MagicAmount[]): string[] {
  const intro = [
    '## Amounts',
    '',
    'No amount changes an outcome by itself: amounts are scenario rules (`when.amount`, [scenarios.md](scenarios.md)), and',
    `the catalogue lists those of the active scenario sets. Here, the rules of [\`${PAGE_SCENARIO}\`](../${PAGE_SCENARIO}):`,
    '',
  ];
  if (amounts.length === 0) return [...intro, 'No active rule matches an amount.'];
  const rows = amounts.map((a) => [amountText(a.value), code(a.operation), code(a.rule), cell(a.alsoWhen.length === 0 ? a.effect : `${a.effect} (when ${a.alsoWhen.join(', ')} also match)`)]);
  return [...intro, ...table(['amount', 'operation', 'rule', 'what it does'], rows)];
}

/** The whole page, for the catalogue of a simulator with the default fixtures and PAGE_SCENARIO loaded. */
export function magicValuesPage(values: MagicValues): string {
  const lines = [
    '# Magic values',
    '',
    '<!-- Generated by scripts/magic-values-doc.mjs from GET /_sim/magic-values (decision 0057): edit the tables in src/, not this page. -->',
    '',
    'Every value that changes an outcome, each with what it does. This page is what `GET /_sim/magic-values`',
    `answers for a simulator with the default fixtures and \`${PAGE_SCENARIO}\` loaded; the library's`,
    '`magicValues()` (in process, or of `connectSimulator`) answers the same. A simulator with other fixtures or',
    'scenarios answers its own: ask it.',
    '',
    'Names and postal codes are compared trimmed and in any case. A sale decides in this order: a scenario',
    '`outcome`, the name `ERROR`, an expired plain card, a `REFUSED…` name ([sale.md](sale.md)).',
    '',
    '## Card holder names',
    '',
    ...table(
      ['card holder name', 'outcome', 'what it does'],
      values.cardHolderNames.map((n) => [code(n.value), code(n.outcome), cell(n.effect)]),
    ),
    '',
    'Any other name: approved (`sentForSettlement`). The stored name counts for a token.',
    '',
    '## Card expiry dates',
    '',
    ...table(['card expiry date', 'what it does'], values.cardExpiryDates.map((e) => [cell(e.value), cell(e.effect)])),
    '',
    '## Billing postal codes',
    '',
    ...table(['postal code', 'what it does'], values.postalCodes.map((p) => [p.value === null ? 'no billing address' : code(p.value), cell(p.effect)])),
    '',
    'Any other postal code: no riskFactors. A scenario `riskFactors` replaces them.',
    '',
    ...amountSection(values.amounts),
    '',
    '## Cards and brands (the BIN table)',
    '',
    'The fixtures\' BIN table names each card\'s network, country and funding type: the longest matching prefix',
    'wins (of equals, the later entry), and a range such as `2221-2720` covers the prefixes of its length between.',
    '',
    ...table(
      ['prefix', 'network', 'brand', 'country', 'funding'],
      values.cards.map((c) => [c.value === null ? 'any other' : code(c.value), code(c.network), code(c.brand), code(c.countryCode), code(c.fundingType)]),
    ),
    '',
    'A card whose network the merchant entity does not accept, and a card of no entry (`UNKNOWN`), answer 400',
    '`paymentInstrumentIsNotSupported`.',
    '',
  ];
  return lines.join('\n');
}
