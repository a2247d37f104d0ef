/**
 * The project's own OpenAPI-driven fuzzer (decision 0024), in the spirit of Schemathesis: it reads the document
 * the simulator serves (/_sim/openapi.json), generates requests for every operation in it, /_sim included
 * (valid ones from the schemas, and mutated ones: wrong types, missing and unknown fields, edge values, bad
 * JSON, bad media types, bad credentials), sends them to a simulator on a real socket through the adapter
 * under test, and checks every answer against the document: never a 5xx, a documented status, the documented
 * media type, and a body that validates against the documented schema (ajv, JSON Schema 2020-12).
 *
 * Each operation is fuzzed on its own simulator, populated with tokens, a conflict, a sale, a tenant clock and
 * scenario sets that hold card numbers, so that exports and lists carry every shape they can. Operations that
 * load scenarios or state get no API calls afterwards (a generated scenario may script a 60 s delay).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handlerOf, testSimulator } from '../support/sim.js';
import { schemaValidator, type OpenApiDoc, type Schema } from '../support/openapi-validator.js';
import { mutationsOf, valuesOf } from '../support/schema-arbitrary.js';

/** Requests per operation; OPENAPI_FUZZ_RUNS=1000 for a deeper run, OPENAPI_FUZZ_STATS=1 to print the statuses seen. */
const RUNS = Number(process.env.OPENAPI_FUZZ_RUNS ?? 120);
/** fast-check's seed, shown with any finding; OPENAPI_FUZZ_SEED=<seed> replays a run. */
const SEED = Number(process.env.OPENAPI_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const USER = 'merchant';
const OTHER = 'svc-other';
const AUTH = `Basic ${Buffer.from(`${USER}:secret`).toString('base64')}`;
const CARDS = ['4444333322221111', '5555555555554444', '4111111111111111', '378282246310005', '6011111111111117'];
const CARD = { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardExpiryDate: { month: 5, year: 2035 } };
const ADDRESS = { address1: '221B Baker Street', postalCode: 'NW1 6XE', city: 'London', countryCode: 'GB' };
const METHODS = ['get', 'put', 'post', 'delete'] as const;
/** Over the 1 MiB every body but a state import may have. */
const TOO_LARGE = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Schema[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: unknown[];
}

interface Answer {
  status: number;
  type: string | undefined;
  text: string;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Running {
  url: string;
  server: Server;
  agent: Agent;
  /** Paths of every link of the tokens made by populate(), and of their `tokens:token` links alone. */
  refs: string[];
  tokens: string[];
  /** Paths of every payment link of the sales made by populate() (an approved one, partly refunded, and a refused one). */
  payments: string[];
  /** Sealed card numbers of the simulator's own export, so that generated imports can be valid. */
  sealed: string[];
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.agent.destroy();
    r.server.closeAllConnections();
    await new Promise((resolve) => r.server.close(resolve));
  }
});

async function start(adminToken?: string): Promise<Running> {
  const sim = testSimulator({ users: [`${OTHER}:pw`], ...(adminToken !== undefined && { adminToken }) });
  // Node closes a keep-alive socket idle for 5 s; on a loaded machine a pause that long (compiling the
  // document's validators) let the agent reuse a socket as the server closed it: `read ECONNRESET`. The
  // sockets are closed after each test instead.
  const server = createServer({ keepAliveTimeout: 120_000 }, handlerOf(sim));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const r: Running = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, agent: new Agent({ keepAlive: true, maxSockets: 4 }), refs: [], tokens: [], payments: [], sealed: [] };
  running.push(r);
  return r;
}

function send(r: Running, req: Sent): Promise<Answer> {
  const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
  return new Promise((resolve, reject) => {
    const out = httpRequest(`${r.url}${req.path}`, { method: req.method, headers, agent: r.agent }, (res) => {
      // The live journal never ends: its answer is checked on its status and headers, then the stream is dropped.
      if (res.headers['content-type']?.startsWith('text/event-stream') === true) {
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text: '' });
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
    });
    out.on('error', reject);
    out.end(req.body);
  });
}

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const json = (body: unknown): string => JSON.stringify(body);

/** Tokens (one with a pending conflict), a sale, a tenant clock, and scenario sets holding card numbers. */
async function populate(r: Running): Promise<void> {
  const api = { authorization: AUTH, accept: TOKEN_TYPE, 'content-type': TOKEN_TYPE };
  const bodies = [
    { paymentInstrument: { ...CARD, cardNumber: CARDS[0], billingAddress: ADDRESS }, merchant: { entity: 'default' }, namespace: 'ns-1', schemeTransactionReference: 'ref 1' },
    { paymentInstrument: { ...CARD, cardNumber: CARDS[1] }, merchant: { entity: 'default' } },
    { paymentInstrument: { ...CARD, cardNumber: CARDS[1], cardHolderName: 'John Watson' }, merchant: { entity: 'default' } },
  ];
  for (const body of bodies) {
    const a = await send(r, { method: 'POST', path: '/tokens', headers: api, body: json(body) });
    expect([201, 409]).toContain(a.status);
    const links = (JSON.parse(a.text) as { _links: Record<string, { href?: string }> })._links;
    for (const [name, link] of Object.entries(links)) if (name !== 'curies' && name !== 'tokens:networkToken' && link.href) r.refs.push(new URL(link.href).pathname);
    r.tokens.push(new URL(links['tokens:token']!.href!).pathname);
  }
  const sale = { instruction: { value: { amount: 100, currency: 'GBP' }, narrative: { line1: 'x' }, paymentInstrument: { type: 'card/token', href: `http://x${r.tokens[0]}` } }, merchant: { entity: 'default' }, transactionReference: 't-1', channel: 'moto' };
  const saleHeaders = { authorization: AUTH, accept: 'application/vnd.service.payments-v5.hal+json', 'content-type': 'application/vnd.service.payments-v5+json' };
  for (const holder of ['Sherlock Holmes', 'REFUSED']) {
    const plain = { type: 'card/plain', cardNumber: CARDS[0], cardHolderName: holder, cardExpiryDate: { month: 5, year: 2035 } };
    const s = await send(r, { method: 'POST', path: '/payments/sales/migrateCardOnFile', headers: saleHeaders, body: json({ ...sale, transactionReference: `t-${holder}`, instruction: { ...sale.instruction, paymentInstrument: plain } }) });
    expect(s.status).toBe(201);
    const links = (JSON.parse(s.text) as { _links: Record<string, { href?: string }> })._links;
    for (const [name, link] of Object.entries(links)) if (name !== 'curies' && link.href) r.payments.push(new URL(link.href).pathname);
  }
  expect((await send(r, { method: 'POST', path: '/payments/sales/migrateCardOnFile', headers: saleHeaders, body: json(sale) })).status).toBe(201);
  const control = { 'content-type': 'application/json' };
  expect((await send(r, { method: 'PUT', path: `/_sim/clock?tenant=${USER}`, headers: control, body: json({ now: '2030-01-02T00:00:00Z', frozen: true }) })).status).toBe(200);
  // Harmless rules that name card numbers: a zero delay.
  const scenario = (name: string, cardNumber: string) => ({
    name,
    tokens: [{ paymentInstrument: { ...CARD, cardNumber }, merchant: { entity: 'default' } }],
    rules: [{ id: 'never', when: { cardNumber: CARDS[4] }, then: { delayMs: 0 } }],
  });
  for (const [query, number] of [[`?tenant=${USER}`, CARDS[2]], ['', CARDS[3]]] as const) {
    const a = await send(r, { method: 'PUT', path: `/_sim/scenarios${query}`, headers: control, body: json(scenario(`set${query}`, number!)) });
    expect(a.status).toBe(200);
  }
  const state = JSON.parse((await send(r, { method: 'GET', path: '/_sim/state', headers: {} })).text) as { tokens: { sealedCardNumber: string }[] };
  r.sealed.push(...state.tokens.map((t) => t.sealedCardNumber));
}

/** The served document's operations, `$ref`s resolved by ajv against the document itself. */
function operationsOf(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => {
      const op = item[m] as Omit<Operation, 'method' | 'path' | 'parameters'> & { parameters?: Schema[] };
      return { ...op, method: m.toUpperCase(), path, parameters: [...((item.parameters ?? []) as Schema[]), ...(op.parameters ?? [])] };
    }),
  );
}

/** Weighted choices of everything around the body: credentials, Accept, Content-Type, the tokenRef. */
function requestsFor(op: Operation, r: Running, resolve: (ref: string) => Schema): fc.Arbitrary<Sent> {
  const hints: Record<string, fc.Arbitrary<unknown>> = {
    cardNumber: fc.constantFrom(...CARDS),
    entity: fc.constantFrom('default', 'default', 'default', 'other'),
    currency: fc.constantFrom('GBP', 'EUR', 'USD', 'XTS'),
    href: fc.constantFrom(...r.tokens.map((p) => `http://token-sim.localhost${p}`)),
    year: fc.integer({ min: 2029, max: 2040 }),
    sealedCardNumber: fc.constantFrom(...r.sealed),
    tenant: fc.constantFrom(USER, OTHER),
    cardHolderName: fc.constantFrom('Sherlock Holmes', 'REFUSED51', 'John Watson'),
    // The reference of populate()'s sales, and one of none.
    transactionReference: fc.constantFrom('t-1', 't-none'),
  };
  const options = { resolve, hints };
  const media = Object.values(op.requestBody?.content ?? {})[0];
  const valid = media ? valuesOf(media.schema, options) : fc.constant(undefined);
  const body: fc.Arbitrary<string | undefined> = media
    ? fc.oneof(
        { weight: 6, arbitrary: valid.map(json) },
        { weight: 4, arbitrary: mutationsOf(valid).map(json) },
        { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', 'not json', '{"a":'.repeat(200), 'name: [') },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constant(TOO_LARGE) },
      )
    : fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant('{}') });
  const isApi = !op.path.startsWith('/_sim');
  const okTypes = Object.keys(op.requestBody?.content ?? {});
  const contentType = fc.oneof(
    { weight: 8, arbitrary: okTypes.length > 0 ? fc.constantFrom(...okTypes) : fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', '') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
  const acceptOk = Object.keys(success?.content ?? { '*/*': {} });
  const accept = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...acceptOk, '*/*') }, { weight: 1, arbitrary: fc.constantFrom('image/png', 'application/vnd.service.tokens-v2.hal+json') }, { weight: 1, arbitrary: fc.constant(undefined) });
  const authorization = isApi
    ? fc.oneof({ weight: 8, arbitrary: fc.constant(AUTH) }, { weight: 1, arbitrary: fc.constantFrom(`Basic ${Buffer.from('svc-other:pw').toString('base64')}`, 'Basic !!!', `Basic ${Buffer.from('merchant:nope').toString('base64')}`) }, { weight: 1, arbitrary: fc.constant(undefined) })
    : fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('Bearer nope', AUTH) });
  const tokenRef = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...r.refs.map((p) => p.slice('/tokens/'.length))) },
    { weight: 1, arbitrary: fc.constantFrom('network', '%E0%A4%A', 'x'.repeat(300), '..', '%00') },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  );
  const query = fc.tuple(
    ...op.parameters
      .filter((p) => p.in === 'query')
      .map((p) => {
        const name = String(p.name);
        const value = fc.oneof(
          { weight: 4, arbitrary: hints[name] ?? valuesOf(p.schema as Schema, options) },
          { weight: 1, arbitrary: fc.constantFrom('', 'x', '-1', '1.5', '99999999999999999999', 'nobody') },
        );
        return fc.option(value.map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`), { freq: 2 });
      }),
  );
  // A payment route's own refs (right path, any purpose: a wrong purpose is a 404), a token's, and junk.
  const prefix = op.path.replace('{paymentRef}', '');
  const paymentRef = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...r.payments.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)), 'x') },
    { weight: 2, arbitrary: fc.constantFrom(...r.payments.map((p) => p.slice(p.lastIndexOf('/') + 1))) },
    { weight: 1, arbitrary: fc.constantFrom(...r.refs.map((p) => p.slice('/tokens/'.length)), '%E0%A4%A', 'x'.repeat(300), '%00') },
  );
  return fc.record({ body, contentType, accept, authorization, tokenRef, paymentRef, query }).map(({ body, contentType, accept, authorization, tokenRef, paymentRef, query }) => {
    const pairs = query.filter((q): q is string => q !== null);
    // A payment query's paymentId is a payment's ref too (decision 0057).
    const paymentId = op.path.startsWith('/paymentQueries/') ? (p: string) => p.replace('{paymentId}', () => paymentRef) : (p: string) => p;
    const path = paymentId(op.path.replace('{tokenRef}', tokenRef).replace('{paymentRef}', paymentRef)) + (pairs.length > 0 ? `?${pairs.join('&')}` : '');
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    if (accept !== undefined) headers.accept = accept;
    if (body !== undefined && contentType !== undefined) headers['content-type'] = contentType;
    return { method: op.method, path, headers, ...(body !== undefined && { body }) };
  });
}

const essence = (type: string | undefined): string | undefined => type?.split(';')[0]?.trim().toLowerCase();

/** What breaks the document in one answer, or undefined. */
function problemOf(op: Operation, sent: Sent, a: Answer, validatorOf: (schema: Schema) => ValidateFunction): string | undefined {
  const scriptedError = op.operationId === 'sale' && sent.body?.includes('"cardHolderName":"ERROR"') === true;
  if (a.status >= 500 && !scriptedError) return `answers ${a.status}: ${a.text.slice(0, 200)}`;
  const documented = op.responses[String(a.status)] ?? op.responses.default;
  if (!documented) return `answers ${a.status}, which is not documented (${a.text.slice(0, 120)})`;
  if (!documented.content) return a.text === '' ? undefined : `answers ${a.status} with a body the document does not describe`;
  // Documented media types may carry parameters (`text/plain; version=0.0.4`): the answer's essence must match one.
  const documentedType = Object.keys(documented.content).find((type) => essence(type) === essence(a.type));
  const media = documentedType === undefined ? undefined : documented.content[documentedType];
  if (!media) return `answers ${a.status} as ${a.type}, documented as ${Object.keys(documented.content).join(' or ')}`;
  let body: unknown = a.text;
  // A text answer (the metrics) is validated as the string it is; anything else must be JSON.
  if (essence(a.type) !== 'text/plain' && essence(a.type) !== 'text/event-stream') {
    try {
      body = JSON.parse(a.text);
    } catch {
      return `answers ${a.status} with a body that is not JSON`;
    }
  }
  const validate = validatorOf(media.schema);
  if (validate(body)) return undefined;
  const first = validate.errors?.[0];
  return `answers ${a.status} with a body that breaks its schema: ${first?.instancePath || '/'} ${first?.message ?? ''} (${JSON.stringify(first?.params)})`;
}

describe('the OpenAPI-driven fuzzer', () => {
  it('finds no 5xx and no answer that breaks the served document, for every operation, /_sim included', async () => {
    const first = await start();
    const docAnswer = await send(first, { method: 'GET', path: '/_sim/openapi.json', headers: {} });
    expect(docAnswer.status).toBe(200);
    const doc = JSON.parse(docAnswer.text) as OpenApiDoc;
    const validatorOf = schemaValidator(doc);
    const resolve = (ref: string): Schema => {
      const name = ref.replace('#/components/schemas/', '');
      const schema = doc.components.schemas[name];
      if (!schema) throw new Error(`unresolved ${ref}`);
      return schema;
    };

    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    expect(operations.map((o) => o.operationId)).toContain('metrics');
    const findings = new Map<string, string>();
    let sentCount = 0;
    const stats = new Map<string, number>();
    for (const [index, op] of operations.entries()) {
      const r = index === 0 ? first : await start();
      await populate(r);
      await fc.assert(
        fc.asyncProperty(requestsFor(op, r, resolve), async (sent) => {
          const a = await send(r, sent);
          sentCount++;
          if (process.env.OPENAPI_FUZZ_STATS) stats.set(`${op.operationId} ${a.status}`, (stats.get(`${op.operationId} ${a.status}`) ?? 0) + 1);
          const problem = problemOf(op, sent, a, validatorOf);
          const key = `${op.method} ${op.path}: ${problem?.replace(/\d{5,}/g, 'N').slice(0, 90)}`;
          if (problem !== undefined && !findings.has(key)) findings.set(key, `${problem}\n    after ${sent.method} ${sent.path} ${JSON.stringify(sent.headers)} ${sent.body?.slice(0, 300) ?? ''}`);
        }),
        { numRuns: RUNS, seed: SEED + index },
      );
    }
    if (process.env.OPENAPI_FUZZ_STATS) console.log([...stats].sort().map(([k, n]) => `${k}: ${n}`).join('\n'));
    expect(sentCount).toBe(RUNS * operations.length);
    expect({ seed: SEED, findings: [...findings.entries()].map(([k, v]) => `${k}\n  ${v}`) }).toEqual({ seed: SEED, findings: [] });
  }, Math.max(60_000, RUNS * 600));

  it('answers every /_sim call as documented when the admin token is missing or wrong', async () => {
    const r = await start('s3cret');
    const doc = JSON.parse((await send(r, { method: 'GET', path: '/_sim/openapi.json', headers: { authorization: 'Bearer s3cret' } })).text) as OpenApiDoc;
    const validatorOf = schemaValidator(doc);
    const problems: string[] = [];
    for (const op of operationsOf(doc).filter((o) => o.path.startsWith('/_sim'))) {
      for (const authorization of [undefined, 'Bearer wrong']) {
        const sent: Sent = { method: op.method, path: op.path, headers: { 'content-type': 'application/json', ...(authorization && { authorization }) }, ...(op.requestBody && { body: '{}' }) };
        const a = await send(r, sent);
        const problem = problemOf(op, sent, a, validatorOf);
        if (problem !== undefined) problems.push(`${op.method} ${op.path} (${authorization ?? 'no credentials'}): ${problem}`);
        if (op.operationId !== 'health') expect([op.operationId, a.status]).toEqual([op.operationId, 401]);
      }
    }
    expect(problems).toEqual([]);
  });
});
