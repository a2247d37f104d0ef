/** Test card numbers: the i-th Luhn-valid 16-digit number after `4` and 14 digits of `i`. */
export function luhnCard(i: number): string {
  const body = `4${String(i).padStart(14, '0')}`;
  let sum = 0;
  for (let k = 0; k < body.length; k++) {
    let d = Number(body[body.length - 1 - k]);
    if (k % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}
