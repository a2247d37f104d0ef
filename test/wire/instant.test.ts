import { describe, expect, it } from '@jest/globals';
import { formatInstant, parseInstant, readInstant } from '../../src/wire/instant.js';

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

describe('dates and times that do not exist', () => {
  it.each([
    ['2030-02-31T00:00:00Z', 'February 2030 has 28 days'],
    ['2030-02-29', 'February 2030 has 28 days'],
    ['2100-02-29', 'February 2100 has 28 days'],
    ['0100-02-29', 'February 0100 has 28 days'],
    ['2032-02-30', 'February 2032 has 29 days'],
    ['2030-04-31', 'April 2030 has 30 days'],
    ['2030-06-31T10:00Z', 'June 2030 has 30 days'],
    ['2030-09-31', 'September 2030 has 30 days'],
    ['2030-11-31', 'November 2030 has 30 days'],
    ['2030-01-32', 'January 2030 has 31 days'],
    ['2030-03-32', 'March 2030 has 31 days'],
    ['2030-05-32', 'May 2030 has 31 days'],
    ['2030-07-32', 'July 2030 has 31 days'],
    ['2030-08-32', 'August 2030 has 31 days'],
    ['2030-10-32', 'October 2030 has 31 days'],
    ['2030-12-32', 'December 2030 has 31 days'],
    ['2030-01-00', 'there is no day 00'],
    ['2030-13-01', 'there is no month 13'],
    ['2030-00-10', 'there is no month 00'],
    ['2030-01-01T24:00:00Z', 'hours go up to 23, not 24'],
    ['2030-01-01T99:00Z', 'hours go up to 23, not 99'],
    ['2030-01-01T10:60:00Z', 'minutes go up to 59, not 60'],
    ['2030-01-01T10:20:60Z', 'seconds go up to 59, not 60'],
    ['2030-01-01T10:20:30+24:00', 'zone offsets go up to ±23:59, not 24:00'],
    ['2030-01-01T10:20:30-00:60', 'zone offsets go up to ±23:59, not 00:60'],
  ])('refuses %p: %s', (text, reason) => {
    expect(parseInstant(text)).toBeUndefined();
    expect(readInstant(text, 'dateOrDateTime')).toStrictEqual({ ok: false, reason });
  });

  it.each([
    ['2032-02-29', Date.UTC(2032, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['2030-01-31', Date.UTC(2030, 0, 31)],
    ['2030-03-31', Date.UTC(2030, 2, 31)],
    ['2030-04-30', Date.UTC(2030, 3, 30)],
    ['2030-12-31T23:59:59.999Z', Date.UTC(2030, 11, 31, 23, 59, 59, 999)],
    ['2030-01-01T00:00:00+23:59', Date.UTC(2029, 11, 31, 0, 1)],
    ['2030-01-01T00:00:00-23:59', Date.UTC(2030, 0, 1, 23, 59)],
    ['0004-02-29', -62_035_891_200_000], // years 0–99 are read as they are, not as 1900–1999
  ])('reads the last day, hour, minute and offset that exist: %p', (text, ms) => expect(parseInstant(text)).toBe(ms));

  it('says nothing about a reason when the text is not of the form at all', () => {
    expect(readInstant('tomorrow', 'dateOrDateTime')).toStrictEqual({ ok: false });
    expect(readInstant('2030-01-01', 'dateTime')).toStrictEqual({ ok: false });
  });
});

describe('reading a date-time as the token API does (RFC 3339)', () => {
  it.each([
    ['2030-01-01T10:20:30Z', Date.UTC(2030, 0, 1, 10, 20, 30)],
    ['2030-01-01T10:20:30.5Z', Date.UTC(2030, 0, 1, 10, 20, 30, 500)],
    ['2030-01-01T10:20:30.123456Z', Date.UTC(2030, 0, 1, 10, 20, 30, 123)],
    ['2030-01-01T10:20:30+02:00', Date.UTC(2030, 0, 1, 8, 20, 30)],
    ['2030-01-01T10:20:30-05:00', Date.UTC(2030, 0, 1, 15, 20, 30)],
    ['2032-02-29T00:00:00Z', Date.UTC(2032, 1, 29)],
  ])('reads %p', (text, ms) => {
    expect(parseInstant(text, 'dateTime')).toBe(ms);
    expect(readInstant(text, 'dateTime')).toStrictEqual({ ok: true, epochMs: ms });
  });

  it.each([
    '2030-01-01',
    '2030-01-01T10:20Z',
    '2030-01-01T10:20:30',
    '2030-01-01t10:20:30Z',
    '2030-01-01T10:20:30z',
    ' 2030-01-01T10:20:30Z',
    '2030-01-01T10:20:30Z ',
    '2030-01-01T10:20:30+0200',
    '2030-02-31T00:00:00Z',
    '2030-02-29T00:00:00Z',
    '2030-01-01T24:00:00Z',
    '2030-01-01T10:20:60Z',
    '2030-01-01T10:20:30+24:00',
  ])('refuses %p', (text) => expect(parseInstant(text, 'dateTime')).toBeUndefined());

  it('gives the reason for a date-time of the form that does not exist', () => {
    expect(readInstant('2030-02-31T00:00:00Z', 'dateTime')).toStrictEqual({ ok: false, reason: 'February 2030 has 28 days' });
  });
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
