/**
 * The control plane, declared once: every /_sim call as one row — method, path, who may call it, whether it
 * takes `?tenant=`, the query parameters it takes, its one call (read from the request, run over HTTP and by
 * the library alike; a streamed or odd answer's own handler), the library method that makes it, and its
 * OpenAPI description. From this table come the /_sim routes (routes.ts: the access checks, 405 with Allow,
 * endpointNotFound), the OpenAPI paths (openapi-paths.ts), and the library's in-process and remote methods
 * (simulator/facade.ts, simulator/remote.ts).
 */
import type { Request, Response } from 'express';
import type { ControlCall, ControlContext, RowCall } from './context.js';
import { deleteToken, listPayments, listTenants, refundPayment, reversePayment, streamRequests } from './dashboard.js';
import type { OperationDoc } from '../openapi-parts.js';
import { DASHBOARD_DOCS, DOCS } from './docs.js';
import { magicValuesDoc } from './magic-values.js';
import * as call from './handlers.js';

/**
 * Who may call: `open` anyone, always (a readiness probe needs no secret); `admin` only the admin token when
 * one is set (whatever else /_sim takes); `tenant` the admin token or a tenant's own Basic credentials (which
 * act on that tenant only, decision 0026), anyone without --admin-token; `stream` the same, and the admin token
 * as `?access_token=` too (EventSource cannot set headers, decision 0034).
 */
export type Access = 'open' | 'admin' | 'tenant' | 'stream';

export type ControlHandler = (ctx: ControlContext, call: ControlCall, req: Request, res: Response) => void | Promise<void>;

export interface ControlOperation {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Under /_sim, as Express matches it (case-insensitive, a trailing slash allowed; `:name` a path parameter). */
  path: string;
  access: Access;
  /** Takes `?tenant=` (or a tenant's own credentials): the tenant the call acts on, read before anything else; `required`: it must be named. */
  tenant: boolean | 'required';
  /** The query parameters it takes, any other refused (with a hint) next; absent: the call reads its query itself, or none. */
  query?: readonly string[];
  /** Its one call (context.ts): the HTTP handler unless `handle` is the row's own, and the library method's core. */
  call?: RowCall;
  handle?: ControlHandler;
  /** The library method that makes the call (SimulatorControl's; `clock.*` SimulatorClock's). */
  library?: string;
  doc: () => OperationDoc;
}

const TENANT = ['tenant'];

/** In the order of the OpenAPI document; a path's rows in the order of its `Allow`. */
const ROWS = [
  { method: 'GET', path: '/health', access: 'open', tenant: false, handle: call.health, library: 'ready', doc: DOCS.health },
  { method: 'GET', path: '/clock', access: 'tenant', tenant: true, call: call.getClock, library: 'clock.now', doc: DOCS.getClock },
  { method: 'PUT', path: '/clock', access: 'tenant', tenant: true, call: call.setClock, library: 'clock.set', doc: DOCS.setClock },
  { method: 'POST', path: '/clock/advance', access: 'tenant', tenant: true, call: call.advanceClock, library: 'clock.advance', doc: DOCS.advanceClock },
  { method: 'POST', path: '/reset', access: 'tenant', tenant: true, call: call.reset, library: 'reset', doc: DOCS.reset },
  { method: 'GET', path: '/tokens', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor'], call: call.listTokens, library: 'tokens', doc: DOCS.listTokens },
  { method: 'GET', path: '/requests', access: 'tenant', tenant: true, call: call.listRequests, library: 'requests', doc: DOCS.listRequests },
  { method: 'DELETE', path: '/requests', access: 'tenant', tenant: true, query: TENANT, call: call.clearRequests, library: 'clearRequests', doc: DOCS.clearRequests },
  // Streamed over HTTP; the library's snapshot is one object.
  { method: 'GET', path: '/state', access: 'tenant', tenant: true, handle: call.exportState, call: { run: ({ controller }) => controller.exportState() }, library: 'exportState', doc: DOCS.exportState },
  { method: 'PUT', path: '/state', access: 'tenant', tenant: true, call: call.importState, library: 'importState', doc: DOCS.importState },
  { method: 'GET', path: '/scenarios', access: 'tenant', tenant: true, call: call.listScenarios, library: 'scenarios', doc: DOCS.listScenarios },
  { method: 'PUT', path: '/scenarios', access: 'tenant', tenant: true, call: call.loadScenarios, library: 'loadScenarios', doc: DOCS.loadScenarios },
  // loadScenarios() with no scenario: the set cleared.
  { method: 'DELETE', path: '/scenarios', access: 'tenant', tenant: true, call: call.clearScenarios, library: 'loadScenarios', doc: DOCS.clearScenarios },
  { method: 'GET', path: '/webhooks', access: 'tenant', tenant: true, call: call.listWebhooks, library: 'webhooks', doc: DOCS.listWebhooks },
  { method: 'POST', path: '/webhooks/flush', access: 'tenant', tenant: true, call: call.flushWebhooks, library: 'flushWebhooks', doc: DOCS.flushWebhooks },
  // Webhooks as the vendor sends them (contract 4.4, decision 0056): a logged delivery sent again.
  { method: 'POST', path: '/webhooks/:id/resend', access: 'tenant', tenant: true, query: TENANT, call: call.resendWebhook, library: 'resendWebhook', doc: DOCS.resendWebhook },
  { method: 'GET', path: '/metrics', access: 'admin', tenant: false, query: [], handle: call.metrics, doc: DOCS.metrics },
  { method: 'GET', path: '/tenants', access: 'tenant', tenant: true, query: TENANT, call: listTenants, doc: DASHBOARD_DOCS.listTenants },
  { method: 'GET', path: '/payments', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor', 'transactionReference'], call: listPayments, library: 'payments', doc: DASHBOARD_DOCS.listPayments },
  { method: 'POST', path: '/payments/:paymentId/refund', access: 'tenant', tenant: 'required', query: TENANT, call: refundPayment, doc: DASHBOARD_DOCS.refundPayment },
  { method: 'POST', path: '/payments/:paymentId/reversal', access: 'tenant', tenant: 'required', query: TENANT, call: reversePayment, doc: DASHBOARD_DOCS.reversePayment },
  { method: 'DELETE', path: '/tokens/:tokenId', access: 'tenant', tenant: 'required', query: TENANT, call: deleteToken, doc: DASHBOARD_DOCS.deleteToken },
  { method: 'GET', path: '/requests/stream', access: 'stream', tenant: true, handle: streamRequests, doc: DASHBOARD_DOCS.streamRequests },
  { method: 'GET', path: '/openapi.json', access: 'tenant', tenant: false, handle: call.openApi, doc: DOCS.openApi },
  // Every value that changes an outcome (contract 4.4, decision 0057).
  { method: 'GET', path: '/magic-values', access: 'tenant', tenant: true, query: TENANT, call: call.listMagicValues, library: 'magicValues', doc: magicValuesDoc },
] as const satisfies readonly ControlOperation[];
export const CONTROL_TABLE: readonly ControlOperation[] = ROWS;

/** The library methods that rows serve (remote.ts holds them equal to the library's surface). */
export type LibraryName = Extract<(typeof ROWS)[number], { library: string }>['library'];

/** A path as the OpenAPI document and the refusals' messages write it: `/_sim/payments/{paymentId}/refund`. */
export const documentedPath = (op: ControlOperation): string => `/_sim${op.path.replace(/:(\w+)/g, '{$1}')}`;

/** The row a library method takes (by method as well where two rows serve one method). */
export function routeOf(library: LibraryName, method?: ControlOperation['method']): ControlOperation {
  const op = CONTROL_TABLE.find((row) => row.library === library && (method === undefined || row.method === method));
  if (op === undefined) throw new Error(`no /_sim row serves ${library}`);
  return op;
}
