/**
 * The memory payment store's reference index (issue 26): `byReference` answers a tenant's stored payments of a
 * transactionReference, newest first, through puts, removals, the per-tenant limit, clears and imports.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Payment } from '../../src/domain/payment.js';
import { createMemoryPaymentStore } from '../../src/store/memory-payments.js';
import { storedPayment } from '../support/domain.js';

const payment = (tenant: string, paymentId: string, transactionReference: string, entity = 'default'): Payment =>
  storedPayment({ tenant, paymentId, transactionReference, entity, amount: 250, eventCount: 1 });

const ids = (payments: readonly Payment[]): string[] => payments.map((p) => p.paymentId);

describe('byReference', () => {
  it('answers the payments of a reference newest first, of that tenant only, whatever their entity', () => {
    const store = createMemoryPaymentStore();
    store.put(payment('alice', 'p1', 'order-1'));
    store.put(payment('alice', 'p2', 'order-2'));
    store.put(payment('alice', 'p3', 'order-1', 'other'));
    store.put(payment('bob', 'p4', 'order-1'));
    expect(ids(store.byReference('alice', 'order-1'))).toEqual(['p3', 'p1']);
    expect(ids(store.byReference('bob', 'order-1'))).toEqual(['p4']);
    expect(store.byReference('alice', 'order-9')).toEqual([]);
    expect(store.byReference('carol', 'order-1')).toEqual([]);
  });

  it('forgets a payment removed, dropped past the limit, cleared or replaced by an import', () => {
    const store = createMemoryPaymentStore(2);
    store.put(payment('alice', 'p1', 'order-1'));
    store.put(payment('alice', 'p2', 'order-1'));
    store.put(payment('alice', 'p3', 'order-3'));
    // The limit of 2 dropped p1, the oldest.
    expect(ids(store.byReference('alice', 'order-1'))).toEqual(['p2']);
    store.remove('alice', 'p2');
    expect(store.byReference('alice', 'order-1')).toEqual([]);
    store.clear('alice');
    expect(store.byReference('alice', 'order-3')).toEqual([]);
    store.replaceAll([payment('alice', 'p5', 'order-5'), payment('bob', 'p6', 'order-5')]);
    expect(ids(store.byReference('alice', 'order-5'))).toEqual(['p5']);
    store.put(payment('alice', 'p5', 'order-5'));
    expect(ids(store.byReference('alice', 'order-5'))).toEqual(['p5']);
  });

  it('agrees with the stored payments after any sequence of puts, removals and clears', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), id: fc.integer({ min: 1, max: 12 }), ref: fc.constantFrom('a', 'b', 'c'), tenant: fc.constantFrom('t1', 't2') }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 12 }), tenant: fc.constantFrom('t1', 't2') }),
      fc.record({ kind: fc.constant('clear' as const), tenant: fc.constantFrom('t1', 't2') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (ops, limit) => {
        const store = createMemoryPaymentStore(limit);
        const refOf = new Map<string, string>();
        for (const o of ops) {
          const id = 'id' in o ? `${o.tenant}-${o.id}` : '';
          if (o.kind === 'put') {
            // A payment id keeps its reference for good, as a stored payment does.
            const ref = refOf.get(id) ?? o.ref;
            refOf.set(id, ref);
            store.put(payment(o.tenant, id, ref));
          } else if (o.kind === 'remove') store.remove(o.tenant, id);
          else store.clear(o.tenant);
        }
        for (const tenant of ['t1', 't2']) {
          for (const ref of ['a', 'b', 'c']) {
            const expected = store.list(tenant).filter((p) => p.transactionReference === ref).map((p) => p.paymentId).reverse();
            expect(ids(store.byReference(tenant, ref))).toEqual(expected);
          }
        }
      }),
    );
  });
});
