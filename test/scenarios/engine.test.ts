import { describe, expect, it } from '@jest/globals';
import { createScenarioEngine, type RequestFacts } from '../../src/scenarios/engine.js';
import { validateScenarios } from '../../src/scenarios/loader.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const sale = (extra: Partial<RequestFacts> = {}): RequestFacts => ({ operation: 'sale', username: 'merchant', ...extra });

function engineWith(rules: unknown[]) {
  const engine = createScenarioEngine();
  engine.replace(validateScenarios({ name: 's', rules }));
  return engine;
}

const labels = (engine: ReturnType<typeof engineWith>, facts: RequestFacts, times: number, tenant = 't1', now = T0) =>
  Array.from({ length: times }, () => engine.match(tenant, facts, now)?.label ?? null);

describe('the scenario engine', () => {
  it('applies the first rule whose when holds', () => {
    const engine = engineWith([
      { id: 'sales', when: { operation: 'sale' }, then: { delayMs: 1 } },
      { id: 'any', when: { operation: 'any' }, then: { delayMs: 2 } },
    ]);
    expect(engine.match('t', sale(), T0)?.label).toBe('sales');
    expect(engine.match('t', { operation: 'getToken', username: 'u' }, T0)?.label).toBe('any');
  });

  it('labels a rule without id by scenario name and index', () => {
    const engine = engineWith([{ then: { delayMs: 1 } }]);
    expect(engine.match('t', sale(), T0)?.label).toBe('s#0');
  });

  it.each([
    [{ username: 'merchant' }, sale(), true],
    [{ username: 'other' }, sale(), false],
    [{ entity: 'default' }, sale({ entity: 'default' }), true],
    [{ entity: 'default' }, sale(), false],
    [{ namespace: 'n1' }, sale({ namespace: 'n1' }), true],
    [{ cardNumber: '4444333322221111' }, sale({ cardNumber: '4444333322221111' }), true],
    [{ cardHolderName: 'A' }, sale({ cardHolderName: 'B' }), false],
    [{ currency: 'GBP' }, sale({ currency: 'GBP' }), true],
    [{ transactionReference: 'r1' }, sale({ transactionReference: 'r2' }), false],
    [{ amount: 2051 }, sale({ amount: 2051 }), true],
    [{ amount: 2051 }, sale({ amount: 2052 }), false],
    [{ amount: { min: 1000, max: 5000 } }, sale({ amount: 1000 }), true],
    [{ amount: { min: 1000, max: 5000 } }, sale({ amount: 5000 }), true],
    [{ amount: { min: 1000, max: 5000 } }, sale({ amount: 5001 }), false],
    [{ amount: { min: 1000 } }, sale({ amount: 999 }), false],
    [{ amount: 5 }, sale(), false],
  ])('when %p against %p → %p', (when, facts, applies) => {
    expect(engineWith([{ when, then: { delayMs: 1 } }]).match('t', facts, T0) !== undefined).toBe(applies);
  });

  it('applies nth only to the nth matching request, per tenant', () => {
    const engine = engineWith([{ id: 'third', when: { operation: 'sale', nth: 3 }, then: { delayMs: 1 } }]);
    expect(labels(engine, sale(), 5, 'a')).toEqual([null, null, 'third', null, null]);
    expect(labels(engine, sale(), 3, 'b')).toEqual([null, null, 'third']);
  });

  it('applies every to each Nth matching request', () => {
    const engine = engineWith([{ id: 'e', when: { every: 2 }, then: { delayMs: 1 } }]);
    expect(labels(engine, sale(), 5)).toEqual([null, 'e', null, 'e', null]);
  });

  it('stops after times applications, per tenant, letting later rules apply', () => {
    const engine = engineWith([
      { id: 'once', when: { times: 1 }, then: { delayMs: 1 } },
      { id: 'rest', then: { delayMs: 2 } },
    ]);
    expect(labels(engine, sale(), 3, 'a')).toEqual(['once', 'rest', 'rest']);
    expect(labels(engine, sale(), 1, 'b')).toEqual(['once']);
  });

  it('applies between from (inclusive) until (exclusive) on the virtual clock', () => {
    const engine = engineWith([{ id: 'w', when: { between: { from: '2030-01-01T10:00:00Z', until: '2030-01-01T11:00:00Z' } }, then: { delayMs: 1 } }]);
    const at = (iso: string) => engine.match('t', sale(), Date.parse(iso))?.label ?? null;
    expect(at('2030-01-01T09:59:59Z')).toBeNull();
    expect(at('2030-01-01T10:00:00Z')).toBe('w');
    expect(at('2030-01-01T10:59:59Z')).toBe('w');
    expect(at('2030-01-01T11:00:00Z')).toBeNull();
  });

  it('resets the counters of one tenant, and exports and restores them', () => {
    const engine = engineWith([{ id: 'second', when: { nth: 2 }, then: { delayMs: 1 } }]);
    labels(engine, sale(), 1, 'a');
    labels(engine, sale(), 1, 'b');
    const saved = engine.counters();
    expect(saved).toEqual({ second: { a: { matches: 1, applications: 0 }, b: { matches: 1, applications: 0 } } });
    engine.resetCounters('a');
    expect(labels(engine, sale(), 2, 'a')).toEqual([null, 'second']);
    expect(labels(engine, sale(), 1, 'b')).toEqual(['second']);
    engine.restoreCounters(saved);
    expect(labels(engine, sale(), 1, 'a')).toEqual(['second']);
  });
});

describe('scenario validation', () => {
  const problems = (data: unknown): [string, string][] => {
    try {
      validateScenarios(data);
      return [];
    } catch (err) {
      const items = (err as { problems: { errorName: string; path: (string | number)[] }[] }).problems;
      return items.map((p) => [p.errorName, p.path.join('.')]);
    }
  };

  it.each<[string, unknown, [string, string][]]>([
    ['a missing name', { rules: [] }, [['fieldIsMissing', 'name']]],
    ['an unknown operation', { name: 'x', rules: [{ when: { operation: 'capture' }, then: { delayMs: 1 } }] }, [['fieldHasInvalidValue', 'rules.0.when.operation']]],
    ['an empty then', { name: 'x', rules: [{ then: {} }] }, [['fieldIsEmpty', 'rules.0.then']]],
    ['a missing then', { name: 'x', rules: [{ when: {} }] }, [['fieldIsMissing', 'rules.0.then']]],
    ['nth 0', { name: 'x', rules: [{ when: { nth: 0 }, then: { delayMs: 1 } }] }, [['integerIsTooSmall', 'rules.0.when.nth']]],
    ['a delay over the cap', { name: 'x', rules: [{ then: { delayMs: 600000 } }] }, [['integerIsTooLarge', 'rules.0.then.delayMs']]],
    ['a 200 error status', { name: 'x', rules: [{ then: { error: { status: 200, errorName: 'x' } } }] }, [['integerIsTooSmall', 'rules.0.then.error.status']]],
    ['an error without errorName', { name: 'x', rules: [{ then: { error: { status: 500 } } }] }, [['fieldIsMissing', 'rules.0.then.error.errorName']]],
    ['an unknown fault', { name: 'x', rules: [{ then: { fault: 'explode' } }] }, [['fieldHasInvalidValue', 'rules.0.then.fault']]],
    ['an unknown outcome', { name: 'x', rules: [{ then: { outcome: { outcome: 'maybe' } } }] }, [['fieldHasInvalidValue', 'rules.0.then.outcome.outcome']]],
    ['a bad risk', { name: 'x', rules: [{ then: { riskFactors: [{ risk: 'high', detail: 'address' }] } }] }, [['fieldHasInvalidValue', 'rules.0.then.riskFactors.0.risk']]],
    ['an amount range upside down', { name: 'x', rules: [{ when: { amount: { min: 5, max: 1 } }, then: { delayMs: 1 } }] }, [['fieldHasInvalidValue', 'rules.0.when.amount']]],
    ['a bad between', { name: 'x', rules: [{ when: { between: { from: 'soon' } }, then: { delayMs: 1 } }] }, [['dateHasInvalidFormat', 'rules.0.when.between.from']]],
    ['an unknown profile', { name: 'x', profile: 'staging' }, [['fieldHasInvalidValue', 'profile']]],
    ['a sale outcome on a token rule', { name: 'x', rules: [{ when: { operation: 'getToken' }, then: { outcome: { outcome: 'refused' }, riskFactors: [] } }] }, [
      ['fieldHasInvalidValue', 'rules.0.then.outcome'],
      ['fieldHasInvalidValue', 'rules.0.then.riskFactors'],
    ]],
    ['a bad preloaded token', { name: 'x', tokens: [{ paymentInstrument: {}, merchant: { entity: 'default' } }] }, [
      ['fieldIsMissing', 'tokens.0.paymentInstrument.type'],
      ['fieldIsMissing', 'tokens.0.paymentInstrument.cardHolderName'],
      ['fieldIsMissing', 'tokens.0.paymentInstrument.cardNumber'],
      ['fieldIsMissing', 'tokens.0.paymentInstrument.cardExpiryDate'],
    ]],
  ])('refuses %s, naming the path', (_name, data, expected) => {
    expect(problems(data)).toEqual(expected);
  });

  it('lists every problem of a file at once', () => {
    expect(problems({ rules: [{ then: {} }, { when: { nth: -1 }, then: { fault: 'x' } }] })).toEqual([
      ['fieldIsMissing', 'name'],
      ['fieldIsEmpty', 'rules.0.then'],
      ['integerIsTooSmall', 'rules.1.when.nth'],
      ['fieldHasInvalidValue', 'rules.1.then.fault'],
    ]);
  });
});
