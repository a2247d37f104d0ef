/** Load-test realism (decision 0037): `when.chance` and delay distributions, their schema and their seeded draws. */
import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createIdSource } from '../../src/infra/ids.js';
import { delayOf, normalQuantile } from '../../src/scenarios/rule-numbers.js';
import { createScenarioEngine, type RequestFacts } from '../../src/scenarios/engine.js';
import { validateScenarios } from '../../src/scenarios/loader.js';
import { WireError } from '../../src/wire/problems.js';
import { toJsonPath } from '../../src/wire/validation.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const SALE: RequestFacts = { operation: 'sale', username: 'merchant' };
const keyOf = (byte: number) => createSecretKey(Buffer.alloc(32, byte));

/** The {errorName, jsonPath} list a scenario with this one rule is refused with ([] when it is valid). */
function problemsOfRule(rule: unknown): { errorName: string; jsonPath: string; message: string }[] {
  try {
    validateScenarios({ name: 's', rules: [rule] });
    return [];
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    return err.problems.map((p) => ({ errorName: p.errorName, jsonPath: toJsonPath(p.path ?? []), message: p.message }));
  }
}

function engineWith(rules: unknown[], key = keyOf(1)) {
  const engine = createScenarioEngine(createIdSource(key));
  engine.replace(validateScenarios({ name: 's', rules }));
  return engine;
}

/** Which of n sales a rule applied to (1) or not (0), in order. */
const pattern = (engine: ReturnType<typeof engineWith>, n: number, tenant = 'merchant'): string =>
  Array.from({ length: n }, () => (engine.match(tenant, SALE, T0) ? '1' : '0')).join('');

describe('the schema of chance and delay distributions', () => {
  it.each([
    ['chance 0', { when: { chance: 0 }, then: { delayMs: 1 } }],
    ['chance 1', { when: { chance: 1 }, then: { delayMs: 1 } }],
    ['chance 0.02', { when: { chance: 0.02 }, then: { delayMs: 1 } }],
    ['a plain delay', { then: { delayMs: 60000 } }],
    ['a uniform delay', { then: { delayMs: { uniform: [20, 60] } } }],
    ['a uniform delay of one value', { then: { delayMs: { uniform: [0, 0] } } }],
    ['a uniform delay up to the maximum', { then: { delayMs: { uniform: [0, 60000] } } }],
    ['a lognormal delay', { then: { delayMs: { lognormal: { median: 120, sigma: 0.5 } } } }],
    ['a lognormal delay without spread', { then: { delayMs: { lognormal: { median: 0.5, sigma: 0 } } } }],
  ])('accepts %s', (_name, rule) => {
    expect(problemsOfRule(rule)).toEqual([]);
  });

  it('keeps the distribution as written', () => {
    const [scenario] = validateScenarios({ name: 's', rules: [{ when: { chance: 0.25 }, then: { delayMs: { lognormal: { median: 80, sigma: 0.4 } } } }] });
    expect(scenario?.rules?.[0]).toEqual({ when: { chance: 0.25 }, then: { delayMs: { lognormal: { median: 80, sigma: 0.4 } } } });
  });

  it.each([
    ['a chance above 1', { when: { chance: 1.5 }, then: { delayMs: 1 } }, 'fieldHasInvalidValue', '$.rules[0].when.chance', 'chance must be at most 1'],
    ['a negative chance', { when: { chance: -0.1 }, then: { delayMs: 1 } }, 'fieldHasInvalidValue', '$.rules[0].when.chance', 'chance must be 0 or more'],
    ['a chance as a string', { when: { chance: '50%' }, then: { delayMs: 1 } }, 'fieldMustBeNumber', '$.rules[0].when.chance', 'chance must be a number'],
    ['a null chance', { when: { chance: null }, then: { delayMs: 1 } }, 'fieldIsNull', '$.rules[0].when.chance', 'chance must not be null'],
    ['a negative delay', { then: { delayMs: -1 } }, 'integerIsTooSmall', '$.rules[0].then.delayMs', 'delayMs must be 0 or more'],
    ['a delay past the maximum', { then: { delayMs: 60001 } }, 'integerIsTooLarge', '$.rules[0].then.delayMs', 'delayMs must be at most 60000'],
    ['a fractional delay', { then: { delayMs: 1.5 } }, 'fieldMustBeInteger', '$.rules[0].then.delayMs', 'delayMs must be an integer'],
    ['a delay as a string', { then: { delayMs: '100' } }, 'fieldMustBeInteger', '$.rules[0].then.delayMs', 'delayMs must be an integer'],
    ['an unknown distribution', { then: { delayMs: { normal: [1, 2] } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs', 'delayMs must be a whole number of milliseconds, {uniform: [min, max]} or {lognormal: {median, sigma}}'],
    ['two distributions at once', { then: { delayMs: { uniform: [1, 2], lognormal: { median: 1, sigma: 1 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs', 'delayMs must be a whole number of milliseconds, {uniform: [min, max]} or {lognormal: {median, sigma}}'],
    ['a list as the delay', { then: { delayMs: [20, 60] } }, 'fieldMustBeInteger', '$.rules[0].then.delayMs', 'delayMs must be an integer'],
    ['a uniform of one number', { then: { delayMs: { uniform: [20] } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.uniform', 'uniform must be [min, max]: two whole numbers of milliseconds'],
    ['a uniform of three numbers', { then: { delayMs: { uniform: [1, 2, 3] } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.uniform', 'uniform must be [min, max]: two whole numbers of milliseconds'],
    ['a uniform as an object', { then: { delayMs: { uniform: { min: 1, max: 2 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.uniform', 'uniform must be [min, max]: two whole numbers of milliseconds'],
    ['a uniform max below its min', { then: { delayMs: { uniform: [60, 20] } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.uniform[1]', 'uniform must not be below the minimum'],
    ['a uniform max past the maximum', { then: { delayMs: { uniform: [20, 60001] } } }, 'integerIsTooLarge', '$.rules[0].then.delayMs.uniform[1]', 'uniform must be at most 60000'],
    ['a negative uniform min', { then: { delayMs: { uniform: [-1, 20] } } }, 'integerIsTooSmall', '$.rules[0].then.delayMs.uniform[0]', 'uniform must be 0 or more'],
    ['a fractional uniform bound', { then: { delayMs: { uniform: [1, 2.5] } } }, 'fieldMustBeInteger', '$.rules[0].then.delayMs.uniform[1]', 'uniform must be an integer'],
    ['a lognormal median of 0', { then: { delayMs: { lognormal: { median: 0, sigma: 1 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.lognormal.median', 'median must be more than 0'],
    ['a lognormal median past the maximum', { then: { delayMs: { lognormal: { median: 60001, sigma: 1 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.lognormal.median', 'median must be at most 60000'],
    ['a negative sigma', { then: { delayMs: { lognormal: { median: 100, sigma: -0.5 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.lognormal.sigma', 'sigma must be 0 or more'],
    ['a sigma past 10', { then: { delayMs: { lognormal: { median: 100, sigma: 11 } } } }, 'fieldHasInvalidValue', '$.rules[0].then.delayMs.lognormal.sigma', 'sigma must be at most 10'],
    ['a sigma as a string', { then: { delayMs: { lognormal: { median: 100, sigma: 'wide' } } } }, 'fieldMustBeNumber', '$.rules[0].then.delayMs.lognormal.sigma', 'sigma must be a number'],
    ['a lognormal without sigma', { then: { delayMs: { lognormal: { median: 100 } } } }, 'fieldIsMissing', '$.rules[0].then.delayMs.lognormal.sigma', 'sigma is required'],
    ['a lognormal as a number', { then: { delayMs: { lognormal: 100 } } }, 'fieldMustBeObject', '$.rules[0].then.delayMs.lognormal', 'lognormal must be a JSON object'],
    ['a misspelt lognormal field', { then: { delayMs: { lognormal: { median: 100, sigma: 1, sigmaa: 2 } } } }, 'fieldIsNotAllowed', '$.rules[0].then.delayMs.lognormal.sigmaa', 'sigmaa is not a field of this object; did you mean sigma?'],
  ])('refuses %s with one precise problem', (_name, rule, errorName, jsonPath, message) => {
    expect(problemsOfRule(rule)).toEqual([{ errorName, jsonPath, message }]);
  });

  it('lists a problem of each bound of a uniform', () => {
    expect(problemsOfRule({ then: { delayMs: { uniform: ['a', null] } } }).map((p) => [p.errorName, p.jsonPath])).toEqual([
      ['fieldMustBeInteger', '$.rules[0].then.delayMs.uniform[0]'],
      ['fieldIsNull', '$.rules[0].then.delayMs.uniform[1]'],
    ]);
  });

  it('reports a chance problem beside the other problems of the rule', () => {
    expect(problemsOfRule({ when: { chance: 2, nth: 0 }, then: { delayMs: { uniform: [5, 1] } } }).map((p) => p.jsonPath).sort()).toEqual([
      '$.rules[0].then.delayMs.uniform[1]',
      '$.rules[0].when.chance',
      '$.rules[0].when.nth',
    ]);
  });
});

describe('the delay draws', () => {
  const draws = (values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length] ?? 0;
  };

  it('keeps a plain delay without drawing', () => {
    let drawn = 0;
    expect(delayOf(250, () => (drawn++, 0.5))).toBe(250);
    expect(delayOf(undefined, () => (drawn++, 0.5))).toBe(0);
    expect(drawn).toBe(0);
  });

  it('maps a uniform draw onto every whole number of [min, max], both ends included', () => {
    const spec = { uniform: [20, 23] as [number, number] };
    const draw = draws([0, 0.2499, 0.25, 0.5, 0.75, 0.999999]);
    expect(Array.from({ length: 6 }, () => delayOf(spec, draw))).toEqual([20, 20, 21, 22, 23, 23]);
  });

  it('keeps 2,000 seeded uniform delays within [min, max], reaching both ends', () => {
    const ids = createIdSource(keyOf(2));
    const values = Array.from({ length: 2000 }, () => delayOf({ uniform: [20, 60] }, () => ids.fraction('delay', 'merchant')));
    expect(Math.min(...values)).toBe(20);
    expect(Math.max(...values)).toBe(60);
    expect(values.every((v) => Number.isInteger(v))).toBe(true);
  });

  it('draws lognormal delays whose sample median is within 15 % of the median (2,000 draws)', () => {
    const ids = createIdSource(keyOf(3));
    const values = Array.from({ length: 2000 }, () => delayOf({ lognormal: { median: 200, sigma: 0.8 } }, () => ids.fraction('delay', 'merchant'))).sort((a, b) => a - b);
    const median = ((values[999] ?? 0) + (values[1000] ?? 0)) / 2;
    expect(Math.abs(median - 200)).toBeLessThanOrEqual(30);
    expect(values.every((v) => Number.isInteger(v) && v >= 0 && v <= 60000)).toBe(true);
    // A spread, not a constant: the quartiles are near 200·e^(±0.8·0.674) = 117 and 343.
    expect(values[500]).toBeLessThan(150);
    expect(values[1500]).toBeGreaterThan(280);
  });

  it('gives the median itself, rounded, when sigma is 0, and clamps to [0, 60000]', () => {
    expect(delayOf({ lognormal: { median: 80.4, sigma: 0 } }, () => 0)).toBe(80);
    expect(delayOf({ lognormal: { median: 60000, sigma: 10 } }, () => 0.999)).toBe(60000);
    expect(delayOf({ lognormal: { median: 1, sigma: 10 } }, () => 0)).toBe(0);
  });

  it.each([
    [0.5, 0],
    [0.975, 1.959964],
    [0.025, -1.959964],
    [0.8413447, 1],
    [0.001, -3.090232],
  ])('takes the standard normal quantile of %f as %f', (p, z) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 5);
  });
});

describe('the seeded fraction streams', () => {
  it('draw numbers in [0, 1), the same for one key and another for another key', () => {
    const a = createIdSource(keyOf(4));
    const b = createIdSource(keyOf(4));
    const c = createIdSource(keyOf(5));
    const first = Array.from({ length: 20 }, () => a.fraction('chance', 'merchant'));
    expect(Array.from({ length: 20 }, () => b.fraction('chance', 'merchant'))).toEqual(first);
    expect(Array.from({ length: 20 }, () => c.fraction('chance', 'merchant'))).not.toEqual(first);
    expect(first.every((u) => u >= 0 && u < 1)).toBe(true);
  });

  it('are counted per kind and tenant like the id streams, and resume where a restore puts them', () => {
    const a = createIdSource(keyOf(6));
    for (let i = 0; i < 7; i++) a.fraction('chance', 'merchant');
    for (let i = 0; i < 3; i++) a.fraction('delay', 'bob');
    expect(a.counters()).toEqual({ 'chance:merchant': 7, 'delay:bob': 3 });
    const next = [a.fraction('chance', 'merchant'), a.fraction('delay', 'bob')];
    const b = createIdSource(keyOf(6));
    b.restoreCounters({ 'chance:merchant': 7, 'delay:bob': 3 });
    expect([b.fraction('chance', 'merchant'), b.fraction('delay', 'bob')]).toEqual(next);
  });

  it("of one tenant are not shifted by another tenant's draws", () => {
    const quiet = createIdSource(keyOf(7));
    const busy = createIdSource(keyOf(7));
    for (let i = 0; i < 25; i++) busy.fraction('chance', 'bob');
    expect(Array.from({ length: 10 }, () => busy.fraction('chance', 'alice'))).toEqual(Array.from({ length: 10 }, () => quiet.fraction('chance', 'alice')));
  });
});

describe('a chance rule in the engine', () => {
  const rule = (when: object) => [{ id: 'flaky', when: { operation: 'sale', ...when }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }];

  it('matches the identical sequence of 50 requests under one seed, and another under another seed', () => {
    const one = pattern(engineWith(rule({ chance: 0.5 }), keyOf(8)), 50);
    expect(pattern(engineWith(rule({ chance: 0.5 }), keyOf(8)), 50)).toBe(one);
    expect(pattern(engineWith(rule({ chance: 0.5 }), keyOf(9)), 50)).not.toBe(one);
    expect(one).toMatch(/1/);
    expect(one).toMatch(/0/);
  });

  it('never applies with chance 0 and always with chance 1', () => {
    expect(pattern(engineWith(rule({ chance: 0 })), 200)).toBe('0'.repeat(200));
    expect(pattern(engineWith(rule({ chance: 1 })), 200)).toBe('1'.repeat(200));
  });

  it('applies to about p of many requests', () => {
    const applied = [...pattern(engineWith(rule({ chance: 0.2 }), keyOf(10)), 5000)].filter((c) => c === '1').length;
    expect(applied).toBeGreaterThan(5000 * 0.17);
    expect(applied).toBeLessThan(5000 * 0.23);
  });

  it('draws only for requests whose other predicates hold', () => {
    const ids = createIdSource(keyOf(11));
    const engine = createScenarioEngine(ids);
    engine.replace(validateScenarios({ name: 's', rules: rule({ chance: 0.5, amount: { min: 100 } }) }));
    for (let i = 0; i < 10; i++) engine.match('merchant', { ...SALE, amount: 5 }, T0);
    engine.match('merchant', { operation: 'getToken', username: 'merchant' }, T0);
    expect(ids.counters()).toEqual({});
    engine.match('merchant', { ...SALE, amount: 500 }, T0);
    expect(ids.counters()).toEqual({ 'chance:merchant': 1 });
  });

  it('draws per tenant: one tenant never shifts what another sees', () => {
    const alone = pattern(engineWith(rule({ chance: 0.5 }), keyOf(12)), 30, 'alice');
    const shared = engineWith(rule({ chance: 0.5 }), keyOf(12));
    pattern(shared, 40, 'bob');
    expect(pattern(shared, 30, 'alice')).toBe(alone);
  });

  it('looks at every request for every and nth, then draws: every: 2, chance: 1 applies to the even requests', () => {
    expect(pattern(engineWith(rule({ every: 2, chance: 1 })), 6)).toBe('010101');
    expect(pattern(engineWith(rule({ nth: 3, chance: 1 })), 5)).toBe('00100');
    expect(pattern(engineWith(rule({ nth: 3, chance: 0 })), 5)).toBe('00000');
  });

  it('counts times in applications, so times caps the requests the draw let through', () => {
    const engine = engineWith(rule({ chance: 0.5, times: 3 }), keyOf(13));
    const seen = pattern(engine, 60);
    expect([...seen].filter((c) => c === '1')).toHaveLength(3);
    expect(seen.indexOf('1')).toBeGreaterThanOrEqual(0);
    expect(engine.counters().flaky?.merchant).toEqual({ matches: 60, applications: 3 });
  });

  it('draws each application a delay from the distribution, the same under one seed', () => {
    const delays = (key: number) => {
      const engine = engineWith([{ id: 'slow', then: { delayMs: { uniform: [20, 60] } } }], keyOf(key));
      return Array.from({ length: 30 }, () => engine.match('merchant', SALE, T0)?.delayMs);
    };
    const one = delays(14);
    expect(delays(14)).toEqual(one);
    expect(delays(15)).not.toEqual(one);
    expect(one.every((d) => d !== undefined && d >= 20 && d <= 60)).toBe(true);
    expect(new Set(one).size).toBeGreaterThan(5);
  });

  it('hands a plain delay on unchanged', () => {
    expect(engineWith([{ then: { delayMs: 75 } }]).match('merchant', SALE, T0)?.delayMs).toBe(75);
    expect(engineWith([{ then: { fault: 'noResponse' } }]).match('merchant', SALE, T0)?.delayMs).toBe(0);
  });
});
