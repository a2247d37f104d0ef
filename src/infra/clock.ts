/** The virtual clock: real time plus an offset, or frozen; a move past the clock's range (domain/duration.ts) lands at its end. */
import { clampToRange } from '../domain/duration.js';

export type VirtualClock = ReturnType<typeof createVirtualClock>;

export type ClockSetting = Parameters<VirtualClock['restore']>[0];

/** `start`: real time when absent. */
export function createVirtualClock(options: { start?: number; frozen?: boolean; realNow?: () => number } = {}) {
  const realNow = options.realNow ?? Date.now;
  let frozen = options.frozen ?? false;
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
    get frozen(): boolean {
      return frozen;
    },
    advance(ms: number): number {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError('advance takes a non-negative finite number of milliseconds');
      return pin(now() + ms, frozen);
    },
    /** Sets the time (backwards too); `frozen` keeps or changes the mode. */
    set(epochMs: number, nextFrozen = frozen): number {
      if (!Number.isFinite(epochMs)) throw new RangeError('set takes a finite instant');
      return pin(epochMs, nextFrozen);
    },
    /** What the clock is, independent of when it is read: its pinned instant (epoch ms) when frozen, else its offset from real time (ms). */
    state: () => ({ frozen, value: frozen ? pinned : offset }),
    /** Puts the clock at a setting another process read with `state()`. */
    restore(setting: { frozen: boolean; value: number }): void {
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

/** The shared clock plus per-tenant forks, each starting at the shared clock's moment and mode, then moved alone. */
export type TenantClocks = ReturnType<typeof createTenantClocks>;

export function createTenantClocks(shared: VirtualClock, realNow: () => number = Date.now) {
  const forks = new Map<string, VirtualClock>();
  return {
    shared,
    now: (tenant: string): number => (forks.get(tenant) ?? shared).now(),
    of: (tenant: string | undefined): VirtualClock => (tenant === undefined ? shared : (forks.get(tenant) ?? shared)),
    /** The tenant's fork, created from the shared clock when it has none yet. */
    fork(tenant: string): VirtualClock {
      let clock = forks.get(tenant);
      if (!clock) {
        clock = createVirtualClock({ start: shared.now(), frozen: shared.frozen, realNow });
        forks.set(tenant, clock);
      }
      return clock;
    },
    forks: (): ReadonlyMap<string, VirtualClock> => forks,
    dropForks: (): void => forks.clear(),
    /** Drops one tenant's fork: it follows the shared clock again. */
    dropFork: (tenant: string): void => void forks.delete(tenant),
  };
}
