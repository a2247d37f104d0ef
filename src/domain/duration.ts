/**
 * ISO 8601 durations (PnYnMnWnDTnHnMnS) and calendar-correct addition in UTC, and the range of the virtual
 * clock and of every instant the simulator keeps: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, the
 * instants that ISO 8601 writes with a four-digit year. Pure.
 */
export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;

/** Parses an ISO 8601 duration; `undefined` when the text is not one. */
export function parseDuration(text: string): Duration | undefined {
  const m = DURATION.exec(text.trim().toUpperCase());
  if (!m) return undefined;
  const num = (i: number): number => Number((m[i] ?? '0').replace(',', '.'));
  return { years: num(1), months: num(2), weeks: num(3), days: num(4), hours: num(5), minutes: num(6), seconds: num(7) };
}

/** The ISO 8601 text of a duration: `P7D`, `P4Y`, `PT1H30M`; `PT0S` when it is zero. */
export function formatDuration(d: Duration): string {
  const date = `${d.years ? `${d.years}Y` : ''}${d.months ? `${d.months}M` : ''}${d.weeks ? `${d.weeks}W` : ''}${d.days ? `${d.days}D` : ''}`;
  const time = `${d.hours ? `${d.hours}H` : ''}${d.minutes ? `${d.minutes}M` : ''}${d.seconds ? `${d.seconds}S` : ''}`;
  if (date === '' && time === '') return 'PT0S';
  return `P${date}${time === '' ? '' : `T${time}`}`;
}

/** Date.UTC, except that years 0–99 stay years 0–99 (Date.UTC reads them as 1900–1999). */
function utc(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(utc(year, monthIndex + 1, 0)).getUTCDate();
}

/**
 * Adds a duration to an epoch-millisecond instant. Years and months move the calendar date in UTC and
 * clamp to the month's last day (31 January + P1M = 28 or 29 February); the rest is exact time.
 */
export function addDuration(epochMs: number, d: Duration): number {
  let t = epochMs;
  if (d.years !== 0 || d.months !== 0) {
    const date = new Date(epochMs);
    const totalMonths = date.getUTCMonth() + d.months + 12 * d.years;
    const year = date.getUTCFullYear() + Math.floor(totalMonths / 12);
    const month = ((totalMonths % 12) + 12) % 12;
    const day = Math.min(date.getUTCDate(), daysInMonth(year, month));
    const msOfDay = epochMs - utc(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    t = utc(year, month, day) + msOfDay;
  }
  const exactMs = ((((d.weeks * 7 + d.days) * 24 + d.hours) * 60 + d.minutes) * 60 + d.seconds) * 1000;
  return t + Math.round(exactMs);
}

/**
 * How far `by` moves time from `from`: an ISO 8601 duration (calendar-correct) or milliseconds; undefined
 * when it is neither, or negative.
 */
export function advanceMs(by: string | number, from: number): number | undefined {
  let ms: number | undefined;
  if (typeof by === 'number') ms = by;
  else {
    const d = parseDuration(by);
    if (d) ms = addDuration(from, d) - from;
  }
  return ms !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** True when adding the duration moves time forward. */
export function isPositiveDuration(d: Duration): boolean {
  return addDuration(0, d) > 0;
}

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
