/**
 * The sandbox's refusal table (`REFUSED<n>` card holder names, simulator contract 1.6), written out here on
 * purpose: tests keep their own copy of the values they pin and never read their expectations from src.
 */
export const REFUSALS: readonly (readonly [code: string, description: string])[] = [
  ['4', 'HOLD CARD'],
  ['5', 'REFUSED'],
  ['8', 'APPROVE AFTER IDENTIFICATION'],
  ['13', 'INVALID AMOUNT'],
  ['15', 'INVALID CARD ISSUER'],
  ['33', 'CARD EXPIRED'],
  ['34', 'FRAUD SUSPICION'],
  ['41', 'LOST CARD'],
  ['43', 'STOLEN CARD, PICK UP'],
  ['51', 'LIMIT EXCEEDED'],
  ['55', 'INVALID SECURITY CODE'],
  ['56', 'UNKNOWN CARD'],
  ['57', 'ILLEGAL TRANSACTION'],
  ['62', 'RESTRICTED CARD'],
  ['63', 'SECURITY RULES VIOLATED'],
  ['75', 'SECURITY CODE INVALID'],
  ['76', 'CARD BLOCKED'],
  ['85', 'REJECTED BY CARD ISSUER'],
];
