/** zod schema of the partial refund request (payments v5, contract 3.2). */
import * as z from 'zod';

export const partialRefundBody = z.object({
  value: z.object({
    amount: z.int().min(1, 'must be 1 or more'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be 3 upper-case letters (ISO 4217)'),
  }),
  reference: z.string().min(1, 'must be between 1 and 128 characters').max(128, 'must be between 1 and 128 characters'),
});

export type PartialRefundBody = z.output<typeof partialRefundBody>;
