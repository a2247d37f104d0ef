/** The /_sim paths of the OpenAPI document, from the control table: one operation per row, its security from who may call it. */
import { errors, type Schema } from '../openapi-parts.js';
import { CONTROL_TABLE, documentedPath, type Access } from './table.js';

const TENANT = { name: 'tenant', in: 'query', required: false, description: 'One tenant (a configured username); without it the call acts on every tenant', schema: { type: 'string', minLength: 1 } };

/** Nobody without --admin-token, the admin token, a tenant's Basic credentials (decision 0026). */
const TENANT_CONTROL = [{}, { adminBearer: [] }, { basicAuth: [] }];
const SECURITY: Record<Access, unknown[] | undefined> = {
  open: undefined,
  admin: [{}, { adminBearer: [] }],
  tenant: TENANT_CONTROL,
  stream: [...TENANT_CONTROL, { adminQuery: [] }],
};

/** What every row that is not open may answer; with `?tenant=`, the 400 of an unknown tenant (unless the row says more) and the 403 of another tenant's credentials. */
const DENIED: [number, string] = [401, 'accessDenied'];
const UNKNOWN_TENANT: [number, string] = [400, 'urlContainsInvalidValue (a tenant that is not a configured username)'];
const OTHER_TENANT = 'operationIsNotAllowed (a tenant\u2019s Basic credentials naming another tenant)';
const CROSS_SITE = 'headerHasInvalidValue (Origin, or Sec-Fetch-Site: cross-site: a write from another site)';

/**
 * The refusals the row does not write itself. Every write also answers what a web page of another site would
 * get (decision 0042): 403 for its Origin or `Sec-Fetch-Site: cross-site`, 415 for a body not typed as JSON
 * (or YAML where taken).
 */
function refusals(op: (typeof CONTROL_TABLE)[number], path: string): [number, string][] {
  const write = op.method !== 'GET';
  const forbidden = [...(op.tenant ? [OTHER_TENANT] : []), ...(write ? [CROSS_SITE] : [])];
  const out: [number, string][] = op.tenant ? [UNKNOWN_TENANT] : [];
  if (forbidden.length > 0) out.push([403, forbidden.join('; or ')]);
  if (op.access !== 'open') out.push(DENIED);
  if (write) out.push([415, 'headerHasInvalidValue (Content-Type): a body must be application/json' + (path === '/_sim/scenarios' ? ' or application/yaml' : '')]);
  return out;
}

export function controlPaths(): Record<string, Schema> {
  const paths: Record<string, Schema> = {};
  for (const op of CONTROL_TABLE) {
    const { operationId, summary, description, pathParameters = [], tenantText, parameters, requestBody, responses } = op.doc();
    const path = documentedPath(op);
    if (paths[path] === undefined) {
      const tenant = op.tenant ? [{ ...TENANT, ...(tenantText !== undefined && { description: tenantText }) }] : [];
      paths[path] = tenant.length + pathParameters.length > 0 ? { parameters: [...tenant, ...pathParameters] } : {};
    }
    const security = SECURITY[op.access];
    paths[path][op.method.toLowerCase()] = {
      operationId,
      ...(summary !== undefined && { summary }),
      ...(description !== undefined && { description }),
      ...(security !== undefined && { security }),
      ...(parameters !== undefined && { parameters }),
      ...(requestBody !== undefined && { requestBody }),
      responses: { ...errors(...refusals(op, path)), ...responses },
    };
  }
  return paths;
}
