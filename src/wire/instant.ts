/** Instants: ISO 8601 in, UTC out; a text naming no real moment (`2030-02-31`, `T24:00`) is refused, not rolled over as by Date.parse. */

// Groups: year, month, day, hour, minute, second, fraction, zone, offset hours, offset minutes.
const FORMS = {
  /** RFC 3339 as the token API takes it: `2030-01-01T10:20:30Z`, seconds required, optional fraction, `Z` or `±hh:mm`. */
  dateTime: /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/,
  /** The simulator's own inputs: also a date alone (UTC midnight), minutes without seconds, lower case, spaces around. */
  dateOrDateTime: /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):(\d{2})))?$/i,
};

/** Which texts a reader takes. */
export type InstantForm = keyof typeof FORMS;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Days of a month (1–12) in the proleptic Gregorian calendar: day 0 of the next month is its last. */
const daysInMonth = (year: number, month: number): number => new Date(new Date(0).setUTCFullYear(year, month, 0)).getUTCDate();

/** Why the fields of a well-formed text name no moment; undefined when they do. */
function calendarProblem(fields: readonly (string | undefined)[]): string | undefined {
  const [, y, mo, d, h, mi, s, , , oh, om] = fields;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12) return `there is no month ${mo}`;
  if (day < 1) return `there is no day ${d}`;
  if (day > daysInMonth(year, month)) return `${MONTHS[month - 1]} ${y} has ${daysInMonth(year, month)} days`;
  if (Number(h) > 23) return `hours go up to 23, not ${h}`;
  if (Number(mi) > 59) return `minutes go up to 59, not ${mi}`;
  if (Number(s) > 59) return `seconds go up to 59, not ${s}`;
  if (Number(oh) > 23 || Number(om) > 59) return `zone offsets go up to ±23:59, not ${oh}:${om}`;
  return undefined;
}

/** An instant read: its epoch milliseconds, or why the text is none (`reason` absent: not the form at all). */
export type InstantReading = { ok: true; epochMs: number } | { ok: false; reason?: string };

/** The one date parser: the text's form, then its calendar, then its instant. */
export function readInstant(text: string, form: InstantForm): InstantReading {
  const trimmed = form === 'dateOrDateTime' ? text.trim() : text;
  const fields = FORMS[form].exec(trimmed);
  if (!fields) return { ok: false };
  const reason = calendarProblem(fields);
  if (reason !== undefined) return { ok: false, reason };
  // The fields name a real date and time, which Date.parse reads exactly (it rolls over only impossible ones).
  return { ok: true, epochMs: Date.parse(trimmed) };
}

/** The epoch ms of a text of the form (by default with a zone, or a date alone: never the server's zone), or undefined. */
export function parseInstant(text: string, form: InstantForm = 'dateOrDateTime'): number | undefined {
  const reading = readInstant(text, form);
  return reading.ok ? reading.epochMs : undefined;
}

/** ISO 8601 in UTC, without `.000` when the instant has no milliseconds: `2030-01-08T00:00:00Z`. */
export function formatInstant(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
