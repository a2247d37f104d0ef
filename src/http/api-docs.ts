/**
 * The simulated API's paths in the OpenAPI document: path, methods, operationIds and path parameters from the
 * route table (routes.ts); what each operation says (summary, query, body, answers) from one table here.
 */
import type { MediaTypes } from './media.js';
import { COMMON_ERRORS, answer, body, errors, jsonSchema, pathParam, query, ref, type Operation, type Schema } from './openapi-parts.js';
import { API_ROUTES, type ApiRoute } from './routes.js';
import type { ApiOperation } from '../wire/schemas.js';
import { billingAddress, cardHolderName, description, schemeTransactionReference, updateCardExpiryDate } from '../wire/schemas.js';

export function apiPaths(media: MediaTypes): Record<string, Schema> {
  const docs = operationDocs(media);
  return Object.fromEntries(API_ROUTES.map((route) => [documentedPath(route), pathItem(route, docs)]));
}

const documentedPath = (route: ApiRoute): string => (route.param ? route.pattern.replace(':ref', `{${route.param.name}}`) : route.pattern);

function pathItem(route: ApiRoute, docs: Readonly<Record<string, Operation>>): Schema {
  const { param } = route;
  const item: Schema = param ? { parameters: [pathParam(param.name, param.description)] } : {};
  for (const [method, name] of Object.entries(route.methods)) {
    if (method === 'HEAD' || name === undefined) continue;
    const operationId = route.operationId ?? name;
    const doc = docs[operationId];
    if (doc === undefined) throw new Error(`The OpenAPI document has no text for ${operationId}`);
    item[method.toLowerCase()] = { operationId, ...doc, security: [{ basicAuth: [] }] };
  }
  return item;
}

/** By operationId: each operation's name, or the route's own operationId where one operation serves two routes. */
function operationDocs(media: MediaTypes): Record<ApiOperation, Operation> & Record<string, Operation> {
  const detokenize = `\`Accept: ${media.token}; masked=false\` answers \`paymentInstrument.type: card/front\` with the full \`cardNumber\`, for a credential with \`detokenize: true\` in its fixtures; any other credential gets 403 merchantIsNotConfigured.`;
  const detokenizeRefused: [number, string] = [403, 'merchantIsNotConfigured (masked=false from a credential not allowed to detokenize)'];
  const token = (text: string): Schema => answer(text, ref('Token'), media.token);
  const accepted = { 202: answer('Accepted: links to the actions allowed next and to the events', ref('PaymentAction'), media.saleResponse) };
  const paymentErrors = errors(...COMMON_ERRORS, [404, 'resourceNotFound'], [409, 'actionIsNotAllowed']);
  const notFound = errors(...COMMON_ERRORS, [404, 'resourceNotFound']);
  return {
    queryTokens: {
      summary: 'Find tokens by namespace (any merchant entity) or by tokenId; both: a token must match both. Not a use: no expiry moves',
      description: detokenize,
      parameters: [
        query('namespace', 'The tenant\u2019s live tokens in this namespace, oldest first', { type: 'string', minLength: 1 }),
        query('tokenId', 'The token with this id, or none', { type: 'string', minLength: 1 }),
      ],
      responses: { 200: answer('The tokens found (maybe none)', ref('TokenList'), media.token), ...errors(...COMMON_ERRORS, detokenizeRefused) },
    },
    createToken: {
      summary: 'Create a token (or answer the existing one, or a conflict)',
      requestBody: body(ref('CreateTokenRequest'), media.token),
      responses: {
        200: token('A token already exists for this card with the same data'),
        201: token('A new token'),
        409: token('A token exists whose data differs: `conflicts` and the `tokens:conflicts` link'),
        ...errors(...COMMON_ERRORS, [403, 'tooManyTokensForNamespace']),
      },
    },
    getToken: {
      summary: 'Retrieve a token (a use: may extend its expiry); on the conflicts link, with its conflicts',
      description: detokenize,
      responses: { 200: token('The token'), ...errors(...COMMON_ERRORS, [404, 'resourceNotFound or endpointNotFound'], detokenizeRefused) },
    },
    updateToken: {
      summary: 'Update one field through its link, or resolve a conflict through tokens:conflicts',
      requestBody: updateBody(media),
      responses: { 204: answer('Updated'), ...notFound },
    },
    deleteToken: { summary: 'Delete a token', responses: { 204: answer('Deleted'), ...notFound } },
    sale: {
      summary: 'Customer-initiated sale with stored card details, settled at once (v5)',
      requestBody: body(ref('SaleRequest'), media.saleRequest),
      responses: { 201: answer('The outcome (approved or refused)', ref('SaleResponse'), media.saleResponse), ...errors(...COMMON_ERRORS) },
    },
    refund: { summary: 'Refund what remains of the sale (the `payments:refund` link); no body', responses: { ...accepted, ...paymentErrors } },
    partialRefund: {
      summary: 'Refund part of the sale (the `payments:partialRefund` link), in its currency, within what remains',
      requestBody: body(ref('PartialRefundRequest'), media.saleRequest),
      responses: { ...accepted, ...paymentErrors },
    },
    reversal: { summary: 'Reverse the sale (the `payments:reversal` link): cancelled before settlement, sent for refund after; no body', responses: { ...accepted, ...paymentErrors } },
    paymentEvents: {
      summary: 'The payment\u2019s last event by the virtual now (the `payments:events` link)',
      responses: { 200: answer('The last event and what may follow', ref('PaymentEvents'), media.saleResponse), ...notFound },
    },
    paymentQuery: {
      summary: 'Find the tenant\u2019s payments by transactionReference (what happened to a sale whose answer was lost)',
      parameters: [{ ...query('transactionReference', 'The transactionReference of the sale', { type: 'string', minLength: 1 }), required: true }],
      responses: { 200: answer('The payments found (maybe none)', ref('PaymentQueryList'), media.paymentQueries), ...errors(...COMMON_ERRORS) },
    },
    paymentQueryById: {
      summary: 'One payment of the tenant (the `self` link of a payment query\u2019s answer), with its events',
      responses: { 200: answer('The payment', ref('PaymentQuery'), media.paymentQueries), ...notFound },
    },
  };
}

/** A field update's body: the bare new value, shaped by the link the ref came from. */
function updateBody(media: MediaTypes): Schema {
  const values = { description, cardHolderName, cardExpiryDate: updateCardExpiryDate, billingAddress, schemeTransactionReference };
  return {
    required: false,
    description: 'The bare new value; its shape follows the link the ref came from (none for tokens:conflicts)',
    content: { [media.token]: { schema: { oneOf: Object.entries(values).map(([title, schema]) => ({ ...jsonSchema(schema, 'input'), title })) } } },
  };
}
