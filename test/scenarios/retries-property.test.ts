/**
 * Retries never double-charge (contract 4.4, issue 26): for any sequence of sales, lost answers and retries over
 * a few references, the payments made are exactly the distinct references that got through (a sale that did the
 * work: approved, refused, or done with its answer lost), never more; each later sale of such a reference is
 * refused as a duplicate. A property test with fast-check, on both stores (the "http (redis)" project).
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, START, handlerOf, testSimulator } from '../support/sim.js';

/** What a sale meets: its card holder name, and whether it does the work (makes a payment when its reference is new). */
const KINDS = {
  approved: { holder: 'Sherlock Holmes', works: true },
  refused: { holder: 'REFUSED', works: true },
  issuerError: { holder: 'ERROR', works: false },
  lostReset: { holder: 'Lost Reset', works: true },
  lostInternal: { holder: 'Lost Internal', works: true },
  scriptedError: { holder: 'Scripted Error', works: false },
} as const;
type Kind = keyof typeof KINDS;

const RULES = [
  { when: { operation: 'sale', cardHolderName: 'Lost Reset' }, then: { lostAnswer: 'connectionReset' } },
  { when: { operation: 'sale', cardHolderName: 'Lost Internal' }, then: { lostAnswer: 'internalError' } },
  { when: { operation: 'sale', cardHolderName: 'Scripted Error' }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } },
];

/** What the client sees of a sale: its status (0 when the connection was reset), and the errorName if any. */
async function attempt(sim: ReturnType<typeof testSimulator>, reference: string, kind: Kind): Promise<{ status: number; errorName?: string }> {
  try {
    const res = await sale(sim, saleBody(plainCard({ cardHolderName: KINDS[kind].holder }), { transactionReference: reference }));
    return { status: res.status, ...(res.body?.errorName !== undefined && { errorName: res.body.errorName as string }) };
  } catch {
    return { status: 0 };
  }
}

/** The model: what each sale answers, and which references end with a payment. */
function expected(steps: readonly [string, Kind][]): { answers: { status: number; errorName?: string }[]; paid: Set<string> } {
  const paid = new Set<string>();
  const answers = steps.map(([reference, kind]) => {
    if (kind === 'scriptedError') return { status: 503, errorName: 'serviceUnavailable' };
    if (paid.has(reference)) return { status: 400, errorName: 'transactionHasAlreadyBeenProcessed' };
    if (kind === 'issuerError') return { status: 500, errorName: 'internalErrorOccurred' };
    paid.add(reference);
    if (kind === 'lostReset') return { status: 0 };
    if (kind === 'lostInternal') return { status: 500, errorName: 'internalErrorOccurred' };
    return { status: 201 };
  });
  return { answers, paid };
}

describe('sales, lost answers and retries', () => {
  it('make one payment per reference that got through, never more', async () => {
    const step = fc.tuple(fc.constantFrom('order-1', 'order-2', 'order-3'), fc.constantFrom(...(Object.keys(KINDS) as Kind[])));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const sim = testSimulator({ now: START, frozen: true });
        sim.loadScenarios([{ name: 'after-the-work', rules: RULES } as never]);
        const answers = [];
        for (const [reference, kind] of steps) answers.push(await attempt(sim, reference, kind));
        const model = expected(steps);
        expect(answers).toEqual(model.answers);
        const payments = (await request(handlerOf(sim)).get('/_sim/payments').set('Host', HOST)).body.payments as { transactionReference: string }[];
        expect(payments.map((p) => p.transactionReference).sort()).toEqual([...model.paid].sort());
      }),
      { numRuns: 40 },
    );
  });
});
