import { describe, expect, it } from '@jest/globals';
import { formatInstant, parseInstant } from '../../src/wire/instant.js';

describe('reading an instant', () => {
  it.each([
    ['2030-01-01', Date.UTC(2030, 0, 1)],
    [' 2030-01-01 ', Date.UTC(2030, 0, 1)],
    ['2030-01-01T10:20Z', Date.UTC(2030, 0, 1, 10, 20)],
    ['2030-01-01T10:20:30Z', Date.UTC(2030, 0, 1, 10, 20, 30)],
    ['2030-01-01T10:20:30.123Z', Date.UTC(2030, 0, 1, 10, 20, 30, 123)],
    ['2030-01-01T10:20:30.1Z', Date.UTC(2030, 0, 1, 10, 20, 30, 100)],
    ['2030-01-01T10:20:30+02:00', Date.UTC(2030, 0, 1, 8, 20, 30)],
    ['2030-01-01T10:20:30-01:30', Date.UTC(2030, 0, 1, 11, 50, 30)],
    ['2030-01-01T10:20+02:00', Date.UTC(2030, 0, 1, 8, 20)],
    ['2030-01-01t10:20:30z', Date.UTC(2030, 0, 1, 10, 20, 30)],
  ])('reads %p as %p', (text, ms) => expect(parseInstant(text)).toBe(ms));

  it.each([
    '',
    'now',
    '2030-01-01T10:20:30',
    '2030-01-01T10:20',
    '2030-01-01 10:00',
    '2030-1-01',
    '2030-01-1',
    '2030-01-011',
    '12030-01-01',
    '30-01-01',
    'x2030-01-01',
    '2030-13-01',
    '2030-01-01T10Z',
    '2030-01-01T10:20:30.Z',
    '2030-01-01T10:20:30+0200',
    '2030-01-01T10:20:30+2:00',
  ])('refuses %p: not a date, nor a date-time with a zone', (text) => expect(parseInstant(text)).toBeUndefined());
});

describe('writing an instant', () => {
  it('writes UTC without .000 when the instant has no milliseconds', () => {
    expect(formatInstant(Date.UTC(2030, 0, 8))).toBe('2030-01-08T00:00:00Z');
    expect(formatInstant(Date.UTC(2030, 0, 8, 13, 14, 15))).toBe('2030-01-08T13:14:15Z');
  });

  it('keeps the milliseconds when there are some', () => {
    expect(formatInstant(Date.UTC(2030, 0, 8, 0, 0, 0, 123))).toBe('2030-01-08T00:00:00.123Z');
    expect(formatInstant(Date.UTC(2030, 0, 8, 0, 0, 0, 100))).toBe('2030-01-08T00:00:00.100Z');
    expect(formatInstant(Date.UTC(2030, 0, 8, 0, 0, 1))).toBe('2030-01-08T00:00:01Z');
  });
});
