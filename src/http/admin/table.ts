/** The control plane declared once (decision 0049): every /_sim call as one row, for the routes, OpenAPI and library. */
import type { ControlHandler, RowCall } from './context.js';
import { deleteToken, listPayments, listTenants, refundPayment, reversePayment, streamRequests } from './dashboard.js';
import type { OperationDoc } from '../openapi-parts.js';
import { DOCS } from './docs.js';
import * as call from './handlers.js';

/**
 * Who may call: `open` anyone (a readiness probe needs no secret); `admin` the admin token alone when one is
 * set; `tenant` the admin token or a tenant's own Basic credentials (decision 0026), anyone without
 * --admin-token; `stream` the same, and the admin token as `?access_token=` (EventSource cannot set headers).
 */
export type Access = 'open' | 'admin' | 'tenant' | 'stream';

export interface ControlOperation {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Under /_sim, as Express matches it (case-insensitive, a trailing slash allowed; `:name` a path parameter). */
  path: string;
  access: Access;
  /** Takes `?tenant=` (or a tenant's credentials), read first; `required`: it must be named. */
  tenant: boolean | 'required';
  /** The query parameters it takes, any other refused; absent: the call reads its query itself. */
  query?: readonly string[];
  /** Its one call, the library's too (decision 0062); `handle`, the row's own HTTP handler. */
  call?: RowCall;
  handle?: ControlHandler;
  /** SimulatorControl's method that makes the call (`clock.*` SimulatorClock's). */
  library?: string;
  doc: () => OperationDoc;
}

const TENANT = ['tenant'];

/** In the order of the OpenAPI document; a path's rows in the order of its `Allow`. */
const ROWS = [
  { method: 'GET', path: '/health', access: 'open', tenant: false, handle: call.health, library: 'ready', doc: DOCS.health },
  { method: 'GET', path: '/clock', access: 'tenant', tenant: true, call: call.onController('clock'), library: 'clock.now', doc: DOCS.getClock },
  { method: 'PUT', path: '/clock', access: 'tenant', tenant: true, call: call.withBody('setClock'), library: 'clock.set', doc: DOCS.setClock },
  { method: 'POST', path: '/clock/advance', access: 'tenant', tenant: true, call: call.withBody('advanceClock'), library: 'clock.advance', doc: DOCS.advanceClock },
  { method: 'POST', path: '/reset', access: 'tenant', tenant: true, call: call.onController('reset'), library: 'reset', doc: DOCS.reset },
  { method: 'GET', path: '/tokens', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor'], call: call.listTokens, library: 'tokens', doc: DOCS.listTokens },
  { method: 'GET', path: '/requests', access: 'tenant', tenant: true, call: call.listRequests, library: 'requests', doc: DOCS.listRequests },
  { method: 'DELETE', path: '/requests', access: 'tenant', tenant: true, query: TENANT, call: call.onController('clearRequests'), library: 'clearRequests', doc: DOCS.clearRequests },
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
  { method: 'GET', path: '/tenants', access: 'tenant', tenant: true, query: TENANT, call: listTenants, doc: DOCS.listTenants },
  { method: 'GET', path: '/payments', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor', 'transactionReference'], call: listPayments, library: 'payments', doc: DOCS.listPayments },
  { method: 'POST', path: '/payments/:paymentId/refund', access: 'tenant', tenant: 'required', query: TENANT, call: refundPayment, doc: DOCS.refundPayment },
  { method: 'POST', path: '/payments/:paymentId/reversal', access: 'tenant', tenant: 'required', query: TENANT, call: reversePayment, doc: DOCS.reversePayment },
  { method: 'DELETE', path: '/tokens/:tokenId', access: 'tenant', tenant: 'required', query: TENANT, call: deleteToken, doc: DOCS.deleteToken },
  { method: 'GET', path: '/requests/stream', access: 'stream', tenant: true, handle: streamRequests, doc: DOCS.streamRequests },
  { method: 'GET', path: '/openapi.json', access: 'tenant', tenant: false, handle: call.openApi, doc: DOCS.openApi },
  { method: 'GET', path: '/magic-values', access: 'tenant', tenant: true, query: TENANT, call: { run: (parts, { tenant }) => parts.magicValues(tenant) }, library: 'magicValues', doc: DOCS.magicValues },
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
