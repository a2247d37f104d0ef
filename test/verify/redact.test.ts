/** Redaction of a recording (issue 27): stand-ins that keep length, BIN and Luhn result; credentials reduced. */
import { describe, expect, it } from '@jest/globals';
import { passesLuhn } from '../../src/domain/card.js';
import { Redactor, usernameOnly, usernameOf } from '../../src/verify/redact.js';

describe('a card number stand-in', () => {
  it.each([
    ['a valid 16-digit number', '4444333322221111', true],
    ['an invalid 16-digit number', '4444333322221112', false],
    ['a valid 19-digit number', '6011000990139424009', true],
    ['an invalid 10-digit number (keeps its first six, changes four)', '4111111111', false],
  ])('of %s keeps its length, its first six digits and its Luhn result, and is not the number', (_what, number, valid) => {
    expect(passesLuhn(number)).toBe(valid);
    const r = new Redactor();
    for (let i = 0; i < 20; i++) {
      const standIn = new Redactor().pan(number);
      expect(standIn).toHaveLength(number.length);
      expect(standIn.slice(0, 6)).toBe(number.slice(0, 6));
      expect(passesLuhn(standIn)).toBe(valid);
      expect(standIn).not.toBe(number);
    }
    expect(r.pan(number)).toBe(r.pan(number));
  });

  it('is the same throughout a recording and differs between numbers', () => {
    const r = new Redactor();
    const a = r.pan('4444333322221111');
    expect(r.pan('4444 3333 2222 1111')).toBe(`${a.slice(0, 4)} ${a.slice(4, 8)} ${a.slice(8, 12)} ${a.slice(12)}`);
    expect(r.pan('4444333322221129')).not.toBe(a);
  });

  it('leaves a number the upstream masked', () => {
    expect(new Redactor().pan('4444********1111')).toBe('4444********1111');
  });
});

/** Every string of `length` digits. */
const allDigits = (length: number): string[] => Array.from({ length: 10 ** length }, (_, i) => String(i).padStart(length, '0'));

describe('stand-ins in one recording', () => {
  it.each([
    ['code', (r: Redactor, v: string) => r.cvc(v), allDigits(2)],
    ['card number', (r: Redactor, v: string) => r.pan(v), allDigits(3).filter((n) => passesLuhn(n))],
  ])('are never a %s seen before, nor a stand-in handed out before', (_kind, redact, values) => {
    // 30 values in a space of 100: a stand-in drawn at random would meet one seen before in nearly every round.
    for (let round = 0; round < 20; round++) {
      const r = new Redactor();
      const seen = new Set<string>();
      for (const value of values.slice(0, 30)) {
        seen.add(value);
        const standIn = redact(r, value);
        expect(seen.has(standIn)).toBe(false);
        seen.add(standIn);
      }
    }
  });

  it('are still found, each unlike its value, when a short space runs out (every 2-digit number and code)', () => {
    // Ten 2-digit numbers pass Luhn: the last of them may find every other valid one taken.
    for (let round = 0; round < 20; round++) {
      const r = new Redactor();
      for (const value of allDigits(2)) {
        expect(r.pan(value)).not.toBe(value);
        expect(r.cvc(value)).not.toBe(value);
      }
    }
  });
});

describe('a body', () => {
  it('has card numbers and codes replaced wherever the journal would mask them, and stays replayable JSON', () => {
    const r = new Redactor();
    const body = r.body('{"paymentInstrument":{"cardNumber":"4444333322221111","cvc":"123"},"note":"card 4444333322221111","cvv":4321}');
    const parsed = JSON.parse(body) as { paymentInstrument: { cardNumber: string; cvc: string }; note: string; cvv: number };
    expect(body).not.toContain('4444333322221111');
    expect(parsed.paymentInstrument.cvc).toMatch(/^[0-9]{3}$/);
    expect(parsed.paymentInstrument.cvc).not.toBe('123');
    expect(parsed.note).toBe(`card ${parsed.paymentInstrument.cardNumber}`);
    expect(typeof parsed.cvv).toBe('number');
    expect(parsed.cvv).not.toBe(4321);
  });

  it('keeps text that is not JSON readable, with card data replaced', () => {
    const text = new Redactor().body('cardNumber=4444333322221111&cvc=123');
    expect(text).toMatch(/^cardNumber=444433[0-9]{10}&cvc=[0-9]{3}$/);
    expect(text).not.toContain('4444333322221111');
    expect(text).not.toContain('cvc=123');
  });

  it('has card numbers replaced in paths and query values', () => {
    const r = new Redactor();
    const target = r.target('/tokens/4444333322221111?cardNumber=4444333322221111&cvc=123&x=1');
    const standIn = r.pan('4444333322221111');
    expect(target).toBe(`/tokens/${standIn}?cardNumber=${standIn}&cvc=${r.cvc('123')}&x=1`);
  });
});

describe('a credential', () => {
  const basic = (s: string): string => `Basic ${Buffer.from(s).toString('base64')}`;

  it.each([
    [basic('merchant:secret'), basic('merchant:')],
    [basic('merchant:'), basic('merchant:')],
    [basic('a:b:c'), basic('a:')],
    ['Bearer abc.def', 'Bearer'],
    ['Basic', 'Basic'],
    ['Basic !!!', 'Basic'],
    [basic('no-colon'), 'Basic'],
  ])('%s keeps only its username: %s', (value, reduced) => {
    expect(usernameOnly(value)).toBe(reduced);
  });

  it('reads the username back', () => {
    expect(usernameOf(basic('merchant:'))).toBe('merchant');
    expect(usernameOf('Bearer x')).toBeUndefined();
  });

  it('is reduced in headers, which keep everything else', () => {
    const r = new Redactor();
    expect(r.header('Authorization', basic('merchant:secret'))).toBe(basic('merchant:'));
    expect(r.header('Proxy-Authorization', basic('p:q'))).toBe(basic('p:'));
    expect(r.header('Accept', 'application/json')).toBe('application/json');
  });
});
