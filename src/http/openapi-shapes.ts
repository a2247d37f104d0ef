/**
 * JSON Schemas of what /_sim answers, derived from the schemas of what it reads (decision 0024): a snapshot
 * carries its scenario sets' card numbers sealed, and every /_sim answer has card data masked.
 */
type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `schema.properties[a].items.properties[b]…` along `path` (`[]` is an array's items), or undefined. */
function at(schema: Schema, path: readonly string[]): Schema | undefined {
  let node: unknown = schema;
  for (const step of path) {
    if (!isSchema(node)) return undefined;
    node = step === '[]' ? node.items : isSchema(node.properties) ? node.properties[step] : undefined;
  }
  return isSchema(node) ? node : undefined;
}

const SEALED = { type: 'string', minLength: 1, description: 'The card number, sealed with the simulator’s keys (in snapshots, in place of cardNumber)' };

/**
 * A scenario as a state snapshot carries it (control/state.ts sealScenarioSets): `sealedCardNumber` in place
 * of `cardNumber` in preloaded tokens and in `when`; an import takes either, never both.
 */
export function sealedScenario(scenario: Schema): Schema {
  const copy = structuredClone(scenario);
  const card = at(copy, ['tokens', '[]', 'paymentInstrument']);
  if (card && isSchema(card.properties)) {
    card.properties.sealedCardNumber = SEALED;
    card.required = (Array.isArray(card.required) ? (card.required as string[]) : []).filter((k) => k !== 'cardNumber');
    card.oneOf = [{ required: ['cardNumber'] }, { required: ['sealedCardNumber'] }];
  }
  const when = at(copy, ['rules', '[]', 'when']);
  if (when && isSchema(when.properties)) {
    when.properties.sealedCardNumber = SEALED;
    when.not = { required: ['cardNumber', 'sealedCardNumber'] };
  }
  copy.description = 'A scenario in a snapshot: card numbers sealed (sealedCardNumber) in place of cardNumber';
  return copy;
}

/**
 * The shape of a value after /_sim's masking (wire/mask.ts): a card number kept to its first and last four
 * digits, and card numbers starred inside any text, so no text pattern holds; a number that is itself a card
 * number becomes masked text. Types, required fields and lengths stay.
 */
export function maskedShape(schema: Schema, description: string): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isSchema(node)) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') continue;
      // `properties`, `$defs` and the like map names to schemas: keep the names, walk the schemas.
      out[key] = key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, walk(v)])) : walk(value);
    }
    if (out.type === 'integer' || out.type === 'number') out.type = [out.type, 'string'];
    return out;
  };
  return { ...(walk(schema) as Schema), description };
}
