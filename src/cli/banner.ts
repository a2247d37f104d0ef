/**
 * The start-up banner on a terminal: where everything is, and the sandbox's credentials. Written to stderr
 * after the `token-sim listening on <url>` line, so stdout stays that one line (decision 0017).
 */
import { fileURLToPath } from 'node:url';
import { describeStore, type StoreConfig } from '../config/store.js';
import { paint } from './io.js';

/** The documentation index: beside src/ and dist/ alike, and shipped in the package. */
export const DOCS_PATH = fileURLToPath(new URL('../../docs/README.md', import.meta.url));

/** More credentials than this are counted, not listed: a fixtures file may hold hundreds. */
const MAX_CREDENTIALS = 5;

export interface BannerInfo {
  version: string;
  url: string;
  credentials: ReadonlyMap<string, { password: string }>;
  /** `/_sim` needs a Bearer token. */
  adminToken: boolean;
  /** Memory, or the Redis whose URL is shown with its password masked, and the key prefix. */
  store: StoreConfig;
  storePrefix: string;
  /** Processes sharing the port (--workers); shown when more than one. */
  workers: number;
}

export function bannerLines(info: BannerInfo, color: boolean): string[] {
  const { bold, cyan, dim } = paint(color);
  const users = [...info.credentials].map(([username, { password }]) => `${username}:${password}`);
  const shown = users.slice(0, MAX_CREDENTIALS).join(', ');
  const more = users.length > MAX_CREDENTIALS ? ` and ${users.length - MAX_CREDENTIALS} more` : '';
  const guarded = info.adminToken ? dim(' (Authorization: Bearer <admin token>)') : '';
  const row = (label: string, value: string) => `  ${bold(label.padEnd(12))}${value}`;
  return [
    `${bold(`token-sim ${info.version}`)} ${dim('(a sandbox for test cards; Ctrl+C stops it)')}`,
    row('API', cyan(info.url)),
    row('Credentials', `${shown}${more}`),
    row('Control API', `${cyan(`${info.url}/_sim`)}${guarded}`),
    row('Dashboard', `${cyan(`${info.url}/_sim/ui`)}${guarded}`),
    row('Store', info.store.kind === 'memory' ? 'memory' : `${describeStore(info.store)} ${dim(`(keys ${info.storePrefix}*)`)}`),
    ...(info.workers > 1 ? [row('Workers', String(info.workers))] : []),
    row('Docs', DOCS_PATH),
  ];
}
