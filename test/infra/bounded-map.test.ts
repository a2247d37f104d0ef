import { describe, expect, it } from '@jest/globals';
import { BoundedMap } from '../../src/infra/bounded-map.js';

describe('BoundedMap', () => {
  it('remembers a value and returns it', () => {
    const map = new BoundedMap<string, number>(3);
    expect(map.remember('a', 1)).toBe(1);
    expect(map.get('a')).toBe(1);
  });

  it('forgets everything once it holds its limit, then keeps the new value', () => {
    const map = new BoundedMap<string, number>(2);
    map.remember('a', 1);
    map.remember('b', 2);
    map.remember('c', 3);
    expect([...map]).toEqual([['c', 3]]);
  });
});
