import { describe, expect, it } from '@jest/globals';
import { codeOf, storedPayment } from '../support/domain.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { allowedActions, lastEventOf, saleOutcomeOf, type Payment, type PaymentEvent, type PaymentScript } from '../../src/domain/payment.js';
import { createPayments } from '../../src/domain/payments.js';
import { createMemoryPaymentStore } from '../../src/store/memory-payments.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;

function setup(script: PaymentScript = {}, approved = true) {
  let now = T0;
  let n = 0;
  const told: { paymentId: string; type: string; at: number }[] = [];
  const payments = createPayments({
    clock: { now: () => now },
    ids: {
      tokenId: () => 'unused',
      authorizationCode: () => 'AUTH01',
      schemeReference: () => 'SCHEME',
      paymentAccountReference: (c) => c,
      paymentId: () => `99${String(++n).padStart(17, '0')}`,
      eventId: (_t, p, seq) => `${p}-${seq}`,
    },
    store: createMemoryPaymentStore(),
    settlementDelay: parseDuration('P1D') as Duration,
    onEvent: (p, e) => told.push({ paymentId: p.paymentId, type: e.type, at: e.at }),
  });
  const sale = payments.record('t1', { transactionReference: 'order-1', entity: 'default', currency: 'GBP', amount: 1000, approved, script });
  return {
    payments,
    id: sale.paymentId,
    told,
    at: (ms: number) => (now = T0 + ms),
    types: (p: Payment): string[] => p.events.map((e: PaymentEvent) => e.type),
  };
}


describe('a payment on the virtual clock', () => {
  it('is sentForSettlement at sale time, still so 1 ms before the delay ends, and settled at its exact end', () => {
    const { payments, id, at, types } = setup();
    expect(types(payments.get('t1', id))).toEqual(['sentForSettlement']);
    at(DAY - 1);
    expect(lastEventOf(payments.get('t1', id))).toBe('sentForSettlement');
    at(DAY);
    const settled = payments.get('t1', id);
    expect(types(settled)).toEqual(['sentForSettlement', 'settled']);
    expect(settled.events[1]?.at).toBe(T0 + DAY);
  });

  it('ends in settlementFailed when a scenario says so', () => {
    const { payments, id, at, types } = setup({ settlementFails: true });
    at(2 * DAY);
    expect(types(payments.get('t1', id))).toEqual(['sentForSettlement', 'settlementFailed']);
  });

  it('is refused when the sale is refused, and allows nothing', () => {
    const { payments, id, types } = setup({}, false);
    const p = payments.get('t1', id);
    expect(types(p)).toEqual(['refused']);
    expect(allowedActions(p)).toEqual([]);
  });

  it('keeps the sale’s outcome, whatever happens after: refused, or sentForSettlement settled, failed or reversed', () => {
    const refused = setup({}, false);
    expect(saleOutcomeOf(refused.payments.get('t1', refused.id))).toBe('refused');
    const settled = setup();
    settled.at(2 * DAY);
    expect(saleOutcomeOf(settled.payments.get('t1', settled.id))).toBe('sentForSettlement');
    const failed = setup({ settlementFails: true });
    failed.at(2 * DAY);
    expect(saleOutcomeOf(failed.payments.get('t1', failed.id))).toBe('sentForSettlement');
    const cancelled = setup();
    expect(saleOutcomeOf(cancelled.payments.reversal('t1', cancelled.id))).toBe('sentForSettlement');
  });

  it('allows refund, partial refund and reversal after the sale', () => {
    const { payments, id } = setup();
    expect(allowedActions(payments.get('t1', id))).toEqual(['refund', 'partialRefund', 'reversal']);
  });

  it('tells every event as it happens, the clock-made ones with their due time', () => {
    const { payments, id, at, told } = setup();
    at(3 * DAY);
    payments.catchUp('t1');
    expect(told).toEqual([
      { paymentId: id, type: 'sentForSettlement', at: T0 },
      { paymentId: id, type: 'settled', at: T0 + DAY },
    ]);
  });
});

type Step = { at?: number; act: 'refund' | 'reversal' | 'partial'; amount?: number };

const transitions: [string, PaymentScript, Step[], string[], number][] = [
  ['reversal before settlement → cancelled, and it never settles', {}, [{ act: 'reversal' }], ['sentForSettlement', 'cancelled'], 0],
  ['reversal after settlement → sentForRefund of the whole amount', {}, [{ at: DAY, act: 'reversal' }], ['sentForSettlement', 'settled', 'sentForRefund'], 1000],
  ['full refund after sentForSettlement → sentForRefund (and the sale still settles)', {}, [{ act: 'refund' }], ['sentForSettlement', 'sentForRefund', 'settled'], 1000],
  ['full refund after settled → sentForRefund', {}, [{ at: DAY, act: 'refund' }], ['sentForSettlement', 'settled', 'sentForRefund'], 1000],
  ['two partial refunds within the amount → sentForRefund each', {}, [{ act: 'partial', amount: 300 }, { act: 'partial', amount: 700 }], ['sentForSettlement', 'sentForRefund', 'sentForRefund', 'settled'], 1000],
  ['full refund after a partial one refunds what remains', {}, [{ act: 'partial', amount: 300 }, { act: 'refund' }], ['sentForSettlement', 'sentForRefund', 'sentForRefund', 'settled'], 1000],
  [
    'a scripted refund failure → sentForRefund, then refundFailed once the delay has passed',
    { refundFailure: { code: '57', description: 'ILLEGAL TRANSACTION' } },
    [{ at: DAY, act: 'refund' }],
    ['sentForSettlement', 'settled', 'sentForRefund', 'refundFailed'],
    0,
  ],
];

describe('transitions', () => {
  it.each(transitions)('%s', (_name, script, steps, expected, refunded) => {
    const { payments, id, at, types } = setup(script);
    for (const step of steps) {
      if (step.at !== undefined) at(step.at);
      if (step.act === 'refund') payments.refund('t1', id);
      else if (step.act === 'reversal') payments.reversal('t1', id);
      else payments.partialRefund('t1', id, { amount: step.amount ?? 0, currency: 'GBP', reference: 'r' });
    }
    at(10 * DAY);
    const p = payments.get('t1', id);
    expect(types(p)).toEqual(expected);
    expect(p.refunded).toBe(refunded);
  });

  it('stamps a failed refund with its refusal and the refund amount, and gives the amount back', () => {
    const { payments, id, at } = setup({ refundFailure: { code: '57', description: 'ILLEGAL TRANSACTION' } });
    payments.partialRefund('t1', id, { amount: 400, currency: 'GBP', reference: 'first' });
    at(DAY - 1);
    expect(lastEventOf(payments.get('t1', id))).toBe('sentForRefund');
    at(DAY);
    const p = payments.get('t1', id);
    const failed = p.events.find((e) => e.type === 'refundFailed');
    expect(failed).toMatchObject({ amount: 400, reference: 'first', refusal: { code: '57', description: 'ILLEGAL TRANSACTION' }, at: T0 + DAY });
    expect(allowedActions(p)).toEqual(['refund', 'partialRefund']);
  });
});

const refused: [string, PaymentScript, boolean, Step[], Step][] = [
  ['a refund after a full refund', {}, true, [{ act: 'refund' }], { act: 'refund' }],
  ['a partial refund after a full refund', {}, true, [{ act: 'refund' }], { act: 'partial', amount: 1 }],
  ['a reversal after a refund', {}, true, [{ act: 'refund' }], { act: 'reversal' }],
  ['a reversal after a partial refund', {}, true, [{ act: 'partial', amount: 1 }], { act: 'reversal' }],
  ['a partial refund beyond the remaining amount', {}, true, [{ act: 'partial', amount: 600 }], { act: 'partial', amount: 401 }],
  ['a partial refund beyond the sale amount', {}, true, [], { act: 'partial', amount: 1001 }],
  ['a reversal after a reversal', {}, true, [{ act: 'reversal' }], { act: 'reversal' }],
  ['a refund after a cancelling reversal', {}, true, [{ act: 'reversal' }], { act: 'refund' }],
  ['a refund after a settled reversal', {}, true, [{ at: DAY, act: 'reversal' }], { act: 'refund' }],
  ['a refund after a failed settlement', { settlementFails: true }, true, [], { at: DAY, act: 'refund' }],
  ['a reversal after a failed settlement', { settlementFails: true }, true, [], { at: DAY, act: 'reversal' }],
  ['a refund of a refused sale', {}, false, [], { act: 'refund' }],
  ['a partial refund of a refused sale', {}, false, [], { act: 'partial', amount: 1 }],
  ['a reversal of a refused sale', {}, false, [], { act: 'reversal' }],
];

describe('refused transitions', () => {
  it.each(refused)('%s is actionNotAllowed and changes nothing', (_name, script, approved, before, step) => {
    const { payments, id, at, types } = setup(script, approved);
    const run = (s: Step): void => {
      if (s.at !== undefined) at(s.at);
      if (s.act === 'refund') payments.refund('t1', id);
      else if (s.act === 'reversal') payments.reversal('t1', id);
      else payments.partialRefund('t1', id, { amount: s.amount ?? 0, currency: 'GBP', reference: 'r' });
    };
    before.forEach(run);
    if (step.at !== undefined) at(step.at);
    const p = payments.get('t1', id);
    const history = types(p);
    const refunded = p.refunded;
    expect(codeOf(() => run({ act: step.act, ...(step.amount !== undefined && { amount: step.amount }) }))).toBe('actionNotAllowed');
    expect(types(payments.get('t1', id))).toEqual(history);
    expect(payments.get('t1', id).refunded).toBe(refunded);
  });

  it('refuses a partial refund in another currency as a field problem, before the state', () => {
    const { payments, id } = setup({}, false);
    expect(codeOf(() => payments.partialRefund('t1', id, { amount: 1, currency: 'EUR', reference: 'r' }))).toBe('refundCurrencyMismatch');
  });

  it('does not know another tenant’s payment, or one that never was', () => {
    const { payments, id } = setup();
    expect(codeOf(() => payments.get('t2', id))).toBe('paymentNotFound');
    expect(codeOf(() => payments.refund('t1', '9999999999999999999'))).toBe('paymentNotFound');
  });
});

describe('the memory payment store', () => {
  it('keeps at most its limit per tenant, dropping the oldest', () => {
    const store = createMemoryPaymentStore(2);
    const payment = (id: string): Payment => storedPayment({ paymentId: id, transactionReference: 'r', amount: 1 });
    for (const id of ['a', 'b', 'c']) store.put(payment(id));
    expect(store.list('t1').map((p) => p.paymentId)).toEqual(['b', 'c']);
    expect(store.size()).toBe(2);
    for (let i = 0; i < 5000; i++) store.put(payment(`p${i}`));
    expect(store.list('t1').map((p) => p.paymentId)).toEqual(['p4998', 'p4999']);
    expect(store.get('t1', 'p4997')).toBeUndefined();
    expect(store.size()).toBe(2);
    store.clear('t1');
    expect(store.size()).toBe(0);
  });
});

describe('references (contract 4.4)', () => {
  it('checkNewReference refuses a reference the tenant used with that entity, with its message, and lets others by', () => {
    const { payments } = setup();
    expect(() => payments.checkNewReference('t1', 'default', 'order-2')).not.toThrow();
    expect(() => payments.checkNewReference('t1', 'other', 'order-1')).not.toThrow();
    expect(() => payments.checkNewReference('t2', 'default', 'order-1')).not.toThrow();
    expect(codeOf(() => payments.checkNewReference('t1', 'default', 'order-1'))).toBe('referenceAlreadyUsed');
    expect(() => payments.checkNewReference('t1', 'default', 'order-1')).toThrow("transactionReference 'order-1' was already used for a payment of merchant entity 'default'");
  });

  it('counts a refused sale as used', () => {
    const { payments } = setup({}, false);
    expect(codeOf(() => payments.checkNewReference('t1', 'default', 'order-1'))).toBe('referenceAlreadyUsed');
  });

  it('withReference answers the payments of a reference newest first, any entity, with their due events caught up', () => {
    const { payments, id, at } = setup();
    const second = payments.record('t1', { transactionReference: 'order-1', entity: 'other', currency: 'GBP', amount: 5, approved: true, script: {} });
    payments.record('t1', { transactionReference: 'order-9', entity: 'default', currency: 'GBP', amount: 5, approved: true, script: {} });
    expect(payments.withReference('t1', 'order-1').map((p) => p.paymentId)).toEqual([second.paymentId, id]);
    expect(payments.withReference('t2', 'order-1')).toEqual([]);
    expect(payments.withReference('t1', 'order-1').map(lastEventOf)).toEqual(['sentForSettlement', 'sentForSettlement']);
    at(DAY);
    const caughtUp = payments.withReference('t1', 'order-1');
    expect(caughtUp.map(lastEventOf)).toEqual(['settled', 'settled']);
    expect(caughtUp.map((p) => p.settlement)).toEqual(['settled', 'settled']);
  });
});
