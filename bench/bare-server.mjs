// The framework's ceiling: a bare Express 5 app answering every benchmarked request with a fixed body of
// the same size as token-sim's, behind a Basic auth check. Prints the same "listening on" line as token-sim.
//
// The check is express-basic-auth's, inlined (token-sim no longer depends on that package): the
// `basic-auth` header syntax, then a constant-time comparison of username and password against the one
// user, each through zero-filled buffers of the input's length. It keeps this baseline what it was when
// the targets were first set against it.
import { timingSafeEqual } from 'node:crypto';
import express from 'express';

const CREDENTIALS = /^ *(?:[Bb][Aa][Ss][Ii][Cc]) +([A-Za-z0-9._~+/-]+=*) *$/;
const USER_PASS = /^([^:]*):(.*)$/;
const users = { merchant: 'secret' };

function safeCompare(userInput, secret) {
  const length = Buffer.byteLength(userInput);
  const input = Buffer.alloc(length, 0, 'utf8');
  input.write(userInput);
  const expected = Buffer.alloc(length, 0, 'utf8');
  expected.write(secret);
  return !!(timingSafeEqual(input, expected) & (length === Buffer.byteLength(secret)));
}
function authorized(req) {
  const header = req.headers.authorization;
  const encoded = typeof header === 'string' ? CREDENTIALS.exec(header) : null;
  const pair = encoded ? USER_PASS.exec(Buffer.from(encoded[1], 'base64').toString()) : null;
  if (!pair) return false;
  req.auth = { user: pair[1], password: pair[2] };
  for (const name in users) if (safeCompare(pair[1], name) & safeCompare(pair[2], users[name])) return true;
  return false;
}
const basicAuth = (req, res, next) => {
  if (authorized(req)) return next();
  res.status(401).setHeader('WWW-Authenticate', 'Basic realm="token-sim"');
  res.end();
};

const body = process.env.BARE_BODY ?? '{}';
const app = express();
app.disable('x-powered-by');
app.use(basicAuth);
app.use(express.raw({ type: () => true, limit: 1024 * 1024 }));
const answer = (status) => (_req, res) => {
  res.status(status).setHeader('Content-Type', 'application/vnd.service.tokens-v1.hal+json');
  res.end(body);
};
app.get('/tokens/:ref', answer(200));
app.post('/tokens', answer(201));
app.post('/payments/sales/migrateCardOnFile', answer(201));
app.post('/payments/settlements/refunds/full/:ref', answer(202));
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
