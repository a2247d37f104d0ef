/** One tenant's part of a state snapshot (decision 0026): what belongs to it, and what of others a scoped import names. */
import type { FieldPath, FieldProblem } from '../wire/problems.js';
import type { StateSnapshot } from './state.js';

/** The tenant of an id counter (`<kind>:<tenant>`; kinds hold no colon). */
export const tenantOfCounter = (key: string): string => key.slice(key.indexOf(':') + 1);

/** Per-label counts of one tenant only. */
export function onlyTenant<C>(counts: Record<string, Record<string, C>>, tenant: string): Record<string, Record<string, C>> {
  const out: Record<string, Record<string, C>> = {};
  for (const [label, byTenant] of Object.entries(counts)) {
    const c = byTenant[tenant];
    if (c !== undefined) out[label] = { [tenant]: c };
  }
  return out;
}

/** What a tenant-scoped snapshot names of any other tenant: its tokens, clocks, counters, scenario sets. */
export function foreignParts(snapshot: StateSnapshot, tenant: string): FieldProblem[] {
  const problem = (path: FieldPath): FieldProblem => ({ errorName: 'fieldHasInvalidValue', message: `this import writes tenant '${tenant}' only`, path });
  const out: FieldProblem[] = [];
  snapshot.tokens.forEach((t, i) => t.tenant !== tenant && out.push(problem(['tokens', i, 'tenant'])));
  (snapshot.payments ?? []).forEach((p, i) => p.tenant !== tenant && out.push(problem(['payments', i, 'tenant'])));
  for (const name of Object.keys(snapshot.tenantClocks)) if (name !== tenant) out.push(problem(['tenantClocks', name]));
  for (const key of Object.keys(snapshot.counters.ids)) if (tenantOfCounter(key) !== tenant) out.push(problem(['counters', 'ids', key]));
  for (const [label, byTenant] of Object.entries(snapshot.counters.scenarios ?? {})) {
    for (const name of Object.keys(byTenant)) if (name !== tenant) out.push(problem(['counters', 'scenarios', label, name]));
  }
  for (const name of Object.keys(snapshot.counters.tenantScenarios ?? {})) if (name !== tenant) out.push(problem(['counters', 'tenantScenarios', name]));
  for (const name of Object.keys(snapshot.scenarios ?? {})) if (name !== tenant) out.push(problem(['scenarios', name]));
  return out;
}
