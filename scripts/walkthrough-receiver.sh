# What both walkthrough scripts (walkthrough-after-sale.sh, walkthrough-did-it-happen.sh) start with, sourced
# by them: a temporary folder $WORK, the clean-up on exit (both processes stopped, $WORK removed), `step` and
# `await_line`, the webhook receiver on HOOK_PORT (default: a free port), its address in $HOOKS, and
# `start_simulator`, which the script calls with its own options.
set -euo pipefail
WORK=$(mktemp -d)
SIM_PID='' HOOK_PID=''
cleanup() {
  local rc=$?
  for pid in $SIM_PID $HOOK_PID; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
step() { printf '== %s\n' "$1"; }
# Waits until the process's output has a line matching $2, then prints it.
await_line() { for _ in $(seq 100); do grep -m1 "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "timed out: $1" >&2; return 1; }

# The receiver: answers 204 to every POST and appends its body, one line each, to hooks.jsonl.
node -e '
const http = require("node:http"), fs = require("node:fs");
const out = process.argv[1];
http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    fs.appendFileSync(out, JSON.stringify(JSON.parse(body)) + "\n");
    res.writeHead(204).end();
  });
}).listen(Number(process.env.HOOK_PORT ?? 0), "127.0.0.1", function () {
  console.log("receiver listening on http://127.0.0.1:" + this.address().port + "/hooks");
});
' "$WORK/hooks.jsonl" >"$WORK/hook.out" &
HOOK_PID=$!
HOOK_LINE=$(await_line "$WORK/hook.out" 'listening on')
HOOKS=${HOOK_LINE##* on }

# token-sim on SIM_PORT (default: a free port), seed walkthrough, frozen at 2030-01-01T09:00Z, its webhooks to
# $HOOKS, with the script's own options ("$@"): $SIM_PID, its listening line in $SIM_LINE and its address in $BASE.
start_simulator() {
  node bin/token-sim.js --port "${SIM_PORT:-0}" --log silent --seed walkthrough \
    --now 2030-01-01T09:00:00Z --frozen --webhook-url "$HOOKS" "$@" >"$WORK/sim.out" &
  SIM_PID=$!
  SIM_LINE=$(await_line "$WORK/sim.out" 'listening on')
  BASE=${SIM_LINE##* on }
}
