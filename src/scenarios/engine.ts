/**
 * Executes scenario rules as data: for each request, the first rule whose `when` holds applies. Match and
 * application counts are kept per rule and tenant, so parallel tests in different tenants never shift
 * each other's `nth`, `every` or `times`.
 */
import { parseInstant } from '../wire/instant.js';
import type { Rule, Scenario, ScenarioOperation } from './schema.js';

/** What a request says about itself, as far as the simulator could tell before handling it. */
export interface RequestFacts {
  operation: Exclude<ScenarioOperation, 'any'> | 'unknown';
  username: string;
  entity?: string;
  namespace?: string;
  cardNumber?: string;
  cardHolderName?: string;
  currency?: string;
  transactionReference?: string;
  amount?: number;
}

export interface AppliedRule {
  /** The rule's id, or `<scenario name>#<index>`. */
  label: string;
  rule: Rule;
}

interface Counts {
  matches: number;
  applications: number;
}

export type ScenarioCounters = Record<string, Record<string, Counts>>;

export interface ScenarioEngine {
  scenarios(): readonly Scenario[];
  replace(scenarios: readonly Scenario[]): void;
  /** The rule that applies to this request, counting it; undefined when none does. */
  match(tenant: string, facts: RequestFacts, now: number): AppliedRule | undefined;
  resetCounters(tenant?: string): void;
  counters(): ScenarioCounters;
  restoreCounters(counters: ScenarioCounters): void;
}

interface CompiledRule extends AppliedRule {
  from: number;
  until: number;
}

const STRING_FACTS = ['username', 'entity', 'namespace', 'cardNumber', 'cardHolderName', 'currency', 'transactionReference'] as const;

function factsHold(rule: Rule, facts: RequestFacts, now: number, from: number, until: number): boolean {
  const when = rule.when;
  if (!when) return true;
  if (when.operation !== undefined && when.operation !== 'any' && when.operation !== facts.operation) return false;
  for (const key of STRING_FACTS) {
    const wanted = when[key];
    if (wanted !== undefined && facts[key] !== wanted) return false;
  }
  if (when.amount !== undefined) {
    if (facts.amount === undefined) return false;
    if (typeof when.amount === 'number') {
      if (facts.amount !== when.amount) return false;
    } else if ((when.amount.min !== undefined && facts.amount < when.amount.min) || (when.amount.max !== undefined && facts.amount > when.amount.max)) {
      return false;
    }
  }
  return now >= from && now < until;
}

export function createScenarioEngine(): ScenarioEngine {
  let loaded: readonly Scenario[] = [];
  let rules: CompiledRule[] = [];
  const counts = new Map<string, Map<string, Counts>>();

  function countsOf(label: string, tenant: string): Counts {
    let byTenant = counts.get(label);
    if (!byTenant) counts.set(label, (byTenant = new Map<string, Counts>()));
    let c = byTenant.get(tenant);
    if (!c) byTenant.set(tenant, (c = { matches: 0, applications: 0 }));
    return c;
  }

  return {
    scenarios: () => loaded,

    replace(scenarios) {
      loaded = scenarios;
      rules = scenarios.flatMap((s) =>
        (s.rules ?? []).map((rule, i) => ({
          rule,
          label: rule.id ?? `${s.name}#${i}`,
          from: rule.when?.between?.from === undefined ? Number.NEGATIVE_INFINITY : (parseInstant(rule.when.between.from) ?? 0),
          until: rule.when?.between?.until === undefined ? Number.POSITIVE_INFINITY : (parseInstant(rule.when.between.until) ?? 0),
        })),
      );
      counts.clear();
    },

    match(tenant, facts, now) {
      for (const compiled of rules) {
        if (!factsHold(compiled.rule, facts, now, compiled.from, compiled.until)) continue;
        const c = countsOf(compiled.label, tenant);
        c.matches += 1;
        const { nth, every, times } = compiled.rule.when ?? {};
        if (nth !== undefined && c.matches !== nth) continue;
        if (every !== undefined && c.matches % every !== 0) continue;
        if (times !== undefined && c.applications >= times) continue;
        c.applications += 1;
        return { label: compiled.label, rule: compiled.rule };
      }
      return undefined;
    },

    resetCounters(tenant) {
      if (tenant === undefined) counts.clear();
      else for (const byTenant of counts.values()) byTenant.delete(tenant);
    },

    counters() {
      const out: ScenarioCounters = {};
      for (const [label, byTenant] of counts) out[label] = Object.fromEntries([...byTenant].map(([t, c]) => [t, { ...c }]));
      return out;
    },

    restoreCounters(next) {
      counts.clear();
      for (const [label, byTenant] of Object.entries(next)) {
        for (const [tenant, c] of Object.entries(byTenant)) Object.assign(countsOf(label, tenant), { matches: c.matches, applications: c.applications });
      }
    },
  };
}
