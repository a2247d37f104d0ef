/**
 * Strict files (contract 3.1): a key that a scenario, fixtures or state file does not define, at any depth, is
 * `fieldIsNotAllowed` at its JSONPath, with a "did you mean" hint when a defined key is close. Dates in those
 * files that do not exist are refused. The shipped files and the examples in docs/ stay valid.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { problemsOfFile } from '../../src/cli/main.js';
import { fixturesProblems } from '../../src/config/fixtures.js';
import { stateSchema } from '../../src/control/state.js';
import { parseScenarioText, validateScenarios } from '../../src/scenarios/loader.js';
import { WireError } from '../../src/wire/problems.js';
import { parseBody, toJsonPath } from '../../src/wire/validation.js';

type Problem = [errorName: string, jsonPath: string, message: string];

function problemsOf(read: () => unknown): Problem[] | 'ok' {
  try {
    read();
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, toJsonPath(p.path ?? []), p.message]);
    throw err;
  }
}

const scenarioProblems = (yaml: string) => problemsOf(() => validateScenarios(parseScenarioText(yaml, 'yaml')));
const stateProblems = (state: unknown) => problemsOf(() => parseBody(stateSchema, state, 'state'));
const notAllowed = (jsonPath: string, message: string): Problem => ['fieldIsNotAllowed', jsonPath, message];

const root = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

describe('scenario files refuse keys they do not define', () => {
  it('refuses the issue’s misspelt predicates, one problem each, with hints', () => {
    const yaml = ['name: typo', 'rules:', '  - when: { opertion: sale, curency: EUR }', '    then: { delayMs: 5 }'].join('\n');
    expect(scenarioProblems(yaml)).toStrictEqual([
      notAllowed('$.rules[0].when.opertion', 'opertion is not a field of this object; did you mean operation?'),
      notAllowed('$.rules[0].when.curency', 'curency is not a field of this object; did you mean currency?'),
    ]);
  });

  it('refuses top-level rulez and token, hinting rules and tokens', () => {
    expect(scenarioProblems('name: typo\nrulez: []\ntoken: []\n')).toStrictEqual([
      notAllowed('$.rulez', 'rulez is not a field of this object; did you mean rules?'),
      notAllowed('$.token', 'token is not a field of this object; did you mean tokens?'),
    ]);
  });

  it('refuses unknown keys in every object of a rule', () => {
    const scenario = {
      name: 'deep',
      rules: [
        {
          idd: 'x',
          when: { operation: 'sale', amount: { min: 1, maxx: 2 }, between: { form: '2030-01-01' } },
          then: {
            delayMS: 5,
            error: { status: 500, errorName: 'internalErrorOccurred', mesage: 'm' },
          },
        },
        { then: { outcome: { outcome: 'refused', code: '5' }, riskFactors: [{ risk: 'not_matched', detail: 'address', extra: 1 }] } },
      ],
    };
    expect(problemsOf(() => validateScenarios(scenario))).toStrictEqual([
      notAllowed('$.rules[0].when.amount.maxx', 'maxx is not a field of this object; did you mean max?'),
      notAllowed('$.rules[0].when.between.form', 'form is not a field of this object; did you mean from?'),
      notAllowed('$.rules[0].then.error.mesage', 'mesage is not a field of this object; did you mean message?'),
      notAllowed('$.rules[0].then.delayMS', 'delayMS is not a field of this object; did you mean delayMs?'),
      notAllowed('$.rules[0].idd', 'idd is not a field of this object; did you mean id?'),
      notAllowed('$.rules[1].then.outcome.code', 'code is not a field of this object'),
      notAllowed('$.rules[1].then.riskFactors[0].extra', 'extra is not a field of this object'),
    ]);
  });

  it('refuses unknown keys in a preloaded token, at any depth', () => {
    const token = {
      usernam: 'merchant',
      paymentInstrument: {
        type: 'card/front',
        cardHolderName: 'A',
        cardNumber: '4444333322221111',
        cardExpiryDate: { month: 5, year: 2035, dya: 1 },
        billingAddress: { address1: 'a', postalCode: 'p', city: 'c', countryCode: 'GB', zip: 'z' },
        cvc: '123',
      },
      merchant: { entity: 'default', entiy: 'x' },
    };
    expect(problemsOf(() => validateScenarios({ name: 'tokens', tokens: [token] }))).toStrictEqual([
      notAllowed('$.tokens[0].paymentInstrument.cardExpiryDate.dya', 'dya is not a field of this object'),
      notAllowed('$.tokens[0].paymentInstrument.billingAddress.zip', 'zip is not a field of this object'),
      notAllowed('$.tokens[0].paymentInstrument.cvc', 'cvc is not a field of this object'),
      notAllowed('$.tokens[0].merchant.entiy', 'entiy is not a field of this object; did you mean entity?'),
      notAllowed('$.tokens[0].usernam', 'usernam is not a field of this object; did you mean username?'),
    ]);
  });

  it('places the problems of a list and of a {scenarios} wrapper, whose own unknown keys are refused too', () => {
    expect(problemsOf(() => validateScenarios([{ name: 'a' }, { name: 'b', rule: [] }]))).toStrictEqual([
      notAllowed('$[1].rule', 'rule is not a field of this object; did you mean rules?'),
    ]);
    expect(problemsOf(() => validateScenarios({ scenarios: [{ name: 'a', nmae: 'b' }], version: 2 }))).toStrictEqual([
      notAllowed('$.scenarios[0].nmae', 'nmae is not a field of this object; did you mean name?'),
      notAllowed('$.version', 'version is not a field of this object'),
    ]);
  });

  it('refuses a between date that does not exist', () => {
    expect(scenarioProblems('name: dates\nrules:\n  - when: { between: { from: "2030-02-31T00:00:00Z", until: 2030-13-01 } }\n    then: { delayMs: 1 }\n')).toStrictEqual([
      ['dateHasInvalidFormat', '$.rules[0].when.between.from', 'from must be a date and time that exists: February 2030 has 28 days'],
      ['dateHasInvalidFormat', '$.rules[0].when.between.until', 'until must be a date and time that exists: there is no month 13'],
    ]);
  });

  it('refuses a preloaded token’s expiry that does not exist', () => {
    const token = {
      paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
      merchant: { entity: 'default' },
      tokenExpiryDateTime: '2031-02-29T00:00:00Z',
    };
    expect(problemsOf(() => validateScenarios({ name: 'tokens', tokens: [token] }))).toStrictEqual([
      ['dateHasInvalidFormat', '$.tokens[0].tokenExpiryDateTime', 'tokenExpiryDateTime must be a date and time that exists: February 2031 has 28 days'],
    ]);
  });
});

describe('fixtures files refuse keys they do not define', () => {
  const fixtures = () => JSON.parse(readFileSync(root('fixtures/default.json'), 'utf8')) as Record<string, unknown> & {
    credentials: Record<string, unknown>[];
    entities: Record<string, Record<string, unknown>>;
    bins: Record<string, unknown>[];
  };

  it('at the top, in credentials, entities, bins and tokens', () => {
    const f = fixtures();
    f.credentials[0]!.pasword = 'x';
    f.entities.default!.networx = ['VISA'];
    f.bins[0]!.netwrok = 'VISA';
    f.token = [];
    f.tokens = [
      {
        paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 }, colour: 'blue' },
        merchant: { entity: 'default' },
        tokenID: '9900000000000000001',
      },
    ];
    expect(fixturesProblems(f)).toStrictEqual([
      { jsonPath: '$.credentials[0].pasword', message: 'pasword is not a field of this object; did you mean password?' },
      { jsonPath: '$.entities.default.networx', message: 'networx is not a field of this object; did you mean networks?' },
      { jsonPath: '$.bins[0].netwrok', message: 'netwrok is not a field of this object; did you mean network?' },
      { jsonPath: '$.tokens[0].paymentInstrument.colour', message: 'colour is not a field of this object' },
      { jsonPath: '$.tokens[0].tokenID', message: 'tokenID is not a field of this object; did you mean tokenId?' },
      { jsonPath: '$.token', message: 'token is not a field of this object; did you mean tokens?' },
    ]);
  });

  it('refuses a token expiry that does not exist', () => {
    const f = fixtures();
    f.tokens = [
      {
        paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
        merchant: { entity: 'default' },
        tokenExpiryDateTime: '2030-02-31T00:00:00Z',
      },
    ];
    expect(fixturesProblems(f)).toStrictEqual([
      { jsonPath: '$.tokens[0].tokenExpiryDateTime', message: 'tokenExpiryDateTime must be a date and time that exists: February 2030 has 28 days' },
    ]);
  });
});

describe('state snapshots refuse keys they do not define', () => {
  const token = {
    tenant: 'merchant',
    tokenId: '9900000000000000001',
    entity: 'default',
    description: 'Card ending 1111',
    maskedCardNumber: '4444********1111',
    sealedCardNumber: 'sealed',
    cardHolderName: 'A',
    cardExpiryDate: { month: 5, year: 2035 },
    billingAddress: { address1: 'a', postalCode: 'p', city: 'c', countryCode: 'GB' },
    network: 'VISA',
    countryCode: 'GB',
    fundingType: 'credit',
    createdAt: '2030-01-01T00:00:00Z',
    expiresAt: '2030-01-08T00:00:00Z',
    lifetimeMs: 604_800_000,
    extension: 'P7D',
    conflict: { values: { cardHolderName: 'B', cardExpiryDate: { month: 6, year: 2036 } }, expiresAt: '2030-01-01T00:30:00Z' },
  };
  const state = () => ({
    format: 'token-sim-state',
    version: 1,
    clock: { now: '2030-01-01T00:00:00Z', frozen: true },
    tenantClocks: { bob: { now: '2030-01-02T00:00:00Z', frozen: true } },
    counters: { ids: { 'tokenId:merchant': 1 }, scenarios: { rule: { merchant: { matches: 1, applications: 1 } } } },
    tokens: [structuredClone(token)],
  });

  it('accepts a snapshot of every defined field', () => {
    expect(stateProblems(state())).toBe('ok');
  });

  it('at the top, in the clocks, the counters and the tokens, at any depth', () => {
    const s = state() as ReturnType<typeof state> & Record<string, unknown>;
    s.clocks = {};
    (s.clock as Record<string, unknown>).frozn = true;
    (s.tenantClocks.bob as Record<string, unknown>).noww = 'x';
    (s.counters as Record<string, unknown>).idz = {};
    (s.counters.scenarios.rule.merchant as Record<string, unknown>).matchs = 1;
    const t = s.tokens[0]! as Record<string, unknown> & typeof token;
    t.tokenid = 'x';
    (t.cardExpiryDate as Record<string, unknown>).day = 1;
    (t.billingAddress as Record<string, unknown>).zip = 'z';
    (t.conflict as Record<string, unknown>).expiresAtt = 'x';
    (t.conflict.values as Record<string, unknown>).cardHoldrName = 'C';
    (t.conflict.values.cardExpiryDate as Record<string, unknown>).months = 6;
    expect(stateProblems(s)).toStrictEqual([
      notAllowed('$.clock.frozn', 'frozn is not a field of this object; did you mean frozen?'),
      notAllowed('$.tenantClocks.bob.noww', 'noww is not a field of this object; did you mean now?'),
      notAllowed('$.counters.scenarios.rule.merchant.matchs', 'matchs is not a field of this object; did you mean matches?'),
      notAllowed('$.counters.idz', 'idz is not a field of this object; did you mean ids?'),
      notAllowed('$.tokens[0].cardExpiryDate.day', 'day is not a field of this object'),
      notAllowed('$.tokens[0].billingAddress.zip', 'zip is not a field of this object'),
      notAllowed('$.tokens[0].conflict.values.cardExpiryDate.months', 'months is not a field of this object; did you mean month?'),
      notAllowed('$.tokens[0].conflict.values.cardHoldrName', 'cardHoldrName is not a field of this object; did you mean cardHolderName?'),
      notAllowed('$.tokens[0].conflict.expiresAtt', 'expiresAtt is not a field of this object; did you mean expiresAt?'),
      notAllowed('$.tokens[0].tokenid', 'tokenid is not a field of this object; did you mean tokenId?'),
      notAllowed('$.clocks', 'clocks is not a field of this object; did you mean clock?'),
    ]);
  });

  it('refuses clock and token dates that do not exist', () => {
    const s = state();
    s.clock.now = '2030-02-30T00:00:00Z';
    s.tokens[0]!.expiresAt = '2030-01-01T25:00:00Z';
    expect(stateProblems(s)).toStrictEqual([
      ['dateHasInvalidFormat', '$.clock.now', 'now must be a date and time that exists: February 2030 has 28 days'],
      ['dateHasInvalidFormat', '$.tokens[0].expiresAt', 'expiresAt must be a date and time that exists: hours go up to 23, not 25'],
    ]);
  });
});

describe('what ships stays valid', () => {
  const shipped = [
    ...readdirSync(root('scenarios'))
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .map((f) => `scenarios/${f}`),
    ...readdirSync(root('fixtures'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `fixtures/${f}`),
  ];

  it.each(shipped)('%s validates', (file) => expect(problemsOfFile(root(file))).toStrictEqual([]));

  /** The YAML and JSON examples in docs/ that are scenarios or fixtures (responses and bodies of the API are not files). */
  const examples: { name: string; kind: 'fixtures' | 'scenario'; data: unknown }[] = readdirSync(root('docs'))
    .filter((f) => f.endsWith('.md'))
    .flatMap((f) =>
      [...readFileSync(root(`docs/${f}`), 'utf8').matchAll(/```(yaml|json)\n([\s\S]*?)```/g)].map((m, i) => ({ name: `docs/${f} #${i + 1}`, format: m[1] as 'yaml' | 'json', text: m[2]! })),
    )
    .flatMap(({ name, format, text }): { name: string; kind: 'fixtures' | 'scenario'; data: unknown }[] => {
      let data: unknown;
      try {
        data = parseScenarioText(text, format);
      } catch {
        return []; // an excerpt with … in it
      }
      if (typeof data !== 'object' || data === null) return [];
      if ('credentials' in data || 'bins' in data) return [{ name, kind: 'fixtures', data }];
      if ('name' in data && 'rules' in data) return [{ name, kind: 'scenario', data }];
      return [];
    });

  it('finds the scenario and fixtures examples of the docs', () => {
    expect(examples.map((e) => e.kind).sort()).toEqual(expect.arrayContaining(['fixtures', 'scenario']));
  });

  it.each(examples.map((e) => [e.name, e] as const))('%s validates', (_name, example) => {
    if (example.kind === 'fixtures') expect(fixturesProblems(example.data)).toStrictEqual([]);
    else expect(problemsOf(() => validateScenarios(example.data))).toBe('ok');
  });
});
