/**
 * A full session against the real CLI with --log json: creates, updates, conflicts, sales with CVCs,
 * refusals, validation errors, a scenario naming a card, card numbers pasted into free text and URLs, and
 * every /_sim listing. Nothing the simulator records or shows about the session — stdout, stderr, the
 * journal, /_sim output, error answers — may hold a full card number or a CVC. (Successful API answers
 * echo free text such as a description exactly as stored, as the real service does.)
 */
import { describe, expect, it } from '@jest/globals';
import { listening, run, TOKEN_TYPE } from '../support/cli.js';

const SALE_REQ = 'application/vnd.service.payments-v5+json';
const SALE_RES = 'application/vnd.service.payments-v5.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const CARDS = ['4444333322221111', '5555555555554444', '378282246310005', '6011111111111117', '3528000700000000', '4111111111111111'];
const BAD_LUHN = '4444333322221112';
const CVCS = ['7391', '864', '4826'];
/** `4444 3333 2222 1111` and `4444-3333-2222-1111`: card numbers as people write them in free text. */
const grouped = (card: string, separator: string): string => (card.match(/.{1,4}/g) ?? []).join(separator);

describe('card data never leaves the simulator in full', () => {
  it('holds no full card number or CVC in logs, journal, /_sim output or error bodies', async () => {
    const r = run(['--port', '0', '--seed', 'leak', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'json']);
    const url = await listening(r);
    const seen: string[] = [];
    const call = async (method: string, path: string, body?: unknown, type = TOKEN_TYPE, accept = TOKEN_TYPE, extra: Record<string, string> = {}): Promise<Record<string, unknown>> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: AUTH, 'Content-Type': type, Accept: accept, ...extra },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      seen.push(JSON.stringify([...res.headers]));
      if (res.status >= 400 && res.status !== 409) seen.push(text); // error answers (a 409 is a token representation)
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    };
    const create = (cardNumber: string, name = 'Ada Lovelace', extra = {}) =>
      call('POST', '/tokens', {
        paymentInstrument: { type: 'card/front', cardHolderName: name, cardNumber, cardExpiryDate: { month: 5, year: 2035 }, billingAddress: { address1: `Flat for ${cardNumber}`, postalCode: 'JJJJ', city: 'London', countryCode: 'GB' } },
        merchant: { entity: 'default' },
        description: `card ${cardNumber}`,
        ...extra,
      });
    try {
      const scenario = { name: 'leaky', rules: [{ id: 'card-rule', when: { cardNumber: CARDS[1] }, then: { riskFactors: [{ risk: 'not_matched', detail: 'address' }] } }] };
      seen.push(await (await fetch(`${url}/_sim/scenarios`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(scenario) })).text());
      for (const card of CARDS) {
        const token = await create(card);
        const links = token._links as Record<string, { href: string }>;
        await create(card, 'Someone Else');
        const path = (rel: string) => new URL(links[rel]!.href).pathname;
        await call('GET', path('tokens:token'));
        await call('PUT', path('tokens:description'), JSON.stringify(`now ${card}`));
        await call('POST', '/payments/sales/migrateCardOnFile', { instruction: { value: { amount: 100, currency: 'GBP' }, narrative: { line1: card }, paymentInstrument: { type: 'card/token', href: links['tokens:token']!.href, cvc: CVCS[0] } }, merchant: { entity: 'default' }, transactionReference: `ref ${card}` }, SALE_REQ, SALE_RES);
        await call('POST', '/payments/sales/migrateCardOnFile', { instruction: { value: { amount: 100, currency: 'GBP' }, narrative: { line1: 'x' }, paymentInstrument: { type: 'card/plain', cardNumber: card, cardHolderName: 'REFUSED51', cardExpiryDate: { month: 1, year: 2031 }, cvc: CVCS[1] } }, merchant: { entity: 'default' }, transactionReference: 't' }, SALE_REQ, SALE_RES);
      }
      // A Luhn-invalid number is masked where it is a card number (free text masks only valid ones).
      await call('POST', '/tokens', { paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: BAD_LUHN, cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } });
      await create(CARDS[0]!, 'A', { merchant: { entity: `shop ${CARDS[3]}` } });
      await call('GET', `/tokens/${CARDS[4]!}`);
      await call('GET', `/nope/${CARDS[5]!}`);
      await call('POST', '/tokens', `{"paymentInstrument": {"cardNumber": "${CARDS[0]}"`);
      // The cases: a rejected sale whose card number and CVC are JSON numbers; a client Correlation-Id
      // holding a card number; card numbers spaced and dashed in free text.
      await call('POST', '/payments/sales/migrateCardOnFile', `{"instruction": {"value": {"amount": 1, "currency": "GBP"}, "narrative": {"line1": "x"}, "paymentInstrument": {"type": "card/plain", "cardNumber": ${CARDS[0]}, "cardHolderName": "A", "cardExpiryDate": {"month": 1, "year": 2031}, "cvc": ${CVCS[2]}}}, "merchant": {"entity": "default"}, "transactionReference": "t"}`, SALE_REQ, SALE_RES);
      await call('GET', '/nope', undefined, TOKEN_TYPE, TOKEN_TYPE, { 'Correlation-Id': CARDS[1]! });
      await call('GET', '/nope', undefined, TOKEN_TYPE, TOKEN_TYPE, { 'Correlation-Id': grouped(CARDS[2]!, '-') });
      await create(CARDS[5]!, 'A', { description: `card ${grouped(CARDS[5]!, ' ')}`, namespace: grouped(CARDS[3]!, '-') });
      await create(CARDS[0]!, 'A', { merchant: { entity: `shop ${grouped(CARDS[4]!, ' ')}` } });
      await call('POST', '/payments/sales/migrateCardOnFile', { instruction: { value: { amount: 1, currency: 'XTS' }, narrative: { line1: 'x' }, paymentInstrument: { type: 'card/plain', cardNumber: CARDS[2], cardHolderName: 'A', cardExpiryDate: { month: 1, year: 2031 }, cvc: CVCS[0] } }, merchant: { entity: 'default' }, transactionReference: 't' }, SALE_REQ, SALE_RES);
      for (const path of ['/_sim/requests', '/_sim/tokens', '/_sim/state', '/_sim/scenarios']) seen.push(await (await fetch(`${url}${path}`)).text());
    } finally {
      r.child.kill('SIGTERM');
      await r.exited;
    }
    const everything = [...seen, r.stdout(), r.stderr()].join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    expect(r.stderr()).toContain('"method":"POST"');
    for (const card of [...CARDS, BAD_LUHN]) expect(everything).not.toContain(card);
    for (const card of CARDS) for (const separator of [' ', '-']) expect(everything).not.toContain(grouped(card, separator));
    // Times, durations and sizes hold any digits: set aside, a CVC must appear nowhere else.
    const stable = everything.replace(/("(?:realTime|durationMs|time|ms)":)("[^"]*"|[0-9.]+)/g, '$1_').replace(/(content-length"?\s*[:,]\s*")[0-9]+/gi, '$1_');
    for (const cvc of CVCS) expect(stable).not.toMatch(new RegExp(`\\b${cvc}\\b`));
    expect(everything).toContain('4444********1111');
  });
});
