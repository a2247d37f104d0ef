/** The sandbox's magic values, declared once (contract 1.6 and 4.4, decision 0057): the sale's rules and their catalogue. */
import type { Refusal } from './payment.js';

export interface RiskFactor {
  risk: 'not_checked' | 'not_matched' | 'not_supplied';
  detail: 'address' | 'postcode';
}

/** The refusal descriptions of the sandbox's `REFUSED<n>` card holder names, by code. */
export const REFUSAL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '4': 'HOLD CARD',
  '5': 'REFUSED',
  '8': 'APPROVE AFTER IDENTIFICATION',
  '13': 'INVALID AMOUNT',
  '15': 'INVALID CARD ISSUER',
  '33': 'CARD EXPIRED',
  '34': 'FRAUD SUSPICION',
  '41': 'LOST CARD',
  '43': 'STOLEN CARD, PICK UP',
  '51': 'LIMIT EXCEEDED',
  '55': 'INVALID SECURITY CODE',
  '56': 'UNKNOWN CARD',
  '57': 'ILLEGAL TRANSACTION',
  '62': 'RESTRICTED CARD',
  '63': 'SECURITY RULES VIOLATED',
  '75': 'SECURITY CODE INVALID',
  '76': 'CARD BLOCKED',
  '85': 'REJECTED BY CARD ISSUER',
};

/** The magic card holder names (compared trimmed and upper-cased). */
export const MAGIC_NAMES = {
  /** A 500 `internalErrorOccurred`; no payment. */
  error: 'ERROR',
  /** Refused; `REFUSED<n>` (n of 1 to 3 digits) with code n. */
  refused: 'REFUSED',
} as const;

/** The code of a plain `REFUSED`, and of a scripted refusal that names none. */
export const DEFAULT_REFUSAL_CODE = '5';
/** The description of a refusal code that has none in the table. */
export const UNLISTED_REFUSAL = 'REFUSED';
/** The code a plain card whose expiry month has passed is refused with. */
export const EXPIRED_CARD_CODE = '33';

const both = (risk: RiskFactor['risk']): readonly RiskFactor[] => [
  { risk, detail: 'address' },
  { risk, detail: 'postcode' },
];

/** The risk factors of the magic billing postal codes (compared trimmed and upper-cased); any other: none. */
export const POSTCODE_RISKS: Readonly<Record<string, readonly RiskFactor[]>> = {
  AAAA: [],
  CCCC: [{ risk: 'not_matched', detail: 'address' }],
  FFFF: [{ risk: 'not_matched', detail: 'postcode' }],
  JJJJ: both('not_matched'),
  EEEE: both('not_checked'),
  HHHH: both('not_supplied'),
};

/** A sale without a billing address is treated as this postal code. */
export const NO_BILLING_ADDRESS = 'HHHH';

/** A refusal with this code: the given description, else the table's, else `REFUSED`. */
export function refusalWith(code: string, description?: string): Refusal {
  return { code, description: description ?? REFUSAL_DESCRIPTIONS[code] ?? UNLISTED_REFUSAL };
}

export type NameOutcome = { kind: 'approve' } | { kind: 'refuse'; refusal: Refusal } | { kind: 'error' };

const REFUSED_NAME = new RegExp(`^${MAGIC_NAMES.refused}(\\d{1,3})?$`);

/**
 * What the card holder name asks of the sandbox: `REFUSED` (code 5), `REFUSED<n>` (code n), `ERROR`
 * (a 500), anything else approves. Case and surrounding spaces do not matter.
 */
export function outcomeForName(cardHolderName: string): NameOutcome {
  const name = cardHolderName.trim().toUpperCase();
  if (name === MAGIC_NAMES.error) return { kind: 'error' };
  const refused = REFUSED_NAME.exec(name);
  if (!refused) return { kind: 'approve' };
  return { kind: 'refuse', refusal: refusalWith(refused[1] === undefined ? DEFAULT_REFUSAL_CODE : String(Number(refused[1]))) };
}

/** The sandbox's risk factors by billing postal code; no billing address counts as `HHHH`. */
export function riskFactorsFor(postalCode: string | undefined): RiskFactor[] {
  const code = postalCode?.trim().toUpperCase() ?? NO_BILLING_ADDRESS;
  // Upper-cased, a postal code never names a member of Object.prototype.
  return POSTCODE_RISKS[code]?.map((factor) => ({ ...factor })) ?? [];
}

/** A scripted outcome (a scenario rule's `then.outcome`): it replaces what the card holder name decides. */
export interface ScriptedOutcome {
  outcome: 'sentForSettlement' | 'refused';
  refusalCode?: string | undefined;
  refusalDescription?: string | undefined;
}

/** The refusal a scripted outcome ends a sale with (code 5 when it names none); undefined when it approves. */
export function scriptedRefusal(scripted: ScriptedOutcome): Refusal | undefined {
  return scripted.outcome === 'sentForSettlement' ? undefined : refusalWith(scripted.refusalCode ?? DEFAULT_REFUSAL_CODE, scripted.refusalDescription);
}

/** The catalogue, each entry's effect computed by the rules the sale runs (outcomeForName, riskFactorsFor). */
export function magicCatalogue() {
  // Integer keys iterate in ascending order: the codes come in code order.
  const names = [MAGIC_NAMES.error, MAGIC_NAMES.refused, ...Object.keys(REFUSAL_DESCRIPTIONS).map((code) => `${MAGIC_NAMES.refused}${code}`)];
  return {
    /** `ERROR`, `REFUSED`, then `REFUSED<n>` for each code of the table, in code order. */
    cardHolderNames: names.map((value) => ({ value, outcome: outcomeForName(value) })),
    /** What a plain card whose expiry month has passed gets. */
    expiredCard: refusalWith(EXPIRED_CARD_CODE),
    /** Each magic postal code with its risk factors, then `undefined`: no billing address. */
    postalCodes: [...Object.keys(POSTCODE_RISKS), undefined].map((value) => ({ value, riskFactors: riskFactorsFor(value) })),
  };
}
