#!/usr/bin/env bash
# The walkthrough of docs/after-the-sale.md, end to end: token-sim from this clone's bin/ (run `npm run build`
# first) and a 15-line webhook receiver, each on a free port, then every step of the page with curl and jq.
# Each step prints a line `== <n>. <title>` and then its output; test/examples/after-the-sale.process.test.ts
# compares them with the page. Both processes are stopped on exit.
#   SIM_PORT=8080 HOOK_PORT=9000 scripts/walkthrough-after-sale.sh   # fixed ports (default: free ones)
set -euo pipefail
cd "$(dirname "$0")/.."
# $WORK, the clean-up on exit, step, await_line and the receiver ($HOOKS): shared by the walkthroughs.
source scripts/walkthrough-receiver.sh

start_simulator
step '0. A receiver and the simulator'
echo "$HOOK_LINE"
echo "$SIM_LINE"

MT=application/vnd.service.tokens-v1.hal+json
SALE=application/vnd.service.payments-v5+json

step '1. Create a token'
curl -s -u merchant:secret -H "Content-Type: $MT" -H "Accept: $MT" "$BASE/tokens" -d '{
  "paymentInstrument": {
    "type": "card/front",
    "cardHolderName": "Sherlock Holmes",
    "cardNumber": "4444333322221111",
    "cardExpiryDate": { "month": 5, "year": 2035 }
  },
  "merchant": { "entity": "default" }
}' -o "$WORK/token.json" -w 'HTTP %{http_code}\n'
TOKEN=$(jq -r .tokenPaymentInstrument.href "$WORK/token.json")
echo "$TOKEN"

step '2. Sell 1000 GBP with it'
curl -s -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$BASE/payments/sales/migrateCardOnFile" -d '{
  "transactionReference": "order-1",
  "merchant": { "entity": "default" },
  "instruction": {
    "narrative": { "line1": "after the sale" },
    "value": { "currency": "GBP", "amount": 1000 },
    "paymentInstrument": { "type": "card/token", "href": "'"$TOKEN"'" }
  }
}' -o "$WORK/sale.json" -w 'HTTP %{http_code}\n'
jq '{outcome, _links}' "$WORK/sale.json"
PARTIAL=$(jq -r '._links["payments:partialRefund"].href' "$WORK/sale.json")
EVENTS=$(jq -r '._links["payments:events"].href' "$WORK/sale.json")

step '3. Refund 300, then 200'
curl -s -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$PARTIAL" \
  -d '{"value": {"amount": 300, "currency": "GBP"}, "reference": "first"}' -o "$WORK/first.json" -w 'HTTP %{http_code}\n'
jq . "$WORK/first.json"
curl -s -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$PARTIAL" \
  -d '{"value": {"amount": 200, "currency": "GBP"}, "reference": "second"}' -o "$WORK/second.json" -w 'HTTP %{http_code}\n'
jq '._links | keys' "$WORK/second.json"

step '4. Try to refund 600 of the 500 that remain'
curl -s -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$PARTIAL" \
  -d '{"value": {"amount": 600, "currency": "GBP"}, "reference": "third"}' -w '\nHTTP %{http_code}\n'

step '5. Read the events'
curl -s -u merchant:secret -H "Accept: $SALE" "$EVENTS" | jq '{lastEvent, links: (._links | keys)}'

step '6. Advance the clock one day'
curl -s -X POST "$BASE/_sim/clock/advance" -H 'Content-Type: application/json' -d '{"by": "P1D"}'
echo

step '7. Read the events again'
curl -s -u merchant:secret -H "Accept: $SALE" "$EVENTS" | jq '{lastEvent, links: (._links | keys)}'

step '8. Wait for the webhooks'
curl -s -X POST "$BASE/_sim/webhooks/flush"
echo
curl -s "$BASE/_sim/webhooks" | jq -c '.count, (.webhooks[] | {seq, type, url, attempts, lastStatus, state})'

step '9. What the receiver got'
jq -c '{eventTimestamp, type: .eventDetails.type, amount: .eventDetails.amount.value}
  + (.eventDetails | if has("reference") then {reference} else {} end)' "$WORK/hooks.jsonl"
head -n 2 "$WORK/hooks.jsonl" | tail -n 1 | jq .
