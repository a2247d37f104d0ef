/** `token-sim record` (contract 4.5, decision 0059): a proxy that writes each exchange, redacted, to a HAR file. */
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { createServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { rootCertificates } from 'node:tls';
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { packageVersion } from '../config/version.js';
import { harExchange, type HarExchange } from './har.js';
import { Redactor } from './redact.js';
import type { RecordOptions, Recording } from './types.js';

/** Headers that belong to one connection, not to the request or answer: the proxy sets its own. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', 'host']);
/** Not forwarded either: links are rewritten and the HAR keeps text, so the answer is asked uncompressed (decision 0059). */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'accept-encoding']);

/** Node's raw headers (name, value, name, value…) as pairs. */
const pairsOf = (raw: readonly string[]): [string, string][] => raw.flatMap((name, i): [string, string][] => (i % 2 === 0 && i + 1 < raw.length ? [[name, raw[i + 1] as string]] : []));

/** The request body encodings the simulator decodes (http/body.ts), each as the recording decodes and the replay encodes it. */
const CODINGS: ReadonlyMap<string, { decode: (b: Buffer, o: { maxOutputLength: number }) => Buffer; encode: (b: Buffer) => Buffer }> = new Map([
  ['gzip', { decode: gunzipSync, encode: gzipSync }],
  ['deflate', { decode: inflateSync, encode: deflateSync }],
  ['br', { decode: brotliDecompressSync, encode: brotliCompressSync }],
]);

/** A body as the HAR keeps it: decoded when it was sent compressed (so it can be redacted and replayed), else as sent. */
function decodedBody(body: Buffer, contentEncoding: string | undefined): Buffer {
  const coding = CODINGS.get((contentEncoding ?? '').trim().toLowerCase());
  if (!coding) return body;
  try {
    return coding.decode(body, { maxOutputLength: 64 * 1024 * 1024 });
  } catch {
    return body;
  }
}

/** The body a replay sends: encoded again as the recorded Content-Encoding says. */
export function encodedBody(text: string, contentEncoding: string | undefined): Buffer {
  const coding = CODINGS.get((contentEncoding ?? '').trim().toLowerCase());
  return coding ? coding.encode(Buffer.from(text)) : Buffer.from(text);
}

const TAIL = ']}}\n';

/** A HAR file valid after every exchange: each entry overwrites the tail `]}}` in one positional write, queued in order (decision 0059). */
async function createHarFile(path: string, creator: { name: string; version: string }, comment: string) {
  const file = await open(path, 'w');
  const head = `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"comment":${JSON.stringify(comment)},"entries":[`;
  await file.write(head + TAIL, 0);
  let end = Buffer.byteLength(head);
  let count = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: Error | undefined;
  return {
    /** Queues an entry; the returned promise settles once it is in the file. */
    append(entry: HarExchange): Promise<void> {
      const text = Buffer.from(`${count === 0 ? '' : ','}${JSON.stringify(entry)}${TAIL}`);
      count++;
      const at = end;
      end += text.length - Buffer.byteLength(TAIL);
      queue = queue.then(async () => {
        if (failure !== undefined) return;
        try {
          await file.write(text, 0, text.length, at);
        } catch (err) {
          failure = err instanceof Error ? err : new Error('the HAR file could not be written');
        }
      });
      return queue;
    },
    count: () => count,
    async close() {
      await queue;
      await file.close();
      if (failure instanceof Error) throw failure;
    },
  };
}

type HarFile = Awaited<ReturnType<typeof createHarFile>>;
type Upstream = ReturnType<typeof connectUpstream>;

function connectUpstream(options: RecordOptions) {
  const url = URL.canParse(options.upstream) ? new URL(options.upstream) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw new Error(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(options.upstream)}`);
  const prefix = url.pathname.replace(/\/+$/, '');
  const https = url.protocol === 'https:';
  const ca = options.upstreamCa === undefined ? undefined : [...rootCertificates, typeof options.upstreamCa === 'string' ? options.upstreamCa : Buffer.from(options.upstreamCa).toString('utf8')];
  const agent = https ? new HttpsAgent({ keepAlive: true, ...(ca && { ca }) }) : new HttpAgent({ keepAlive: true });
  const send = https ? httpsRequest : httpRequest;
  return {
    /** Origin and path, no trailing slash, as links and requests are joined to it. */
    base: `${url.origin}${prefix}`,
    send: (method: string, path: string, headers: string[], body: Buffer) =>
      new Promise<{ status: number; headers: [string, string][]; body: Buffer }>((resolve, reject) => {
        const req = send({ protocol: url.protocol, hostname: url.hostname, port: url.port, method, path: prefix + path, headers: [...headers, 'Host', url.host, ...(body.length > 0 || method === 'POST' || method === 'PUT' ? ['Content-Length', String(body.length)] : [])], agent }, (res) => {
          buffer(res).then((b) => resolve({ status: res.statusCode ?? 502, headers: pairsOf(res.rawHeaders), body: b }), reject);
        });
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, upstream: Upstream, own: () => string, har: HarFile, redact: Redactor): Promise<void> {
  const started = Date.now();
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  const requestBody = await buffer(req);
  const requestHeaders = pairsOf(req.rawHeaders);
  const forwarded = requestHeaders.filter(([name]) => !NOT_FORWARDED.has(name.toLowerCase())).flat();
  const answer = await upstream.send(method, target, forwarded, requestBody);
  // The upstream's links, as the proxy's.
  const text = answer.body.toString('utf8').replaceAll(upstream.base, own());
  const body = Buffer.from(text);
  const headers = answer.headers
    .filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()))
    .map(([name, value]): [string, string] => [name, /^(content-)?location$/i.test(name) ? value.replaceAll(upstream.base, own()) : value]);
  headers.push(['Content-Length', String(body.length)]);
  res.writeHead(answer.status, headers.flat());
  res.end(body);
  const search = target.includes('?') ? target.slice(target.indexOf('?') + 1) : '';
  void har.append(
    harExchange({
      startedMs: started,
      durationMs: Date.now() - started,
      method,
      url: own() + redact.target(target),
      requestHeaders: requestHeaders.map(([n, v]) => [n, redact.header(n, v)]),
      queryPairs: redact.query(search),
      requestBody: requestBody.length === 0 ? undefined : { text: redact.body(decodedBody(requestBody, req.headers['content-encoding']).toString('utf8')) },
      requestBodySize: requestBody.length,
      status: answer.status,
      responseHeaders: headers.map(([n, v]) => [n, redact.header(n, v)]),
      answered: true,
      responseBody: { text: redact.body(text) },
      responseSize: body.length,
    }),
  );
}

/** Starts a recording proxy in front of `options.upstream`; resolves once it listens. */
export async function record(options: RecordOptions, onError: (line: string) => void = () => undefined): Promise<Recording> {
  const upstream = connectUpstream(options);
  const har = await createHarFile(options.out, { name: 'token-sim', version: packageVersion() }, `recorded by token-sim record from ${upstream.base}`);
  const redact = new Redactor();
  let url = '';
  const server = createServer((req, res) => {
    handle(req, res, upstream, () => url, har, redact).catch((err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      onError(`token-sim record: ${req.method ?? ''} ${req.url ?? ''}: the upstream did not answer (${why}); not recorded`);
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`token-sim record: the upstream did not answer (${why})\n`);
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    exchanges: har.count,
    async close() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      upstream.close();
      await har.close();
    },
  };
}
