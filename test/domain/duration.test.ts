import { describe, expect, it } from '@jest/globals';
import { addDuration, advanceMs, formatDuration, isPositiveDuration, parseDuration, type Duration } from '../../src/domain/duration.js';

const add = (iso: string, d: string): string => new Date(addDuration(Date.parse(iso), parseDuration(d) as Duration)).toISOString();
const ZERO: Duration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };

describe('ISO 8601 durations', () => {
  it.each(['', 'P', 'PT', '8D', 'P-1D', 'P1DT', 'hello', 'P1.5D', 'XP1D', 'P1DX', 'P1D P2D', 'PT1.S', 'PT.5S'])('rejects %p', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it.each<[string, Partial<Duration>]>([
    ['P10Y', { years: 10 }],
    ['P12M', { months: 12 }],
    ['P10W', { weeks: 10 }],
    ['P10D', { days: 10 }],
    ['PT10H', { hours: 10 }],
    ['PT10M', { minutes: 10 }],
    ['PT10S', { seconds: 10 }],
    ['PT1.25S', { seconds: 1.25 }],
    ['PT0,5S', { seconds: 0.5 }],
    ['P1Y2M3W4DT5H6M7S', { years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7 }],
    ['p8d', { days: 8 }],
    ['  P8D  ', { days: 8 }],
    [' pt1h30m ', { hours: 1, minutes: 30 }],
  ])('reads %p as its parts, every part it leaves out 0', (text, parts) => {
    expect(parseDuration(text)).toStrictEqual({ ...ZERO, ...parts });
  });

  it.each([
    ['2030-01-01T00:00:00.000Z', 'P8D', '2030-01-09T00:00:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'PT1H30M', '2030-01-01T01:30:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'PT0.5S', '2030-01-01T00:00:00.500Z'],
    ['2030-01-01T00:00:00.000Z', 'PT0,5S', '2030-01-01T00:00:00.500Z'],
    ['2030-01-01T00:00:00.000Z', 'PT0.0004S', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'PT0.0006S', '2030-01-01T00:00:00.001Z'],
    ['2030-01-01T00:00:00.000Z', 'P2W', '2030-01-15T00:00:00.000Z'],
    ['2030-01-31T12:00:00.000Z', 'P1M', '2030-02-28T12:00:00.000Z'],
    ['2032-01-31T12:00:00.000Z', 'P1M', '2032-02-29T12:00:00.000Z'],
    ['2030-03-31T00:00:00.000Z', 'P1M', '2030-04-30T00:00:00.000Z'],
    ['2030-12-15T08:30:00.250Z', 'P1M', '2031-01-15T08:30:00.250Z'],
    ['2030-11-30T00:00:00.000Z', 'P3M', '2031-02-28T00:00:00.000Z'],
    ['2030-01-15T00:00:00.000Z', 'P25M', '2032-02-15T00:00:00.000Z'],
    ['2030-01-15T00:00:00.000Z', 'P12M', '2031-01-15T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'P4Y', '2032-02-29T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'P1Y', '2029-02-28T00:00:00.000Z'],
    ['2030-11-15T00:00:00.000Z', 'P1Y2M3DT4H', '2032-01-18T04:00:00.000Z'],
    ['2030-01-01T00:00:00.000Z', 'P1W1DT1H1M1S', '2030-01-09T01:01:01.000Z'],
  ])('%s + %s = %s', (start, d, end) => expect(add(start, d)).toBe(end));

  it.each([
    ['0099-12-15T06:00:00.000Z', 'P1Y', '0100-12-15T06:00:00.000Z'],
    ['0099-12-15T06:00:00.000Z', 'P1M', '0100-01-15T06:00:00.000Z'],
    ['0000-02-29T00:00:00.000Z', 'P1Y', '0001-02-28T00:00:00.000Z'],
    ['0000-01-31T00:00:00.000Z', 'P1M', '0000-02-29T00:00:00.000Z'],
    ['0050-06-15T12:00:00.000Z', 'P1M', '0050-07-15T12:00:00.000Z'],
    ['0050-06-15T12:00:00.000Z', 'PT1H', '0050-06-15T13:00:00.000Z'],
  ])('keeps years 0–99 in their own century: %s + %s = %s', (start, d, end) => expect(add(start, d)).toBe(end));
});

describe('formatting a duration', () => {
  it.each<[Partial<Duration>, string]>([
    [{}, 'PT0S'],
    [{ years: 4 }, 'P4Y'],
    [{ months: 6 }, 'P6M'],
    [{ weeks: 2 }, 'P2W'],
    [{ days: 7 }, 'P7D'],
    [{ hours: 1 }, 'PT1H'],
    [{ minutes: 30 }, 'PT30M'],
    [{ seconds: 0.5 }, 'PT0.5S'],
    [{ hours: 1, minutes: 30 }, 'PT1H30M'],
    [{ days: 1, seconds: 5 }, 'P1DT5S'],
    [{ years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7 }, 'P1Y2M3W4DT5H6M7S'],
  ])('writes %p as %s', (parts, text) => expect(formatDuration({ ...ZERO, ...parts })).toBe(text));

  it.each(['P4Y', 'P7D', 'PT1H30M', 'P1Y2M3W4DT5H6M7S'])('reads back %s as it wrote it', (text) => {
    expect(formatDuration(parseDuration(text) as Duration)).toBe(text);
  });
});

describe('how far a clock advance moves time', () => {
  const from = Date.parse('2030-01-31T00:00:00Z');

  it.each([
    [0, 0],
    [1, 1],
    [86_400_000, 86_400_000],
    ['PT0S', 0],
    ['PT1S', 1000],
    ['P1D', 86_400_000],
    ['P1M', 28 * 86_400_000],
  ])('moves time by %p as %p milliseconds', (by, ms) => expect(advanceMs(by, from)).toBe(ms));

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, 'tomorrow', '', 'P-1D'])('refuses %p', (by) => {
    expect(advanceMs(by, from)).toBeUndefined();
  });

  it('counts a calendar month from the given instant', () => {
    expect(advanceMs('P1M', Date.parse('2030-03-31T00:00:00Z'))).toBe(30 * 86_400_000);
    expect(advanceMs('P1M', Date.parse('2030-07-01T00:00:00Z'))).toBe(31 * 86_400_000);
  });
});

describe('a positive duration', () => {
  it.each(['PT0.001S', 'PT1S', 'P1D', 'P1M', 'P1Y'])('is %s', (text) => {
    expect(isPositiveDuration(parseDuration(text) as Duration)).toBe(true);
  });

  it.each(['PT0S', 'P0D', 'P0Y0M', 'PT0.0001S'])('is not %s', (text) => {
    expect(isPositiveDuration(parseDuration(text) as Duration)).toBe(false);
  });
});
