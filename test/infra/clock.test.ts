import { describe, expect, it } from '@jest/globals';
import { createTenantClocks, createVirtualClock } from '../../src/infra/clock.js';

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

  // The clock's range ends at 9999-12-31T23:59:59.999Z (decision 0021).
  it('stops at the end of the range while it follows real time', () => {
    const end = 253_402_300_799_999;
    let real = 0;
    const clock = createVirtualClock({ start: end - 10, realNow: () => real });
    real += 1_000_000;
    expect(clock.now()).toBe(end);
    clock.set(end, false);
    real += 5_000;
    expect(clock.now()).toBe(end);
    expect(new Date(clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });

  it("stops a tenant's running fork at the end of the range too", () => {
    const end = 253_402_300_799_999;
    let real = 0;
    const clocks = createTenantClocks(createVirtualClock({ start: end - 1_000, realNow: () => real }), () => real);
    clocks.fork('bob');
    real += 10 ** 12;
    expect(clocks.now('bob')).toBe(end);
    expect(clocks.shared.now()).toBe(end);
  });

  it('lands a move past the end at the end', () => {
    const end = 253_402_300_799_999;
    const clock = createVirtualClock({ start: end - 10, frozen: true });
    expect(clock.advance(8_640_000_000_000_000)).toBe(end);
    expect(clock.set(8_640_000_000_000_000)).toBe(end);
    expect(clock.set(-8_640_000_000_000_000)).toBe(-62_135_596_800_000);
  });
});
