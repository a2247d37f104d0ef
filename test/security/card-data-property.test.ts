/**
 * Property: whatever Luhn-valid card number (12–19 digits) and CVC a client sends, in whatever form — a
 * string, a JSON number, an array item, a nested object, free text with spaces or dashes, the
 * Correlation-Id and Host headers (an allowed one, and a refused one), the URL path and query — in requests that succeed and that fail
 * (validation errors, broken JSON, a wrong media type, an unknown path, a bad ref, no credentials, a
 * scripted scenario error), nothing the simulator records or shows holds it: not the journal (JSON or
 * HAR), /_sim/tokens, /_sim/state, /_sim/scenarios, error answers and answer headers, nor the request log
 * in either format. Successful API answers may echo the client's own free text (decision 0010), but never
 * hold the card number itself.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { createSimulator, type Simulator } from '../../src/index.js';
import { HOST, TOKEN_TYPE, handlerOf } from '../support/sim.js';

const SALE_REQ = 'application/vnd.service.payments-v5+json';
const SALE_RES = 'application/vnd.service.payments-v5.hal+json';
const SALE_PATH = '/payments/sales/migrateCardOnFile';

/** The digit that makes `body` pass the Luhn check. */
function luhnComplete(body: string): string {
  for (let d = 0; d <= 9; d++) {
    const n = `${body}${d}`;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let v = n.charCodeAt(n.length - 1 - i) - 48;
      if (i % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
      sum += v;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}

/** Luhn-valid card numbers of 12–19 digits, on networks the default entity accepts (so sales can succeed). */
const cardArb = fc
  .tuple(fc.constantFrom('4', '51', '37', '6011', '3528'), fc.integer({ min: 12, max: 19 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }))
  .map(([prefix, length, digits]) => luhnComplete((prefix + digits.join('')).slice(0, length - 1)));
const cvcArb = fc.integer({ min: 100, max: 9999 }).map(String);

const groups = (card: string): string[] => card.match(/.{1,4}/g) ?? [];

/** Every run of 9 of the card's digits: a masked number shows at most its first and last four. */
const windowsOf = (card: string): string[] => Array.from({ length: card.length - 8 }, (_, i) => card.slice(i, i + 9));

/** Digits written with separators between them (spaces, dashes, URL spaces, a Correlation-Id's punctuation), joined. */
const joinGroups = (text: string): string => text.replace(/([0-9])(?:[ +\-._:]|%20)(?=[0-9])/g, '$1');

/**
 * The simulator's own ids, which may hold any digits (`…-000000000001`, a 19-digit token id) and are not
 * card data: removed before a scan, so that a card of many zeros is not taken for a leak.
 */
const withoutOwnIds = (text: string): string =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').replace(/(?<![0-9])99[0-9]{17}(?![0-9])/g, '<tokenId>');

interface Outputs {
  /** Everything the simulator records or shows about the session: no form of the card, no CVC. */
  strict: { what: string; text: string }[];
  /** Successful API answers: never the card number's digits. */
  answers: { what: string; text: string }[];
  statuses: number[];
}

async function session(sim: Simulator, card: string, cvc: string, lines: string[]): Promise<Outputs> {
  const out: Outputs = { strict: [], answers: [], statuses: [] };
  const spaced = groups(card).join(' ');
  const dashed = groups(card).join('-');
  const dotted = groups(card).join('.');
  const agent = request(handlerOf(sim));

  async function send(what: string, method: 'get' | 'post' | 'put', path: string, options: { body?: string; type?: string; accept?: string; auth?: boolean; headers?: Record<string, string> } = {}) {
    let t = agent[method](path).set('Host', HOST);
    if (options.auth !== false) t = t.auth('merchant', 'secret');
    t = t.set('Accept', options.accept ?? TOKEN_TYPE);
    for (const [name, value] of Object.entries(options.headers ?? {})) t = t.set(name, value);
    if (options.body !== undefined) t = t.set('Content-Type', options.type ?? TOKEN_TYPE).send(options.body);
    const res = await t;
    out.statuses.push(res.status);
    out.strict.push({ what: `${what}: answer headers`, text: JSON.stringify(res.headers) });
    (res.status >= 400 ? out.strict : out.answers).push({ what: `${what}: answer`, text: res.text });
    return res;
  }

  sim.loadScenarios({
    name: 'property',
    rules: [{ id: 'scripted', when: { operation: 'sale', cardNumber: card, cardHolderName: 'SCRIPTED' }, then: { error: { status: 503, errorName: 'serviceUnavailable', message: 'scripted' } } }],
  });
  const expiry = '{"month": 5, "year": 2035}';

  // Succeeds: the card as a string; free text holds it spaced and dashed; unknown fields hold the CVC.
  const created = await send('create', 'post', '/tokens', {
    headers: { 'Correlation-Id': card },
    body: JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName: 'Ada Lovelace', cardNumber: card, cardExpiryDate: { month: 5, year: 2035 }, cvc, billingAddress: { address1: `Flat ${dashed}`, postalCode: 'NW1', city: 'London', countryCode: 'GB' } },
      merchant: { entity: 'default' },
      description: `card ${spaced}`,
      extra: { securityCode: { value: Number(cvc) }, cards: [card] },
    }),
  });
  const links = (created.body as { _links?: Record<string, { href: string }> })._links ?? {};
  const path = (rel: string): string => new URL(links[rel]?.href ?? 'http://x/missing').pathname;
  // Succeeds: a free-text update, and a sale with the token and the CVC as a string.
  await send('update', 'put', path('tokens:description'), { body: JSON.stringify(`now ${dashed}`), headers: { 'Correlation-Id': `pay.${dotted}` } });
  const saleText = (instrument: string) => `{"instruction": {"value": {"amount": 100, "currency": "GBP"}, "narrative": {"line1": "x ${spaced}"}, "paymentInstrument": ${instrument}}, "merchant": {"entity": "default"}, "transactionReference": "ref ${dashed}"}`;
  const saleOptions = { type: SALE_REQ, accept: SALE_RES };
  await send('sale with the token', 'post', SALE_PATH, { ...saleOptions, body: saleText(`{"type": "card/token", "href": "${links['tokens:token']?.href ?? ''}", "cvc": "${cvc}"}`) });
  // Fails: the card number and the CVC as JSON numbers (the rejected sale).
  await send('sale with numbers', 'post', SALE_PATH, { ...saleOptions, body: saleText(`{"type": "card/plain", "cardNumber": ${card}, "cardHolderName": "A", "cardExpiryDate": ${expiry}, "cvc": ${cvc}}`) });
  // Fails: array items, and nested objects; a number under no card key (17–19 digits would round in JSON.parse).
  await send('create with arrays', 'post', '/tokens', {
    body: `{"paymentInstrument": {"type": "card/front", "cardHolderName": "A", "cardNumber": [${card}, "${card}"], "cardExpiryDate": ${expiry}, "cvv": [${cvc}]}, "merchant": {"entity": "default"}, "tags": [${card}, {"n": ${card}}]}`,
  });
  await send('create with nested free text', 'post', '/tokens', {
    body: JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: { number: card }, cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: `shop ${spaced}` }, namespace: dashed }),
  });
  // Fails: an unconfigured entity quoted in the error message.
  await send('create for a card-named entity', 'post', '/tokens', {
    body: JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: card, cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: `shop ${dashed}` } }),
  });
  // Fails: broken JSON, a wrong media type, no credentials.
  await send('broken JSON', 'post', '/tokens', { body: `{"paymentInstrument": {"cardNumber": ${card}, "cvc": ${cvc}, "note": "${spaced}"` });
  await send('wrong media type', 'post', '/tokens', { type: 'text/plain', body: `cardNumber=${card}&cvc=${cvc}` });
  await send('no credentials', 'post', '/tokens', { auth: false, body: JSON.stringify({ paymentInstrument: { cardNumber: card, cvc } }) });
  // Fails: the card in the URL path and query, and in the Host and Correlation-Id headers (one not sane).
  await send('unknown path', 'get', `/nope/${card}/${encodeURIComponent(spaced)}/${dashed}?pan=${card}&q=${encodeURIComponent(spaced)}&cvc=${cvc}`, {
    headers: { Host: `${card}.localhost`, 'Correlation-Id': `id ${spaced}` },
  });
  // Fails: a Host that is not the simulator's (403, decision 0042), quoted in the error message.
  await send('foreign host', 'get', '/tokens', { headers: { Host: `${card}.example` } });
  await send('bad ref', 'get', `/tokens/${card}`, { headers: { 'Correlation-Id': dashed } });
  // Fails: a scenario's scripted error for a plain-card sale.
  await send('scripted sale', 'post', SALE_PATH, { ...saleOptions, body: saleText(`{"type": "card/plain", "cardNumber": "${card}", "cardHolderName": "SCRIPTED", "cardExpiryDate": ${expiry}, "cvc": "${cvc}"}`) });

  for (const listing of ['/_sim/requests', '/_sim/requests?format=har', '/_sim/tokens', '/_sim/state', '/_sim/scenarios']) {
    const res = await request(handlerOf(sim)).get(listing).set('Host', HOST);
    expect(res.status).toBe(200);
    out.strict.push({ what: listing, text: res.text });
  }
  out.strict.push({ what: 'log', text: lines.join('\n') });
  return out;
}

/**
 * The first output that holds the card (any 9 of its digits in a row, separators ignored) or the CVC after
 * its key (within a few characters that are neither digits nor the stars of a masked value).
 */
function leak(outputs: { what: string; text: string }[], card: string, cvc: string | undefined, joined: boolean): string | undefined {
  const cvcNearKey = cvc === undefined ? undefined : new RegExp(`(?:cvc|cvv|security_?code)[^0-9*]{0,12}${cvc}(?![0-9])`, 'i');
  for (const { what, text } of outputs) {
    const scanned = joined ? joinGroups(withoutOwnIds(text)) : withoutOwnIds(text);
    const window = windowsOf(card).find((w) => scanned.includes(w));
    if (window !== undefined) return `${what} holds ${window} of ${card}: …${scanned.slice(Math.max(0, scanned.indexOf(window) - 80), scanned.indexOf(window) + 40)}…`;
    const m = cvcNearKey?.exec(text);
    if (m) return `${what} holds the CVC ${cvc}: …${text.slice(Math.max(0, m.index - 60), m.index + 60)}…`;
  }
  return undefined;
}

describe('card data in every form, scanned in every output', () => {
  it('never leaves the simulator in full', async () => {
    await fc.assert(
      fc.asyncProperty(cardArb, cvcArb, fc.constantFrom('json' as const, 'pretty' as const), async (card, cvc, log) => {
        const lines: string[] = [];
        const sim = createSimulator({ seed: 'property', now: '2030-01-01T00:00:00Z', frozen: true, log }, { writeErr: (line) => lines.push(line) });
        const out = await session(sim, card, cvc, lines);
        // The session did what it meant to: successes succeeded, each failure failed as intended.
        expect(out.statuses).toEqual([201, 204, 201, 400, 400, 400, 400, 400, 415, 401, 404, 403, 400, 503]);
        expect(lines.length).toBeGreaterThanOrEqual(out.statuses.length);
        expect(leak(out.strict, card, cvc, true)).toBeUndefined();
        expect(leak(out.answers, card, undefined, false)).toBeUndefined();
      }),
      { numRuns: 30 },
    );
  }, 60_000);

  it('finds a leak when there is one (the scan itself is tested)', () => {
    const card = '4444333322221111';
    expect(leak([{ what: 'x', text: 'a 4444-3333-2222-1111 b' }], card, undefined, true)).toMatch(/^x holds/);
    expect(leak([{ what: 'x', text: 'a 4444%203333%202222%201111 b' }], card, undefined, true)).toMatch(/^x holds/);
    expect(leak([{ what: 'x', text: '{"cardNumber":4444333322221000}' }], card, undefined, false)).toMatch(/^x holds 444433332/);
    expect(leak([{ what: 'x', text: '{"cvv":[987]}' }], card, '987', false)).toMatch(/CVC 987/);
    expect(leak([{ what: 'x', text: '{"cardNumber":"4444********1111","cvc":"***","n":987}' }], card, '987', true)).toBeUndefined();
    // The simulator's own ids are not card data, whatever their digits.
    expect(leak([{ what: 'x', text: '"correlationId":"a4d280ac-9aaa-01ca-22bc-000000000001","tokenId":"9944443333222211110"' }], '400000000002', undefined, true)).toBeUndefined();
    expect(leak([{ what: 'x', text: '"tokenId":"9944443333222211110"' }], card, undefined, true)).toBeUndefined();
  });
});
