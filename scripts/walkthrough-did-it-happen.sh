#!/usr/bin/env bash
# The walkthrough of docs/did-it-happen.md, end to end: token-sim from this clone's bin/ (run `npm run build`
# first) and a webhook receiver, each on a free port, then every step of the page with curl and jq. Each step
# prints a line `== <n>. <title>` and then its output; test/examples/did-it-happen.process.test.ts compares them
# with the page. Both processes are stopped on exit.
#   SIM_PORT=8080 HOOK_PORT=9000 scripts/walkthrough-did-it-happen.sh   # fixed ports (default: free ones)
set -euo pipefail
cd "$(dirname "$0")/.."
# $WORK, the clean-up on exit, step, await_line and the receiver ($HOOKS): shared by the walkthroughs.
source scripts/walkthrough-receiver.sh

# The first sale's answer is lost after the work: the payment is made, the client hears nothing.
cat >"$WORK/lost.yaml" <<'YAML'
name: sale-times-out
rules:
  - id: first-sale-never-answered
    when: { operation: sale, nth: 1 }
    then: { lostAnswer: noResponse }
YAML
start_simulator --scenario "$WORK/lost.yaml" --scenario scenarios/unruly-webhooks.yaml
step '0. A receiver and the simulator'
echo "$HOOK_LINE"
echo "$SIM_LINE"

SALE=application/vnd.service.payments-v5+json
QUERY=application/vnd.service.payment-queries-v1.hal+json
ORDER='{
  "transactionReference": "order-77",
  "merchant": { "entity": "default" },
  "instruction": {
    "narrative": { "line1": "did it happen?" },
    "value": { "currency": "GBP", "amount": 1999 },
    "paymentInstrument": { "type": "card/plain", "cardHolderName": "Sherlock Holmes",
      "cardNumber": "4444333322221111", "cardExpiryDate": { "month": 5, "year": 2035 } }
  }
}'

step '1. The sale times out'
curl -s -m 2 -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$BASE/payments/sales/migrateCardOnFile" \
  -d "$ORDER" -o /dev/null -w 'HTTP %{http_code}\n' || echo "no answer (curl exit code $?)"

step '2. Retry it, with the same reference'
curl -s -u merchant:secret -H "Content-Type: $SALE" -H "Accept: $SALE" "$BASE/payments/sales/migrateCardOnFile" \
  -d "$ORDER" -w '\nHTTP %{http_code}\n'

step '3. Ask by reference what happened'
curl -s -u merchant:secret -H "Accept: $QUERY" "$BASE/paymentQueries/payments?transactionReference=order-77" -o "$WORK/query.json" -w 'HTTP %{http_code}\n'
jq '._embedded.payments[] | {transactionReference, outcome, lastEvent, value, links: (._links | keys)}' "$WORK/query.json"
EVENTS=$(jq -r '._embedded.payments[0]._links["payments:events"].href' "$WORK/query.json")

step '4. What the journal says happened, and what the client got'
curl -s "$BASE/_sim/requests?tenant=merchant&operation=sale" |
  jq -c '.requests[] | {status, errorName, rule, lostAnswer: (.lostAnswer | if . then {"as": .as, status, outcome: .body.outcome} else null end)}'

step '5. A day on the clock: the settlement'
curl -s -X POST "$BASE/_sim/clock/advance" -H 'Content-Type: application/json' -d '{"by": "P1D"}'
echo
curl -s -u merchant:secret -H "Accept: $SALE" "$EVENTS" | jq -c '{lastEvent}'

step '6. What the receiver got'
curl -s -X POST "$BASE/_sim/webhooks/flush"
echo
jq -c '{eventId, type: .eventDetails.type, eventTimestamp}' "$WORK/hooks.jsonl"

step '7. Read them as a careful receiver does'
jq -sc 'unique_by(.eventId) | sort_by(.eventTimestamp) | map(.eventDetails.type)' "$WORK/hooks.jsonl"
curl -s "$BASE/_sim/webhooks" | jq -c '.webhooks[] | {type, rule, state}'
