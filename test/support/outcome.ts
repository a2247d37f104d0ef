/** What became of one create sent to a simulator that is stopping: answered with a status, or cut. */
const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';

export function createOutcome(url: string): Promise<string> {
  return fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE },
    body: JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 1, year: 2031 } },
      merchant: { entity: 'default' },
    }),
  }).then(
    (res) => `answered ${res.status}`,
    () => 'cut',
  );
}
