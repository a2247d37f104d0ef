/** Scenario rules as data: the first rule whose `when` holds applies (the tenant's own set first); counts are per tenant. */
import { createSecretKey } from 'node:crypto';
import { addDuration, parseDuration } from '../domain/duration.js';
import { createIdSource, type IdSource } from '../infra/ids.js';
import type { WebhookHold, WebhookItem } from '../infra/webhook-types.js';
import { parseInstant } from '../wire/instant.js';
import { delayOf } from './rule-numbers.js';
import type { Rule, Scenario, ScenarioOperation } from './schema.js';

/** The facts a rule's predicate of the same name must equal (`type`: a webhook's payment event type, decision 0056). */
const STRING_FACTS = ['username', 'entity', 'namespace', 'cardNumber', 'cardHolderName', 'currency', 'transactionReference', 'type'] as const;

/** What a request says about itself, as far as the simulator could tell before handling it. */
export type RequestFacts = Partial<Record<(typeof STRING_FACTS)[number], string>> & {
  operation: Exclude<ScenarioOperation, 'any'> | 'unknown';
  username: string;
  amount?: number;
};

/** A rule that applies, by its label (ruleLabel), with the delay drawn for this application (whole milliseconds, 0 for none). */
export interface Application {
  label: string;
  rule: Rule;
  delayMs: number;
}

/** The seeded numbers rules draw (`chance`, delay distributions): the simulator's id source. */
export type Draws = Pick<IdSource, 'fraction'>;

interface Counts {
  matches: number;
  applications: number;
}

/** Counts by two names: the global set's by rule label, then tenant; tenants' own sets' by tenant, then rule label. */
export type ScenarioCounters = Record<string, Record<string, Counts>>;

/** One tenant's counts: by rule label, in the global set and in the tenant's own set. */
export interface TenantCounts {
  global: Record<string, Counts>;
  own: Record<string, Counts>;
}

/** A rule with its bounds read once: `between` as epoch ms, `amount` as [min, max]. */
interface CompiledRule extends Omit<Application, 'delayMs'> {
  from: number;
  until: number;
  min: number;
  max: number;
}

function factsHold({ rule: { when }, from, until, min, max }: CompiledRule, facts: RequestFacts, now: number): boolean {
  // A webhook is matched by rules that name it only: `any` and rules without an operation are the API's.
  if (facts.operation === 'webhook' && when?.operation !== 'webhook') return false;
  if (!when) return true;
  if (when.operation !== undefined && when.operation !== 'any' && when.operation !== facts.operation) return false;
  for (const key of STRING_FACTS) {
    const wanted = when[key];
    if (wanted !== undefined && facts[key] !== wanted) return false;
  }
  if (when.amount !== undefined && (facts.amount === undefined || facts.amount < min || facts.amount > max)) return false;
  return now >= from && now < until;
}

/** One scenario set (the global one, or a tenant's own) with its counts per rule label and tenant. */
interface RuleSet {
  scenarios: readonly Scenario[];
  rules: CompiledRule[];
  counts: Map<string, Map<string, Counts>>;
}

/** A rule's label, as the journal and the counts name it: its `id`, else `<scenario name>#<index>`. */
export const ruleLabel = (scenario: Scenario, rule: Rule, index: number): string => rule.id ?? `${scenario.name}#${index}`;

const bound = (text: string | undefined, open: number): number => (text === undefined ? open : (parseInstant(text) ?? 0));

function compile(scenarios: readonly Scenario[]): RuleSet {
  const rules = scenarios.flatMap((s) =>
    (s.rules ?? []).map((rule, i): CompiledRule => {
      const { between, amount } = rule.when ?? {};
      const range = typeof amount === 'number' ? { min: amount, max: amount } : amount;
      const from = bound(between?.from, Number.NEGATIVE_INFINITY);
      const until = bound(between?.until, Number.POSITIVE_INFINITY);
      const [min, max] = [range?.min ?? Number.NEGATIVE_INFINITY, range?.max ?? Number.POSITIVE_INFINITY];
      return { rule, label: ruleLabel(s, rule, i), from, until, min, max };
    }),
  );
  return { scenarios, rules, counts: new Map() };
}

function countsOf(set: RuleSet, label: string, tenant: string): Counts {
  let byTenant = set.counts.get(label);
  if (!byTenant) set.counts.set(label, (byTenant = new Map<string, Counts>()));
  let c = byTenant.get(tenant);
  if (!c) byTenant.set(tenant, (c = { matches: 0, applications: 0 }));
  return c;
}

const setCounts = (set: RuleSet, label: string, tenant: string, c: Counts): void =>
  void Object.assign(countsOf(set, label, tenant), { matches: c.matches, applications: c.applications });

/** A tenant's counts in a set, by rule label: those that counted anything (or, with `zeros`, all it has). */
function tenantCountsIn(set: RuleSet | undefined, tenant: string, zeros = false): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  if (set) for (const [label, byTenant] of set.counts) {
    const c = byTenant.get(tenant);
    if (c && (zeros || c.matches > 0 || c.applications > 0)) out[label] = { matches: c.matches, applications: c.applications };
  }
  return out;
}

/** Puts a tenant's counts in a set back as `labels` says (absent labels: none). */
function restoreTenantCountsIn(set: RuleSet | undefined, tenant: string, labels: Record<string, Counts>): void {
  if (!set) return;
  for (const byTenant of set.counts.values()) byTenant.delete(tenant);
  for (const [label, c] of Object.entries(labels)) setCounts(set, label, tenant, c);
}

/** The first rule of a set that applies: predicates, then `nth`/`every` on matches, `times`, and `chance` last (decision 0037). */
function matchIn(set: RuleSet, draws: Draws, tenant: string, facts: RequestFacts, now: number): Application | undefined {
  for (const compiled of set.rules) {
    if (!factsHold(compiled, facts, now)) continue;
    const c = countsOf(set, compiled.label, tenant);
    c.matches += 1;
    const { nth, every, times, chance } = compiled.rule.when ?? {};
    if (nth !== undefined && c.matches !== nth) continue;
    if (every !== undefined && c.matches % every !== 0) continue;
    if (times !== undefined && c.applications >= times) continue;
    if (chance !== undefined && draws.fraction('chance', tenant) >= chance) continue;
    c.applications += 1;
    const delayMs = delayOf(compiled.rule.then.delayMs, () => draws.fraction('delay', tenant));
    return { label: compiled.label, rule: compiled.rule, delayMs };
  }
  return undefined;
}

/** The scenario sets of one simulator, their counts, and the matching of requests against them. */
export type ScenarioEngine = ReturnType<typeof createScenarioEngine>;

/** `draws`: the simulator's seeded streams; without, streams of a fixed key (tests of the engine alone). */
export function createScenarioEngine(draws: Draws = createIdSource(createSecretKey(Buffer.alloc(32)))) {
  let global = compile([]);
  const own = new Map<string, RuleSet>();
  /** Rules loaded in all sets together: zero means no request needs to look at scenarios. */
  let ruleCount = 0;
  const recount = (): void => {
    ruleCount = global.rules.length + [...own.values()].reduce((n, set) => n + set.rules.length, 0);
  };

  return {
    /** The global set, or one tenant's own set. */
    scenarios: (tenant?: string): readonly Scenario[] => (tenant === undefined ? global.scenarios : (own.get(tenant)?.scenarios ?? [])),

    /** Replaces the global set, or one tenant's own set (an empty list removes it); restarts that set's counts. */
    replace(scenarios: readonly Scenario[], tenant?: string): void {
      if (tenant === undefined) global = compile(scenarios);
      else if (scenarios.length === 0) own.delete(tenant);
      else own.set(tenant, compile(scenarios));
      recount();
    },

    /** Every tenant's own set, by tenant. */
    tenantSets: (): ReadonlyMap<string, readonly Scenario[]> => new Map([...own].map(([tenant, set]) => [tenant, set.scenarios])),

    /** Whether any rule is loaded at all (the request path skips scenarios entirely when none is). */
    active: (): boolean => ruleCount > 0,

    /** The rule that applies to this request (the tenant's own set first, then the global set), counting it. */
    match(tenant: string, facts: RequestFacts, now: number): Application | undefined {
      const mine = own.get(tenant);
      return (mine && matchIn(mine, draws, tenant, facts, now)) ?? matchIn(global, draws, tenant, facts, now);
    },

    /** Zeroes the counts of one tenant (in its own set and the global set), or all counts. */
    resetCounters(tenant?: string): void {
      if (tenant !== undefined) return this.restoreCountsOf(tenant, { global: {}, own: {} });
      global.counts.clear();
      for (const set of own.values()) set.counts.clear();
    },

    counters(): ScenarioCounters {
      const out: ScenarioCounters = {};
      for (const [label, byTenant] of global.counts) out[label] = Object.fromEntries([...byTenant].map(([t, c]) => [t, { ...c }]));
      return out;
    },

    tenantCounters(): ScenarioCounters {
      const sets = [...own].map(([tenant, set]) => [tenant, tenantCountsIn(set, tenant, true)] as const);
      return Object.fromEntries(sets.filter(([, labels]) => Object.keys(labels).length > 0));
    },

    /** One tenant's counts, in the global set's rules and its own set's (a shared store's replica: decision 0039). */
    countsOf: (tenant: string): TenantCounts => ({ global: tenantCountsIn(global, tenant), own: tenantCountsIn(own.get(tenant), tenant) }),

    /** Puts one tenant's counts back (absent: zero). */
    restoreCountsOf(tenant: string, counts: TenantCounts): void {
      restoreTenantCountsIn(global, tenant, counts.global);
      restoreTenantCountsIn(own.get(tenant), tenant, counts.own);
    },

    restoreCounters(next: ScenarioCounters, tenantNext: ScenarioCounters = {}): void {
      global.counts.clear();
      for (const [label, byTenant] of Object.entries(next)) {
        for (const [tenant, c] of Object.entries(byTenant)) setCounts(global, label, tenant, c);
      }
      for (const [tenant, set] of own) restoreTenantCountsIn(set, tenant, tenantNext[tenant] ?? {});
    },
  };
}

/** A payment event's webhook, before rules: the delivery, and the facts a rule matches. */
export interface WebhookEvent {
  item: Omit<WebhookItem, 'id' | 'rule' | 'drop' | 'hold'>;
  type: string;
  transactionReference: string;
  /** The event's virtual time (epoch ms): what `between` looks at, and what a `delay` counts from. */
  at: number;
}

/**
 * The event's deliveries, in the order they go, as the first `operation: webhook` rule that matches scripts them
 * (contract 4.4, decision 0056); matched inside the unit that made the event, so its counts are the tenant's.
 */
export function eventDeliveries(engine: ScenarioEngine, event: WebhookEvent, newId: () => string): WebhookItem[] {
  const first: WebhookItem = { ...event.item, id: newId() };
  if (!engine.active()) return [first];
  const { tenant } = event.item;
  const applied = engine.match(tenant, { operation: 'webhook', username: tenant, type: event.type, transactionReference: event.transactionReference }, event.at);
  if (!applied) return [first];
  const { then } = applied.rule;
  const rule = applied.label;
  if (then.drop === true) return [{ ...first, rule, drop: true }];
  const delay = then.delay === undefined ? undefined : parseDuration(then.delay);
  const hold: WebhookHold | undefined = then.reorder === true ? { next: true } : delay === undefined ? undefined : { until: addDuration(event.at, delay) };
  const out: WebhookItem[] = [{ ...first, rule, ...(hold && { hold }) }];
  for (let n = 0; n < (then.duplicate ?? 0); n++) {
    const before = out[out.length - 1]?.id ?? '';
    out.push({ ...first, id: newId(), rule, ...(hold && { hold: { after: before } }) });
  }
  return out;
}
