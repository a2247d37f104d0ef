/** `token-sim verify` (contract 4.5, decision 0059): a recording replayed to a fresh simulator, hrefs mapped, answers compared. */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import { parseJson } from './library.js';
import { startSimulator } from './server.js';
import { compareAnswers, type Answer } from '../verify/compare.js';
import { encodedBody, HOP_BY_HOP } from '../verify/recorder.js';
import { usernameOf } from '../verify/redact.js';
import { DIFFERENCE_KINDS, type Difference, type VerifyOptions, type VerifyReport } from '../verify/types.js';

const Pair = z.object({ name: z.string(), value: z.string() });
const Entry = z.object({
  request: z.object({ method: z.string(), url: z.string(), headers: z.array(Pair), postData: z.object({ text: z.string().optional() }).optional() }),
  response: z.object({ status: z.number().int(), headers: z.array(Pair), content: z.object({ text: z.string().optional() }) }),
});
type Entry = z.infer<typeof Entry>;
const Har = z.object({ log: z.object({ entries: z.array(Entry) }) });

async function readHar(har: VerifyOptions['har']): Promise<Entry[]> {
  const document: unknown = typeof har === 'string' ? JSON.parse(await readFile(har, 'utf8')) : har;
  const parsed = Har.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`not a HAR 1.2 recording: ${issue ? `$.${issue.path.join('.')}: ${issue.message}` : 'unreadable'}`);
  }
  return parsed.data.log.entries;
}

/** Recorded hrefs and the simulator's, learnt from answers that hold them at the same place. */
class Links {
  readonly hrefs = new Map<string, string>();
  constructor(
    readonly recordedBase: string,
    readonly simulatorBase: string,
  ) {}

  learn(recorded: unknown, simulator: unknown): void {
    if (typeof recorded === 'string' && typeof simulator === 'string') {
      if (recorded.startsWith(this.recordedBase) && simulator.startsWith(this.simulatorBase) && !this.hrefs.has(recorded)) this.hrefs.set(recorded, simulator);
    } else if (Array.isArray(recorded) && Array.isArray(simulator)) {
      recorded.forEach((item, i) => this.learn(item, simulator[i]));
    } else if (typeof recorded === 'object' && recorded !== null && typeof simulator === 'object' && simulator !== null) {
      for (const [key, value] of Object.entries(recorded)) this.learn(value, (simulator as Record<string, unknown>)[key]);
    }
  }

  /** A recorded text with every learnt href in it replaced, longest first (a per-field href extends its token's). */
  apply(text: string): string {
    let out = text;
    for (const [from, to] of [...this.hrefs].sort((a, b) => b[0].length - a[0].length)) out = out.replaceAll(from, to);
    return out;
  }
}

/** One request replayed; its answer as compare.ts reads it. */
async function send(base: string, method: string, path: string, headers: [string, string][], body: string | undefined): Promise<Answer> {
  const encoding = headers.find(([name]) => name.toLowerCase() === 'content-encoding')?.[1];
  const payload = body === undefined ? undefined : encodedBody(body, encoding);
  const raw = [...headers.flat(), 'Host', new URL(base).host, ...(payload === undefined ? [] : ['Content-Length', String(payload.length)])];
  const req = request(`${base}${path}`, { method, headers: raw });
  req.end(payload);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const text = (await buffer(res)).toString('utf8');
  const single = Object.entries(res.headers).filter((pair): pair is [string, string] => typeof pair[1] === 'string');
  return { status: res.statusCode ?? 0, headers: new Map(single), json: parseJson(text) };
}

/** The recorded headers but the connection's own (Host, Content-Length: the replay's); a reduced credential given its password. */
function replayHeaders(entry: Entry, credentials: ReadonlyMap<string, { password: string }>, links: Links): [string, string][] {
  return entry.request.headers
    .filter(({ name }) => !HOP_BY_HOP.has(name.toLowerCase()))
    .map(({ name, value }): [string, string] => {
      if (name.toLowerCase() !== 'authorization') return [name, links.apply(value)];
      const user = usernameOf(value);
      const password = user === undefined ? undefined : credentials.get(user)?.password;
      // A recorded 401 replays the reduced credential (no password), which the simulator refuses alike.
      if (user === undefined || password === undefined || entry.response.status === 401) return [name, value];
      return [name, `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`];
    });
}

const headerMap = (pairs: readonly { name: string; value: string }[]): Map<string, string> => new Map(pairs.map(({ name, value }) => [name.toLowerCase(), value]));

/** Replays a recording against a fresh simulator with `options.options`, and lists every difference. */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const entries = await readHar(options.har);
  const sim = await startSimulator({ ...options.options, port: 0 }, { writeErr: () => undefined });
  const differences: Difference[] = [];
  try {
    let links: Links | undefined;
    for (const [i, entry] of entries.entries()) {
      const url = new URL(entry.request.url);
      links ??= new Links(url.origin, sim.url);
      const mapped = new URL(links.hrefs.get(url.origin + url.pathname) ?? url.origin + url.pathname);
      const body = entry.request.postData?.text;
      const simulator = await send(sim.url, entry.request.method, mapped.pathname + url.search, replayHeaders(entry, sim.config.credentials, links), body === undefined ? undefined : links.apply(body));
      const recorded: Answer = { status: entry.response.status, headers: headerMap(entry.response.headers), json: parseJson(entry.response.content.text) };
      const recordedLocation = recorded.headers.get('location');
      const simulatorLocation = simulator.headers.get('location');
      const location = recordedLocation === undefined ? undefined : (links.hrefs.get(recordedLocation) ?? simulatorLocation ?? recordedLocation);
      for (const found of compareAnswers(recorded, simulator, location)) differences.push({ ...found, index: i + 1, method: entry.request.method, path: url.pathname });
      links.learn(recordedLocation, simulatorLocation);
      links.learn(recorded.json, simulator.json);
    }
  } finally {
    await sim.close();
  }
  const counts = DIFFERENCE_KINDS.map((kind) => [kind, differences.filter((d) => d.kind === kind).length] as const).filter(([, n]) => n > 0);
  return { requests: entries.length, differences, counts: Object.fromEntries(counts) };
}
