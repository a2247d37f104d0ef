// The framework's ceiling: a bare Express 5 app answering every benchmarked request with a fixed body of
// the same size as token-sim's, behind the same Basic auth check (express-basic-auth). Prints the same
// "listening on" line as token-sim.
import express from 'express';
import basicAuth from 'express-basic-auth';

const body = process.env.BARE_BODY ?? '{}';
const app = express();
app.disable('x-powered-by');
app.use(basicAuth({ users: { merchant: 'secret' }, challenge: true, realm: 'token-sim' }));
app.use(express.raw({ type: () => true, limit: 1024 * 1024 }));
const answer = (status) => (_req, res) => {
  res.status(status).setHeader('Content-Type', 'application/vnd.service.tokens-v1.hal+json');
  res.end(body);
};
app.get('/tokens/:ref', answer(200));
app.post('/tokens', answer(201));
app.post('/payments/sales/migrateCardOnFile', answer(201));
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
