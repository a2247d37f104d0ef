/**
 * What a rule draws from the tenant's seeded streams (decision 0037): whether a `chance` rule applies, and
 * how long a delay distribution holds the answer. Pure functions of the drawn numbers, so a seed repeats them.
 */
import { MAX_DELAY_MS, type DelaySpec } from './schema.js';

/** Whether a rule of this chance applies, given a draw in [0, 1): 0 never does, 1 always does. */
export const chanceHolds = (chance: number, draw: number): boolean => draw < chance;

// Acklam's coefficients, highest power first; each denominator ends in its constant term, 1.
const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1];
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1];

/** The polynomial of these coefficients at x, by Horner's rule. */
const poly = (coefficients: readonly number[], x: number): number => coefficients.reduce((sum, k) => sum * x + k, 0);

/**
 * The standard normal quantile of p in (0, 1) (Peter Acklam's rational approximation, relative error below
 * 1.2e-9); -Infinity at 0.
 */
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

/**
 * The delay of one application in whole milliseconds: the number itself, or one draw from the distribution
 * (uniform: every whole number of [min, max] equally likely; lognormal: median·e^(sigma·z), z standard
 * normal by inversion, rounded and clamped to [0, MAX_DELAY_MS]). A plain number draws nothing.
 */
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
