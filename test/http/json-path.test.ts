import { describe, expect, it } from '@jest/globals';
import { toJsonPath } from '../../src/wire/validation.js';

describe('toJsonPath', () => {
  it.each([
    [[], '$'],
    [['paymentInstrument', 'cardNumber'], '$.paymentInstrument.cardNumber'],
    [['items', 0, 'x'], '$.items[0].x'],
    [['a b'], "$['a b']"],
    [["it's"], "$['it\\'s']"],
    [['billingAddress', 'address1'], '$.billingAddress.address1'],
  ] as const)('renders %p as %s', (path, expected) => expect(toJsonPath(path)).toBe(expected));
});
