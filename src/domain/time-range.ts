/**
 * The range of the virtual clock and of every instant the simulator keeps: 0001-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999Z, the instants that ISO 8601 writes with a four-digit year. Pure.
 */

/** 0001-01-01T00:00:00Z in epoch milliseconds. */
export const EARLIEST_INSTANT = -62_135_596_800_000;
/** 9999-12-31T23:59:59.999Z in epoch milliseconds. */
export const LATEST_INSTANT = 253_402_300_799_999;

/** True when the instant is a finite number inside the range. */
export function isInRange(epochMs: number): boolean {
  return Number.isFinite(epochMs) && epochMs >= EARLIEST_INSTANT && epochMs <= LATEST_INSTANT;
}

/**
 * An instant later than now, kept inside the range: past the end (or beyond what a date can hold, NaN) it is
 * the end. Token expiries and conflict windows go through it.
 */
export function capAtEnd(epochMs: number): number {
  return Number.isNaN(epochMs) || epochMs > LATEST_INSTANT ? LATEST_INSTANT : epochMs;
}

/** An instant kept inside the range at both ends (a running clock's reading). */
export function clampToRange(epochMs: number): number {
  return epochMs < EARLIEST_INSTANT ? EARLIEST_INSTANT : capAtEnd(epochMs);
}
