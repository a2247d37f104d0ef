/**
 * The virtual clock: real time plus an offset, or frozen; moved by advance() and set(). It never leaves the
 * clock's range (domain/time-range.ts): a running clock stops at its end, and a move past it lands there
 * (callers refuse such moves first: control/clock-input.ts).
 */
import type { Clock } from '../domain/ports.js';
import { clampToRange } from '../domain/time-range.js';

export interface VirtualClock extends Clock {
  now(): number;
  readonly frozen: boolean;
  /** Moves forward by a non-negative number of milliseconds. */
  advance(ms: number): number;
  /** Sets the time (backwards too); `frozen` keeps or changes the mode. */
  set(epochMs: number, frozen?: boolean): number;
  /** What the clock is, independent of when it is read: its pinned instant when frozen, else its offset from real time. */
  state(): ClockSetting;
  /** Puts the clock at a setting another process read with `state()`. */
  restore(setting: ClockSetting): void;
}

export interface ClockSetting {
  frozen: boolean;
  /** Frozen: the instant (epoch ms); running: the offset from real time (ms). */
  value: number;
}

export interface ClockOptions {
  /** Where the virtual clock starts; real time when absent. */
  start?: number;
  frozen?: boolean;
  /** The real time source (injectable for tests). */
  realNow?: () => number;
}

export function createVirtualClock(options: ClockOptions = {}): VirtualClock {
  const realNow = options.realNow ?? Date.now;
  let frozen = options.frozen ?? false;
  // Following real time: now = realNow() + offset. Frozen: now = pinned.
  let pinned = clampToRange(options.start ?? realNow());
  let offset = pinned - realNow();

  const now = (): number => (frozen ? pinned : clampToRange(realNow() + offset));
  const pin = (epochMs: number, nextFrozen: boolean): number => {
    frozen = nextFrozen;
    pinned = clampToRange(epochMs);
    offset = pinned - realNow();
    return pinned;
  };

  return {
    now,
    get frozen() {
      return frozen;
    },
    advance(ms) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError('advance takes a non-negative finite number of milliseconds');
      return pin(now() + ms, frozen);
    },
    set(epochMs, nextFrozen = frozen) {
      if (!Number.isFinite(epochMs)) throw new RangeError('set takes a finite instant');
      return pin(epochMs, nextFrozen);
    },
    state: () => ({ frozen, value: frozen ? pinned : offset }),
    restore(setting) {
      if (setting.frozen) {
        pin(setting.value, true);
      } else {
        frozen = false;
        offset = setting.value;
        pinned = clampToRange(realNow() + offset);
      }
    },
  };
}

/**
 * The shared clock plus per-tenant forks. A fork starts at the shared clock's moment and mode, and from
 * then on moves only when told to for that tenant.
 */
export interface TenantClocks extends Clock {
  readonly shared: VirtualClock;
  /** The tenant's fork, or the shared clock. */
  of(tenant: string | undefined): VirtualClock;
  /** The tenant's fork, created from the shared clock when it has none yet. */
  fork(tenant: string): VirtualClock;
  forks(): ReadonlyMap<string, VirtualClock>;
  dropForks(): void;
  /** Drops one tenant's fork: it follows the shared clock again. */
  dropFork(tenant: string): void;
}

export function createTenantClocks(shared: VirtualClock, realNow: () => number = Date.now): TenantClocks {
  const forks = new Map<string, VirtualClock>();
  return {
    shared,
    now: (tenant) => (forks.get(tenant) ?? shared).now(),
    of: (tenant) => (tenant === undefined ? shared : (forks.get(tenant) ?? shared)),
    fork(tenant) {
      let clock = forks.get(tenant);
      if (!clock) {
        clock = createVirtualClock({ start: shared.now(), frozen: shared.frozen, realNow });
        forks.set(tenant, clock);
      }
      return clock;
    },
    forks: () => forks,
    dropForks: () => forks.clear(),
    dropFork: (tenant) => void forks.delete(tenant),
  };
}
