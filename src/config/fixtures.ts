/** Fixtures: credentials with their merchant entities, entity configuration and the BIN table. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import type { BinEntry } from '../domain/card.js';
import { schemaFor, strictCreateTokenBody, type CreateTokenBody } from '../wire/schemas.js';
import { toFieldProblems, toJsonPath } from '../wire/validation.js';
import { OMITTED_PROBLEMS, boundProblems } from '../wire/problems.js';

const entityName = z.string().min(1, 'must not be empty');

/** A webhook receiver: an absolute http or https URL (decision 0030). */
export function isWebhookUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** A preloaded token: a create body, for a tenant (the first credential when absent), maybe with a fixed id. */
export interface FixtureToken extends CreateTokenBody {
  username?: string | undefined;
  tokenId?: string | undefined;
}

export interface FixtureCredential {
  username: string;
  password: string;
  entities: string[];
  /** May read full card numbers with `Accept: <token media type>; masked=false` (default false). */
  detokenize?: boolean | undefined;
  /** Where this tenant's payment events are POSTed, instead of `webhookUrl` (an http or https URL). */
  webhookUrl?: string | undefined;
}

export interface EntityConfig {
  /** 3-letter upper-case currency codes. */
  currencies: string[];
  networks: string[];
}

/** A row of the BIN table: up to 8 leading digits (`4`), or a range of them (`2221-2720`), and what they name. */
export type BinRange = BinEntry;

/** A fixtures document (`--fixtures`, `fixtures` option): credentials, entities, the BIN table, preloaded tokens. */
export interface Fixtures {
  credentials: FixtureCredential[];
  entities: Record<string, EntityConfig>;
  bins: BinRange[];
  tokens?: FixtureToken[] | undefined;
}

/** Like every object of a fixtures or scenario file, a fixture token refuses fields it does not define (fieldIsNotAllowed). */
export const fixtureToken = schemaFor<FixtureToken>()(
  strictCreateTokenBody.extend({
    username: z.string().min(1, 'must not be empty').optional(),
    tokenId: z.string().regex(/^[0-9A-HJ-NP-Z]{15,21}$/, 'must be 15 to 21 of 0-9 and A-Z without I and O').optional(),
  }),
);

export const fixturesSchema = schemaFor<Fixtures>()(
  z.strictObject({
    credentials: z
      .array(
        z.strictObject({
          username: z.string().min(1, 'must not be empty').regex(/^[^:]*$/, 'must not contain a colon'),
          password: z.string(),
          entities: z.array(entityName).min(1, 'must name at least one entity'),
          // decisions 0031 (detokenize) and 0030 (webhookUrl)
          detokenize: z.boolean().optional(),
          webhookUrl: z.string().refine(isWebhookUrl, 'must be an absolute http or https URL').optional(),
        }),
      )
      .min(1, 'must hold at least one credential'),
    entities: z.record(
      z.string(),
      z.strictObject({
        currencies: z.array(z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case currency code')),
        networks: z.array(z.string().min(1, 'must not be empty')),
      }),
    ),
    bins: z.array(
      z.strictObject({
        prefix: z
          .string()
          .regex(/^(\d{1,8})(-\d{1,8})?$/, 'must be up to 8 leading digits, or a range of them like 2221-2720')
          .refine((p) => {
            const [from = '', to] = p.split('-');
            return to === undefined || (to.length === from.length && from <= to);
          }, 'must be a range of digit strings of one length, low to high'),
        network: z.string().min(1, 'must not be empty'),
        countryCode: z.string().regex(/^[A-Z]{2}$/, 'must be a 2-letter upper-case country code'),
        fundingType: z.string().min(1, 'must not be empty'),
      }),
    ),
    tokens: z.array(fixtureToken).optional(),
  }),
);

export const DEFAULT_FIXTURES_PATH = fileURLToPath(new URL('../../fixtures/default.json', import.meta.url));

/** Bad options, fixtures or scenario files given when a simulator is created (`createSimulator`, `startSimulator`). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Every problem of a fixtures document (the first MAX_PROBLEMS, as problemsOf), with its JSONPath; empty when it is valid. */
export function fixturesProblems(data: unknown): { jsonPath: string; message: string }[] {
  const result = fixturesSchema.safeParse(data);
  if (result.success) return [];
  const { problems, omitted } = boundProblems(toFieldProblems(result.error.issues, data, 'fixtures', fixturesSchema));
  const listed = problems.map((p) => ({ jsonPath: toJsonPath(p.path ?? []), message: p.message }));
  return omitted ? [...listed, { jsonPath: '$', message: OMITTED_PROBLEMS }] : listed;
}

/** Validates fixtures, listing every problem with its JSONPath. */
export function parseFixtures(data: unknown, source: string): Fixtures {
  const result = fixturesSchema.safeParse(data);
  if (result.success) return result.data;
  const problems = fixturesProblems(data).map((p) => `${p.jsonPath}: ${p.message}`).join('; ');
  throw new ConfigError(`invalid fixtures ${source}: ${problems}`);
}

/** A file's text; a file that cannot be read is a ConfigError, worded by `refuse` from the reason (its error code). */
export function readConfigText(path: string, refuse: (why: string) => string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(refuse((err as NodeJS.ErrnoException).code ?? String(err)));
  }
}

export function loadFixturesFile(path: string): Fixtures {
  const text = readConfigText(path, (why) => `cannot read fixtures ${path}: ${why}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ConfigError(`fixtures ${path} is not valid JSON`);
  }
  return parseFixtures(data, path);
}
