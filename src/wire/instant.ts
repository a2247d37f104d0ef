/** Instants on the wire: ISO 8601 in, ISO 8601 UTC out. Pure. */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/i;

/**
 * Parses an ISO 8601 date-time with a zone (`Z` or `±hh:mm`), or a date alone (UTC midnight).
 * Undefined for anything else: a zone-less time would depend on the server's zone.
 */
export function parseInstant(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DATE_TIME.test(trimmed)) return undefined;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) ? ms : undefined;
}

/** ISO 8601 in UTC, without `.000` when the instant has no milliseconds: `2030-01-08T00:00:00Z`. */
export function formatInstant(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
