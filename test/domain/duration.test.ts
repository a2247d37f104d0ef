import { describe, expect, it } from '@jest/globals';
import { addDuration, parseDuration, type Duration } from '../../src/domain/duration.js';

const add = (iso: string, d: string): string => new Date(addDuration(Date.parse(iso), parseDuration(d) as Duration)).toISOString();

describe('ISO 8601 durations', () => {
  it.each(['', 'P', 'PT', '8D', 'P-1D', 'P1DT', 'hello', 'P1.5D'])('rejects %p', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it.each([
    ['2030-01-01T00:00:00.000Z', 'P8D', '2030-01-09T00:00:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'PT1H30M', '2030-01-01T01:30:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'PT0.5S', '2030-01-01T00:00:00.500Z'],
    ['2030-01-01T00:00:00.000Z', 'P2W', '2030-01-15T00:00:00.000Z'],
    ['2030-01-31T12:00:00.000Z', 'P1M', '2030-02-28T12:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'P4Y', '2032-02-29T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'P1Y', '2029-02-28T00:00:00.000Z'],
    ['2030-11-15T00:00:00.000Z', 'P1Y2M3DT4H', '2032-01-18T04:00:00.000Z'],
  ])('%s + %s = %s', (start, d, end) => expect(add(start, d)).toBe(end));
});
