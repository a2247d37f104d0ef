import { describe, expect, it } from '@jest/globals';
import { EARLIEST_INSTANT, LATEST_INSTANT, capAtEnd, clampToRange, isInRange } from '../../src/domain/duration.js';

// The test's own copies of the range's ends: the instants ISO 8601 writes with a four-digit year.
const FIRST = Date.parse('0001-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');

describe('the range of instants', () => {
  it('runs from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z', () => {
    expect(FIRST).toBe(-62_135_596_800_000);
    expect(LAST).toBe(253_402_300_799_999);
    expect(EARLIEST_INSTANT).toBe(FIRST);
    expect(LATEST_INSTANT).toBe(LAST);
  });

  it.each([
    ['the first instant', FIRST, true],
    ['the last instant', LAST, true],
    ['the epoch', 0, true],
    ['1 ms before the first instant', FIRST - 1, false],
    ['1 ms after the last instant', LAST + 1, false],
    ['NaN', Number.NaN, false],
    ['+Infinity', Number.POSITIVE_INFINITY, false],
    ['-Infinity', Number.NEGATIVE_INFINITY, false],
  ])('says whether %s is inside it', (_name, epochMs, inside) => {
    expect(isInRange(epochMs)).toBe(inside);
  });
});

describe('capping an instant at the end of the range', () => {
  it.each([
    ['keeps an instant inside the range', Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1)],
    ['keeps the instant 1 ms before the end', LAST - 1, LAST - 1],
    ['keeps the last instant', LAST, LAST],
    ['brings an instant 1 ms past the end back to the end', LAST + 1, LAST],
    ['brings +Infinity back to the end', Number.POSITIVE_INFINITY, LAST],
    ['reads NaN (beyond what a date can hold) as the end', Number.NaN, LAST],
    ['leaves an instant before the start alone', FIRST - 1, FIRST - 1],
  ])('%s', (_name, epochMs, capped) => {
    expect(capAtEnd(epochMs)).toBe(capped);
  });
});

describe('clamping an instant to the range', () => {
  it.each([
    ['keeps an instant inside the range', Date.UTC(1999, 11, 31), Date.UTC(1999, 11, 31)],
    ['keeps the first instant', FIRST, FIRST],
    ['keeps the instant 1 ms after the start', FIRST + 1, FIRST + 1],
    ['brings an instant 1 ms before the start up to the start', FIRST - 1, FIRST],
    ['brings -Infinity up to the start', Number.NEGATIVE_INFINITY, FIRST],
    ['brings an instant 1 ms past the end back to the end', LAST + 1, LAST],
    ['reads NaN as the end', Number.NaN, LAST],
  ])('%s', (_name, epochMs, clamped) => {
    expect(clampToRange(epochMs)).toBe(clamped);
  });
});
