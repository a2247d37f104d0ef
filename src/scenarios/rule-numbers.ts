/** Scenario rules' numbers (decision 0037): delays and probabilities checked by hand, and delays drawn. */
import * as z from 'zod';
import type { FieldErrorName } from '../wire/problems.js';
import { schemaFor } from '../wire/schemas.js';
import { notAllowedMessage } from '../wire/unknown-fields.js';

/** The longest a scripted delay may hold a request. */
export const MAX_DELAY_MS = 60_000;
/** The widest lognormal spread: beyond it nearly every draw is 0 or the maximum. */
export const MAX_SIGMA = 10;

export type Issue = { path: (string | number)[]; errorName: FieldErrorName; message: string };

/** A refinement's message, as fieldHasInvalidValue. */
export const invalid = (error: string) => ({ error, params: { errorName: 'fieldHasInvalidValue' as const } });

/** A field checked by hand where zod's issues would misname it (decision 0037); `shape`, the same field in zod, is its OpenAPI form. */
export function checked<T>(check: (value: unknown, issues: Issue[]) => T, shape: z.ZodType) {
  const json: Record<string, unknown> = z.toJSONSchema(shape);
  delete json.$schema; // the document's dialect is declared once, by OpenAPI 3.1
  return z
    .unknown()
    .transform((value, ctx): T => {
      const issues: Issue[] = [];
      const out = check(value, issues);
      for (const i of issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message, params: { errorName: i.errorName } });
      return issues.length > 0 ? z.NEVER : out;
    })
    .meta(json)
    .optional();
}

/** A number within [min, max] (exclusive of min for `above`; `whole` with the integer error names), else one issue at `path`. */
export function numberIn(value: unknown, path: (string | number)[], issues: Issue[], min: number, max: number, kind: 'above' | 'whole' | 'from' = 'from'): number {
  const whole = kind === 'whole';
  if (value === null) issues.push({ path, errorName: 'fieldIsNull', message: 'must not be null' });
  else if (value === undefined) issues.push({ path, errorName: 'fieldIsMissing', message: 'is required' });
  else if (typeof value !== 'number' || !(whole ? Number.isInteger(value) : Number.isFinite(value))) {
    issues.push({ path, errorName: whole ? 'fieldMustBeInteger' : 'fieldMustBeNumber', message: whole ? 'must be an integer' : 'must be a number' });
  } else if (kind === 'above' ? value <= min : value < min) {
    issues.push({ path, errorName: whole ? 'integerIsTooSmall' : 'fieldHasInvalidValue', message: kind === 'above' ? `must be more than ${min}` : `must be ${min} or more` });
  } else if (value > max) issues.push({ path, errorName: whole ? 'integerIsTooLarge' : 'fieldHasInvalidValue', message: `must be at most ${max}` });
  return value as number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A delay: whole milliseconds, or a distribution drawn from at each application (decision 0037). */
export type DelaySpec = number | { uniform: [number, number] } | { lognormal: { median: number; sigma: number } };

const DELAY_SHAPES = `a whole number of milliseconds, {uniform: [min, max]} or {lognormal: {median, sigma}}`;

export function checkDelay(value: unknown, issues: Issue[]): DelaySpec {
  if (!isObject(value)) return numberIn(value, [], issues, 0, MAX_DELAY_MS, 'whole');
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'uniform' && keys[0] !== 'lognormal')) {
    issues.push({ path: [], errorName: 'fieldHasInvalidValue', message: `must be ${DELAY_SHAPES}` });
    return 0;
  }
  if (keys[0] === 'uniform') {
    const range = value.uniform;
    if (!Array.isArray(range) || range.length !== 2) {
      issues.push({ path: ['uniform'], errorName: 'fieldHasInvalidValue', message: 'must be [min, max]: two whole numbers of milliseconds' });
      return 0;
    }
    const min = numberIn(range[0], ['uniform', 0], issues, 0, MAX_DELAY_MS, 'whole');
    const max = numberIn(range[1], ['uniform', 1], issues, 0, MAX_DELAY_MS, 'whole');
    if (issues.length === 0 && min > max) issues.push({ path: ['uniform', 1], errorName: 'fieldHasInvalidValue', message: 'must not be below the minimum' });
    return { uniform: [min, max] };
  }
  const params = value.lognormal;
  if (!isObject(params)) {
    issues.push({ path: ['lognormal'], errorName: params === null ? 'fieldIsNull' : 'fieldMustBeObject', message: params === null ? 'must not be null' : 'must be a JSON object' });
    return 0;
  }
  for (const key of Object.keys(params)) {
    if (key !== 'median' && key !== 'sigma') {
      issues.push({ path: ['lognormal', key], errorName: 'fieldIsNotAllowed', message: notAllowedMessage(key, ['median', 'sigma']).slice(key.length + 1) });
    }
  }
  const median = numberIn(params.median, ['lognormal', 'median'], issues, 0, MAX_DELAY_MS, 'above');
  const sigma = numberIn(params.sigma, ['lognormal', 'sigma'], issues, 0, MAX_SIGMA);
  return { lognormal: { median, sigma } };
}

const wholeMs = z.int().min(0).max(MAX_DELAY_MS);

/** A delay as zod reads it, for its JSON Schema (checkDelay checks it, with error names of its own). */
export const delayShape = schemaFor<DelaySpec>()(z.union([
  wholeMs,
  z.strictObject({ uniform: z.tuple([wholeMs, wholeMs]) }),
  z.strictObject({ lognormal: z.strictObject({ median: z.number().gt(0).max(MAX_DELAY_MS), sigma: z.number().min(0).max(MAX_SIGMA) }) }),
]));

// Acklam's coefficients, highest power first; each denominator ends in its constant term, 1.
const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1];
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1];

const poly = (coefficients: readonly number[], x: number): number => coefficients.reduce((sum, k) => sum * x + k, 0);

/** The standard normal quantile of p (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const x = poly(C, q) / poly(D, q);
    return p < low ? x : -x;
  }
  const q = p - 0.5;
  return (poly(A, q * q) * q) / poly(B, q * q);
}

/** The delay of one application in whole milliseconds: the number, or one draw from the distribution (decision 0037). */
export function delayOf(spec: DelaySpec | undefined, draw: () => number): number {
  if (spec === undefined) return 0;
  if (typeof spec === 'number') return spec;
  if ('uniform' in spec) {
    const [min, max] = spec.uniform;
    return Math.min(max, min + Math.floor(draw() * (max - min + 1)));
  }
  const { median, sigma } = spec.lognormal;
  const z = normalQuantile(draw());
  const value = sigma === 0 ? median : median * Math.exp(sigma * z);
  return Math.min(MAX_DELAY_MS, Math.max(0, Math.round(value)));
}
