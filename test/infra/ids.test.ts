/** The local customRandom: nanoid 5.1's algorithm byte for byte, so that seeded ids did not change when nanoid left. */
import { describe, expect, it } from '@jest/globals';
import { customRandom } from '../../src/infra/ids.js';

/** Byte k of the stream is (37k + 11) mod 256: every byte value occurs, so the rejection of high bytes is exercised. */
function counterBytes(): (n: number) => Uint8Array {
  let k = 0;
  return (n) => Uint8Array.from({ length: n }, () => (k++ * 37 + 11) & 255);
}

describe('customRandom', () => {
  // Expected values computed with nanoid 5.1.16's customRandom from the same byte stream.
  it.each([
    ['0123456789', 17, ['25814709258147692', '70369247036981470', '09258147692581436']],
    ['0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 6, ['GFEHGF', 'MLKJIH', 'ONQPON']],
    ['0123456789abcdef', 10, ['83e94fa50b', 'a50b61c72d', 'c72d83e94f']],
    ['0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 29, ['YXWVUTWVUTSRQTSRQPONQPONMLKNM', 'IHGFEDGFEDCBADCBA987A98765476', '210ZY0ZYXWVYXWVUTSVUTSRQPSRQP']],
  ])('draws what nanoid draws from the same bytes: %s, size %i', (alphabet, size, expected) => {
    const generate = customRandom(alphabet, size, counterBytes());
    expect([generate(), generate(), generate()]).toEqual(expected);
  });

  it('asks for bytes in nanoid batch sizes: the size for a power-of-two alphabet, ceil(1.6 × 256 × size / cutoff) otherwise', () => {
    const asked: number[] = [];
    const source = counterBytes();
    const spy = (n: number): Uint8Array => (asked.push(n), source(n));
    customRandom('0123456789abcdef', 10, spy)();
    customRandom('0123456789', 17, spy)();
    expect(asked).toEqual([10, 28]);
  });

  it('answers an empty id for size 0 without reading bytes', () => {
    let reads = 0;
    expect(customRandom('0123456789', 0, (n) => (reads++, new Uint8Array(n)))()).toBe('');
    expect(reads).toBe(0);
  });
});
