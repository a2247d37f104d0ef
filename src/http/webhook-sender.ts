/** The webhook transport (decisions 0030, 0056): one POST on the simulator's own keep-alive agents; only the status counts. */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { PemPair } from '../infra/certificates.js';
import type { WebhookSend } from '../infra/webhooks.js';

/** `ca` (--webhook-ca) is trusted beside the system's roots; `client` is presented to an https receiver that asks. */
export function createWebhookSender(userAgent = 'token-sim', ca?: string, client?: PemPair) {
  // A `ca` replaces Node's trusted roots: the system's are given back beside it.
  const httpsAgent = (presented: PemPair | undefined): https.Agent =>
    new https.Agent({ keepAlive: true, ...(ca !== undefined && { ca: [...tls.rootCertificates, ca] }), ...(presented && { cert: presented.cert, key: presented.key }) });
  const plain = new http.Agent({ keepAlive: true });
  let secure = httpsAgent(client);
  const send: WebhookSend = ({ url, body, mediaType, timeoutMs, signal }) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const tlsTarget = target.protocol === 'https:';
      const payload = Buffer.from(body, 'utf8');
      // The first call settles the promise; the later ones change nothing.
      const finish = (err: Error | undefined, status?: number): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve({ status: status ?? 0 });
      };
      const req = (tlsTarget ? https : http).request(target, {
        method: 'POST',
        agent: tlsTarget ? secure : plain,
        headers: { 'Content-Type': mediaType, 'Content-Length': payload.length, 'User-Agent': userAgent, Accept: '*/*' },
      });
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref();
      const onAbort = (): void => void req.destroy(new Error('delivery stopped (reset or shutdown)'));
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => finish(err));
      req.on('response', (res) => {
        res.on('error', () => undefined);
        res.resume();
        res.on('end', () => finish(undefined, res.statusCode));
        res.on('close', () => finish(undefined, res.statusCode));
      });
      req.end(payload);
    });
  return {
    send,
    close: (): void => {
      plain.destroy();
      secure.destroy();
    },
    /** From now on, presents this client certificate to https receivers (a new agent: the old one's sockets are destroyed). */
    present: (presented: PemPair): void => {
      const before = secure;
      secure = httpsAgent(presented);
      before.destroy();
    },
  };
}
