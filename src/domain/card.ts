/** Card rules: Luhn check, masking, and the BIN table lookup that names network, country and funding. */

export interface BinEntry {
  /** Leading digits ("411111"), or an inclusive range of leading digits of one length ("2221-2720"). */
  prefix: string;
  network: string;
  countryCode: string;
  fundingType: string;
}

export type CardProfile = Omit<BinEntry, 'prefix'>;

/** What a card with no matching BIN entry is reported as. */
export const UNKNOWN_CARD: CardProfile = { network: 'UNKNOWN', countryCode: 'US', fundingType: 'unknown' };

export function passesLuhn(cardNumber: string): boolean {
  if (!/^[0-9]+$/.test(cardNumber)) return false;
  let sum = 0;
  let double = false;
  for (let i = cardNumber.length - 1; i >= 0; i--) {
    let digit = cardNumber.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** `4444333322221111` → `4444********1111`: the first four and last four digits stay. */
export function maskCardNumber(cardNumber: string): string {
  if (cardNumber.length <= 8) return '*'.repeat(cardNumber.length);
  return cardNumber.slice(0, 4) + '*'.repeat(cardNumber.length - 8) + cardNumber.slice(-4);
}

export function lastFourDigits(cardNumber: string): string {
  return cardNumber.slice(-4);
}

export type BinTable = ReturnType<typeof createBinTable>;

/** Builds a lookup where the most specific (longest) matching prefix wins; later entries win ties. */
export function createBinTable(entries: readonly BinEntry[]) {
  const compiled = entries.map((e) => {
    const [from = '', to = from] = e.prefix.split('-');
    const profile: CardProfile = { network: e.network, countryCode: e.countryCode, fundingType: e.fundingType };
    return { from, to, length: from.length, profile };
  });
  // Longest first; stable sort keeps file order among equals, and we want later entries to win ties.
  compiled.reverse().sort((a, b) => b.length - a.length);
  const cache = new Map<string, CardProfile>();
  return {
    lookup(cardNumber: string): CardProfile {
      const key = cardNumber.slice(0, 8);
      const cached = cache.get(key);
      if (cached) return cached;
      let found = UNKNOWN_CARD;
      for (const entry of compiled) {
        const head = cardNumber.slice(0, entry.length);
        if (head.length === entry.length && head >= entry.from && head <= entry.to) {
          found = entry.profile;
          break;
        }
      }
      if (cache.size < 10_000) cache.set(key, found);
      return found;
    },
  };
}
