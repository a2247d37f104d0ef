/**
 * The /_sim calls of the control table (table.ts): clock, reset, tokens, journal, state, scenarios, webhooks,
 * health, metrics and the OpenAPI document. Each reads its query and body with the readers the library
 * uses too, so a bad value is the same refusal over HTTP, in process and remotely.
 */
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { positionOf } from '../../control/token-pages.js';
import { packageVersion } from '../../config/version.js';
import { parseScenarioText, scenarioPaths, validateScenarios } from '../../scenarios/loader.js';
import { parseJsonText } from '../../wire/json.js';
import { maskCardData } from '../../wire/mask.js';
import { WireError } from '../../wire/problems.js';
import { readBody } from '../body.js';
import { HttpError } from '../errors.js';
import { isYamlType, schemeOf } from '../guard.js';
import { toHar } from '../har.js';
import { checkQueryParams, parseJournalQuery } from '../journal-query.js';
import { essence } from '../media.js';
import { readJournalCursor, readLimit, readTokenCursor, tokenCursor } from '../paging.js';
import { controlTokenList } from '../present.js';
import { readFlushTimeout, readWebhookQuery } from '../webhook-query.js';
import { noContent, sendJson, type ControlCall, type ControlContext } from './context.js';

const bodyText = async (req: Request, limit?: number): Promise<string> => (await readBody(req, limit)).toString('utf8');
const jsonOf = async (req: Request, limit?: number): Promise<unknown> => parseJsonText(await bodyText(req, limit));

/** Health stays open: it says where the state lives; with Redis unreachable it answers 503 (contract 3.5). */
export async function health(ctx: ControlContext, _call: ControlCall, _req: Request, res: Response): Promise<void> {
  const store = await ctx.storeHealth();
  const up = store.kind === 'memory' || store.up;
  sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'unavailable', store });
}

export async function metrics(ctx: ControlContext, { where }: ControlCall, req: Request, res: Response): Promise<void> {
  checkQueryParams(req.query, [], where);
  const text = await ctx.metrics.scrape();
  res.statusCode = 200;
  res.setHeader('Content-Type', ctx.metrics.contentType);
  res.end(text);
}

export const getClock = (ctx: ControlContext, { tenant }: ControlCall, _req: Request, res: Response): void => sendJson(res, 200, ctx.controller.clock(tenant));

export async function setClock(ctx: ControlContext, { tenant }: ControlCall, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, ctx.controller.setClock(await jsonOf(req), tenant));
}

export async function advanceClock(ctx: ControlContext, { tenant }: ControlCall, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, ctx.controller.advanceClock(await jsonOf(req), tenant));
}

export function reset(ctx: ControlContext, { tenant }: ControlCall, _req: Request, res: Response): void {
  ctx.controller.reset(tenant);
  noContent(res);
}

export function listTokens(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  checkQueryParams(req.query, ['tenant', 'limit', 'cursor'], where);
  const limit = readLimit(req.query.limit, where);
  const page = ctx.controller.tokenPage(tenant, readTokenCursor(req.query.cursor, where), limit);
  const last = page.tokens.at(-1);
  const tokens = controlTokenList(page.tokens, { baseUrl: ctx.baseUrlOf(req), refs: ctx.refs });
  sendJson(res, 200, { tokens, next: page.more && last ? tokenCursor(positionOf(last)) : null });
}

/** The cursor of the page after one that showed `shown` of `count` entries, the last being `lastSeq`. */
const nextOf = (shown: number, count: number, lastSeq: number | undefined): string | null => (lastSeq !== undefined && count > shown ? String(lastSeq) : null);

/** Filters, a count, and JSON or HAR 1.2 (journal-query.ts, har.ts; decision 0018); one page of at most `limit` (default 1000). */
export function listRequests(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  const { cursor: cursorParam, ...query } = req.query;
  const { filter: given, format } = parseJournalQuery(query, where);
  const cursor = readJournalCursor(cursorParam, where);
  if (cursor !== undefined && given.since !== undefined) throw new HttpError('urlInvalid', 'Give since or cursor, not both', { problems: [{ errorName: 'fieldHasInvalidValue', message: 'since and cursor cannot be combined' }] });
  const since = cursor ?? given.since;
  const filter = { ...given, ...(since !== undefined && { since }), limit: readLimit(query.limit, where) };
  if (format === 'har') {
    // The same selection as kept records (the journal's own view), for HAR.
    const { selected: records, count } = ctx.dashboard.journal.select(tenant, filter);
    // One simulator serves one scheme: the journal's requests came the way this one did.
    const har = toHar(records, count, packageVersion(), schemeOf(req));
    sendJson(res, 200, { log: { ...har.log, _next: nextOf(records.length, count, records.at(-1)?.seq) } });
  } else {
    const { requests, count } = ctx.controller.requests(tenant, filter);
    sendJson(res, 200, { requests, count, next: nextOf(requests.length, count, requests.at(-1)?.seq) });
  }
}

export function clearRequests(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  checkQueryParams(req.query, ['tenant'], where);
  ctx.controller.clearRequests(tenant);
  noContent(res);
}

/**
 * A snapshot token with card data masked, except its lifetime: a number the simulator computes itself, which
 * may read as a card number (Luhn-valid, 12 to 19 digits) and must import back as a number.
 */
const maskTokenState = <T extends { lifetimeMs: number }>(state: T): unknown => ({ ...(maskCardData(state) as object), lifetimeMs: state.lifetimeMs });

/** Tokens per slice of a streamed snapshot: each slice is a few milliseconds of work at most. */
const STATE_SLICE = 64;

/**
 * `GET /_sim/state` (`?tenant=` or a tenant's own credentials: that tenant's part only; decision 0026), written
 * a slice of tokens at a time, yielding to other requests between slices and waiting while the client reads
 * slowly: a snapshot of 100,000 tokens never holds the API up, nor is it ever one string in memory. The parts
 * (clocks, counters, the live tokens) are taken at one moment.
 */
export async function exportState(ctx: ControlContext, { tenant }: ControlCall, _req: Request, res: Response): Promise<void> {
  const { head, tokens, toState } = ctx.controller.exportStateParts(tenant);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  const gone = new Promise<void>((resolve) => res.once('close', resolve));
  let open = true;
  void gone.then(() => (open = false));
  // Wait for a slow reader; then always yield to the poll phase: when the socket takes each write at once,
  // 'drain' comes on the next tick, which would let the whole export run before any other request.
  const pause = async (full: boolean): Promise<void> => {
    if (full) await Promise.race([gone, once(res, 'drain')]);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  const headJson = JSON.stringify(maskCardData(head));
  res.write(`${headJson.slice(0, -1)},"tokens":[`);
  for (let i = 0; i < tokens.length && open; i += STATE_SLICE) {
    const slice = tokens.slice(i, i + STATE_SLICE).map((t) => JSON.stringify(maskTokenState(toState(t))));
    const full = !res.write(`${i === 0 ? '' : ','}${slice.join(',')}`);
    await pause(full);
  }
  if (open) res.end(']}');
}

export async function importState(ctx: ControlContext, { tenant }: ControlCall, req: Request, res: Response): Promise<void> {
  ctx.controller.importState(await jsonOf(req, ctx.stateLimit), tenant);
  noContent(res);
}

/** `?tenant=` names a tenant's own set; without it, the global set. Scenarios may name card numbers: masked like all /_sim output. */
export const listScenarios = (ctx: ControlContext, { tenant }: ControlCall, _req: Request, res: Response): void =>
  sendJson(res, 200, { scenarios: maskCardData(ctx.controller.scenarios(tenant)) });

/** A scenario body as its Content-Type says; JSON that does not parse is told that YAML goes as YAML (contract 4.1). */
function parseScenarioBody(text: string, yaml: boolean): unknown {
  try {
    return parseScenarioText(text, yaml ? 'yaml' : 'json');
  } catch (err) {
    if (yaml || !(err instanceof WireError) || err.code !== 'bodyIsNotJson') throw err;
    throw new WireError('bodyIsNotJson', `${err.message}; a YAML scenario goes with Content-Type: application/yaml`);
  }
}

export async function loadScenarios(ctx: ControlContext, call: ControlCall, req: Request, res: Response): Promise<void> {
  const yaml = isYamlType(essence(req.headers['content-type']));
  const data = parseScenarioBody(await bodyText(req), yaml);
  const scenarios = validateScenarios(data);
  ctx.controller.loadScenarios(scenarios, scenarioPaths(data, scenarios.length), call.tenant);
  listScenarios(ctx, call, req, res);
}

export function clearScenarios(ctx: ControlContext, { tenant }: ControlCall, _req: Request, res: Response): void {
  ctx.controller.loadScenarios([], undefined, tenant);
  noContent(res);
}

/** The delivery log, paged like the journal: the oldest `limit` after `cursor`, `next` continues (decision 0030). */
export function listWebhooks(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  const filter = readWebhookQuery(req.query, where);
  const { deliveries, count } = ctx.webhooks.deliveries({ ...filter, ...(tenant !== undefined && { tenant }) });
  sendJson(res, 200, { webhooks: deliveries, count, next: nextOf(deliveries.length, count, deliveries.at(-1)?.seq) });
}

/** Answers once nothing (of the tenant) is queued, in flight or waiting to retry, or after `timeout` ms. */
export async function flushWebhooks(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): Promise<void> {
  const timeoutMs = readFlushTimeout(req.query, where);
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const result = await ctx.webhooks.flush({ ...(tenant !== undefined && { tenant }), timeoutMs });
  if (!gone.signal.aborted) sendJson(res, 200, result);
}

/** Sends a logged delivery again, same eventId, as a new delivery (decision 0056): 202 with its id; 404 for an id the log does not show (of the tenant). */
export function resendWebhook(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  checkQueryParams(req.query, ['tenant'], where);
  sendJson(res, 202, ctx.resendWebhook(String(req.params.id), tenant));
}

export const openApi = (ctx: ControlContext, _call: ControlCall, req: Request, res: Response): void => sendJson(res, 200, ctx.openApi(req));

/** `GET /_sim/magic-values`: `?tenant=` adds the amounts of that tenant's own scenario set. */
export function listMagicValues(ctx: ControlContext, { tenant, where }: ControlCall, req: Request, res: Response): void {
  checkQueryParams(req.query, ['tenant'], where);
  sendJson(res, 200, ctx.magicValues(tenant));
}
