import { describe, expect, it } from '@jest/globals';
import { createVirtualClock } from '../../src/infra/clock.js';

describe('the virtual clock', () => {
  it('follows real time from its start when not frozen', () => {
    let real = 1_000;
    const clock = createVirtualClock({ start: 50_000, realNow: () => real });
    real += 250;
    expect(clock.now()).toBe(50_250);
  });

  it('stands still when frozen and moves only when told', () => {
    let real = 1_000;
    const clock = createVirtualClock({ start: 50_000, frozen: true, realNow: () => real });
    real += 10_000;
    expect(clock.now()).toBe(50_000);
    clock.advance(5);
    expect(clock.now()).toBe(50_005);
  });

  it('can be set backwards and unfrozen', () => {
    let real = 0;
    const clock = createVirtualClock({ start: 50_000, frozen: true, realNow: () => real });
    clock.set(10_000, false);
    real += 7;
    expect(clock.now()).toBe(10_007);
    expect(clock.frozen).toBe(false);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses to advance by %p', (ms) => {
    expect(() => createVirtualClock().advance(ms)).toThrow(RangeError);
  });
});
