/** The Luhn-valid card number that completes a prefix with one check digit. */
export function luhnComplete(prefix) {
  for (let d = 0; d <= 9; d++) {
    const n = `${prefix}${d}`;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let v = n.charCodeAt(n.length - 1 - i) - 48;
      if (i % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
      sum += v;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error('unreachable');
}
