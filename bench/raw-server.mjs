// The floor: a raw node:http server, no framework, answering every request with the same fixed body and
// media type as bare-server.mjs (the bytes come from env BARE_BODY), behind a Basic auth check against one
// user by plain string comparison. It reads each request's body to its end before answering, as any server
// that looks at a body must. Prints the same "listening on" line as token-sim.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BARE_BODY ?? '{}', 'utf8');
const TYPE = 'application/vnd.service.tokens-v1.hal+json';
const EXPECTED = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const ok = { 'Content-Type': TYPE, 'Content-Length': String(body.length) };

const server = createServer((req, res) => {
  if (req.headers.authorization !== EXPECTED) {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="token-sim"', 'Content-Length': '0' });
    res.end();
    req.resume();
    return;
  }
  // Bare Express answers 200 to the GET and 201 to the POSTs: the same status lines, so the same bytes.
  const status = req.method === 'POST' ? 201 : 200;
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, ok);
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`raw listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
