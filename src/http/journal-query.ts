/**
 * The query of `GET /_sim/requests` (and `DELETE`): the journal filter, the format, and nothing else. Every
 * problem is reported at once as 400 `urlContainsInvalidValue`, one item per offending parameter.
 */
import { JOURNAL_FILTER_KEYS, checkJournalFilter, journalFilterProblems, type JournalFilter } from '../control/journal.js';
import type { FieldProblem } from '../wire/problems.js';
import { closestField, meantValueHint } from '../wire/unknown-fields.js';
import { queryRefusal } from './errors.js';

export type JournalFormat = 'json' | 'har';

export interface JournalQuery {
  filter: JournalFilter;
  format: JournalFormat;
}

const FORMATS: readonly string[] = ['json', 'har'];
const INTEGER_KEYS = new Set<string>(['status', 'since', 'limit']);
const INTEGER = /^-?[0-9]+$/;

/** Parameters other than `known`, each with a "did you mean" hint when a known one is close. */
function unknownParams(query: Readonly<Record<string, unknown>>, known: readonly string[], where: string): FieldProblem[] {
  return Object.keys(query)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const hint = closestField(key, known);
      return { errorName: 'fieldIsNotAllowed', message: `${key} is not a parameter of ${where}${hint === undefined ? '' : `; did you mean ${hint}?`}` };
    });
}

/**
 * `?operation=&status=&method=&rule=&since=&limit=&format=` (and `tenant`, read elsewhere) as a filter and
 * a format. A parameter given twice, empty, of the wrong kind, or unknown is refused.
 */
export function parseJournalQuery(query: Readonly<Record<string, unknown>>, where: string): JournalQuery {
  const problems = unknownParams(query, ['tenant', 'format', ...JOURNAL_FILTER_KEYS], where);
  const given: Record<string, unknown> = {};
  let format: JournalFormat = 'json';
  for (const key of ['format', ...JOURNAL_FILTER_KEYS]) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      problems.push({ errorName: 'fieldHasInvalidValue', message: `${key} must be given once` });
      continue;
    }
    if (key === 'format') {
      if (FORMATS.includes(value)) format = value as JournalFormat;
      else problems.push({ errorName: 'fieldHasInvalidValue', message: `format must be one of ${FORMATS.join(', ')}${meantValueHint(value, FORMATS, '')}` });
      continue;
    }
    // Integers as numbers (a huge one becomes an unsafe number, refused as too large); anything else stays text.
    given[key] = INTEGER_KEYS.has(key) && INTEGER.test(value) ? Number(value) : value;
  }
  // The filter's own rules, worded for its keys (which are the parameters' names): URL problems carry no JSONPath.
  problems.push(...journalFilterProblems(given).map(({ errorName, message }) => ({ errorName, message })));
  if (problems.length > 0) throw queryRefusal(where, problems);
  return { filter: checkJournalFilter(given), format };
}

/** Refuses any parameter but `known` (e.g. a filter on a call that takes none). */
export function checkQueryParams(query: Readonly<Record<string, unknown>>, known: readonly string[], where: string): void {
  const problems = unknownParams(query, known, where);
  if (problems.length > 0) throw queryRefusal(where, problems);
}
