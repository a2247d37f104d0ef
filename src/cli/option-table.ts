/** The CLI's options, each declared once for commander, the environment and a config file (decisions 0017, 0048). */
import { Option } from 'commander';
import { DEFAULTS } from '../config/options.js';

export type OptionValue = string | number | boolean | string[];

/** How an option's text and a config file's value are read (option-sources.ts); a list of strings: its choices. */
export type Kind = 'string' | 'file' | 'files' | 'list' | 'boolean' | 'port' | 'count' | 'workers' | readonly string[];

/** One option (decision 0048); what its kind takes is checked further by resolveConfig (option-sources.ts). */
type OptionRow = {
  flag: string;
  help: string;
  kind: Kind;
  /** The plural a config file and the environment also take for a repeatable option (the library's name). */
  alias?: string;
  /** The CLI's own (not a simulator option). */
  cliOnly?: true;
  /** A secret: given as a flag, the CLI warns that `ps` shows it and advises this instead (decision 0023). */
  secret?: string;
  /** docs/cli.md: the value a config file takes. */
  value: string;
  /** commander's default, which docs/cli.md shows as it is; or, with none, the default in words. */
} & ({ default: string | number; shown?: never } | { default?: never; shown: string });

/** An option with its key: the long flag in camelCase, as commander stores it, which names its variable and config key. */
export type OptionSpec = OptionRow & { key: string };

const DURATION = 'ISO 8601 duration';
const code = (value: string | number): string => `\`${value}\``;

const TABLE = [
  { flag: '-p, --port <n>', help: 'port; 0 picks a free one', kind: 'port', default: DEFAULTS.port, value: 'whole number 0–65535 (`0` picks a free port)' },
  { flag: '--host <addr>', help: 'bind address', kind: 'string', default: DEFAULTS.host, value: 'string' },
  {
    flag: '--tls',
    help: 'serve HTTPS on the same port, with a certificate from a local CA kept in --tls-dir (its ca.pem is printed after the listening line)',
    kind: 'boolean',
    value: '`true` or `false`',
    shown: 'off ([HTTPS](https.md))',
  },
  { flag: '--tls-cert <file>', help: 'serve HTTPS with this PEM certificate (chain) instead; needs --tls-key', kind: 'file', value: 'path', shown: 'none' },
  { flag: '--tls-key <file>', help: "the PEM private key of --tls-cert", kind: 'file', value: 'path', shown: 'none' },
  { flag: '--tls-dir <dir>', help: `where --tls keeps its local CA and server certificate, made on first use (default: ${DEFAULTS.tlsDir})`, kind: 'string', value: 'path', shown: `${code(DEFAULTS.tlsDir)} in the working directory` },
  { flag: '--profile <profile>', help: 'token lifetime profile', kind: ['try', 'live'], default: DEFAULTS.profile, value: '`try` or `live`' },
  { flag: '--token-lifetime <duration>', help: 'ISO 8601 duration overriding the profile lifetime (e.g. P7D)', kind: 'string', value: DURATION, shown: "the profile's" },
  { flag: '--token-extension <duration>', help: 'ISO 8601 duration overriding the extension on use', kind: 'string', value: DURATION, shown: "the profile's" },
  { flag: '--settlement-delay <duration>', help: `ISO 8601 duration until a sale settles on the virtual clock (default: ${DEFAULTS.settlementDelay})`, kind: 'string', value: DURATION, shown: code(DEFAULTS.settlementDelay) },
  { flag: '--now <date-time>', help: 'start the virtual clock at this ISO 8601 date-time (default: real time)', kind: 'string', value: 'ISO 8601 date-time or date', shown: 'real time' },
  { flag: '--frozen', help: 'the clock moves only when told to', kind: 'boolean', value: '`true` or `false`', shown: 'off' },
  { flag: '--seed <string>', help: 'deterministic ids, refs and codes', kind: 'string', value: 'string', shown: 'random' },
  { flag: '--fixtures <file>', help: 'credentials, entities and BIN table (default: fixtures/default.json)', kind: 'file', value: 'path', shown: '`fixtures/default.json`' },
  { flag: '--user <name:password>', help: 'add a credential; repeatable', kind: 'list', alias: 'users', value: 'string or list of strings', shown: 'none' },
  { flag: '--vendor <name>', help: 'media-type vendor', kind: 'string', default: DEFAULTS.vendor, value: 'string' },
  { flag: '--base-url <url>', help: 'base of generated links (default: from the Host header)', kind: 'string', value: 'http(s) URL', shown: 'from `Host`' },
  {
    flag: '--allowed-host <name>',
    help: 'also answer requests whose Host names this (besides localhost, IP addresses and single-label names); * allows any; repeatable',
    kind: 'list',
    alias: 'allowedHosts',
    value: 'host name (no scheme, no port) or `*`; or a list',
    shown: '`localhost`, `*.localhost`, IP addresses, single-label names, the `--host` and `--base-url` hosts ([security](security.md))',
  },
  {
    flag: '--allowed-origin <origin>',
    help: 'let web pages of this origin (e.g. http://localhost:3000) change the simulator through /_sim; repeatable',
    kind: 'list',
    alias: 'allowedOrigins',
    value: 'origin such as `http://localhost:3000`; or a list',
    shown: "none: only the simulator's own pages write to `/_sim` from a browser",
  },
  {
    flag: '--webhook-url <url>',
    help: "POST every payment event to this http(s) URL (a fixtures credential's webhookUrl wins)",
    kind: 'string',
    value: 'absolute http(s) URL',
    shown: "none (a credential's `webhookUrl` in the fixtures still applies; [webhooks](webhooks.md))",
  },
  { flag: '--webhook-ca <file>', help: 'trust this PEM CA certificate for https webhook receivers, besides the system store', kind: 'file', value: 'path', shown: 'the system store only' },
  // Webhooks as the vendor sends them (contract 4.4, decision 0056): the client certificate deliveries present.
  {
    flag: '--webhook-client-cert <file>',
    help: 'present this PEM client certificate to https webhook receivers; needs --webhook-client-key (default with --tls: one issued from the local CA)',
    kind: 'file',
    value: 'path',
    shown: "none; with `--tls`, one issued from the local CA ([webhooks](webhooks.md#the-client-certificate))",
  },
  { flag: '--webhook-client-key <file>', help: 'the PEM private key of --webhook-client-cert', kind: 'file', value: 'path', shown: 'none' },
  {
    flag: '--admin-token <token>',
    help: 'require Authorization: Bearer <token> on /_sim (visible in ps: prefer TOKEN_SIM_ADMIN_TOKEN or --admin-token-file)',
    kind: 'string',
    secret: 'TOKEN_SIM_ADMIN_TOKEN or --admin-token-file',
    value: 'string without spaces',
    shown: 'none',
  },
  { flag: '--admin-token-file <file>', help: 'read the admin token from this file (one line)', kind: 'file', cliOnly: true, value: 'path', shown: 'none' },
  { flag: '--journal-size <n>', help: 'journal entries kept per tenant', kind: 'count', default: DEFAULTS.journalSize, value: 'whole number' },
  { flag: '--journal-total <n>', help: `journal entries kept across all tenants (default: ${DEFAULTS.journalTotal}, or --journal-size if larger)`, kind: 'count', value: 'whole number', shown: `${code(DEFAULTS.journalTotal)}, or the journal size if larger` },
  { flag: '--state-limit <size>', help: `the largest snapshot PUT /_sim/state takes (default: ${DEFAULTS.stateLimit})`, kind: 'string', value: 'a size: `256MiB`, `300MB`, `1048576` (1 MiB to 512 MiB)', shown: code(DEFAULTS.stateLimit) },
  { flag: '--scenario <file>', help: 'scenario file, JSON or YAML; repeatable', kind: 'files', alias: 'scenarios', value: 'path or list of paths', shown: 'none' },
  { flag: '--watch', help: 'reload the scenario files when they change (an invalid change keeps the previous set)', kind: 'boolean', cliOnly: true, value: '`true` or `false`', shown: 'off' },
  { flag: '--drain-timeout <duration>', help: `ISO 8601 duration a stop lets requests in flight finish before cutting them (default: ${DEFAULTS.drainTimeout})`, kind: 'string', value: DURATION, shown: code(DEFAULTS.drainTimeout) },
  { flag: '--state-file <file>', help: 'restore the state from this file at start; save it there atomically every --state-interval and on stop', kind: 'string', value: 'path', shown: 'none (state lives in memory only)' },
  { flag: '--state-interval <duration>', help: `ISO 8601 duration between saves of a changed state to --state-file (default: ${DEFAULTS.stateInterval})`, kind: 'string', value: 'ISO 8601 duration, at least 10 ms', shown: code(DEFAULTS.stateInterval) },
  {
    flag: '--state-key <key>',
    help: 'seals card numbers in snapshots (default with --state-file: generated in <file>.key; prefer TOKEN_SIM_STATE_KEY)',
    kind: 'string',
    secret: 'TOKEN_SIM_STATE_KEY',
    value: 'at least 16 characters',
    shown: 'with `--state-file`: the key file `<file>.key`, generated when missing; else none (the seed seals)',
  },
  { flag: '--log <format>', help: 'request log on stderr', kind: ['pretty', 'json', 'silent'], default: 'pretty', value: '`pretty`, `json` or `silent`' },
  {
    flag: '--store <memory|url>',
    help: 'where the state lives: memory, or a redis://host:port[/db] (rediss:// for TLS) that several simulators can share (default: memory)',
    kind: 'string',
    value: '`memory`, or `redis://[user:password@]host[:port][/db]` (`rediss://` for TLS; db 0–15)',
    shown: '`memory`',
  },
  { flag: '--store-prefix <prefix>', help: `the prefix of every Redis key, so that several simulators can share one Redis (default: ${DEFAULTS.storePrefix})`, kind: 'string', value: 'string without spaces or control characters', shown: code(DEFAULTS.storePrefix) },
  {
    flag: '--workers <n|auto>',
    help: 'run n processes sharing the port (auto: one per CPU core); needs --store redis://…',
    kind: 'workers',
    cliOnly: true,
    value: 'whole number 1–64, or `auto` (one per CPU core); more than 1 needs a Redis `store`',
    shown: '`1`',
  },
] as const satisfies readonly OptionRow[];

/** Every option, in `--help` order. */
export const OPTIONS: readonly OptionSpec[] = TABLE.map((row) => ({ ...row, key: new Option(row.flag).attributeName() }));

/** An option's value as read: numbers, booleans, lists or text, by its kind. */
type ValueOf<K> = K extends 'port' | 'count' ? number : K extends 'workers' ? number | 'auto' : K extends 'boolean' ? boolean : K extends 'files' | 'list' ? string[] : K extends readonly (infer C)[] ? C : string;

/** `--tls-cert <file>` → `tlsCert`, as attributeName() reads a flag. */
type KeyOf<F> = F extends `${string}--${infer L}` ? Camel<L extends `${infer N} ${string}` ? N : L> : never;
type Camel<S> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** The options as the CLI reads them (flags, variables, a config file), each typed by its kind. */
export type CliOptions = { -readonly [S in (typeof TABLE)[number] as KeyOf<S['flag']>]?: ValueOf<S['kind']> } & { config?: string };

/** `tokenLifetime` → `TOKEN_SIM_TOKEN_LIFETIME`. */
export const variableOf = (key: string): string => `TOKEN_SIM_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** docs/cli.md's options table (scripts/cli-doc.mjs writes it there): a row per option, `--config`'s last. */
export function optionRows(): string[] {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const either = (a: string, b: string | undefined): string => (b === undefined ? `\`${a}\`` : `\`${a}\` or \`${b}\``);
  const rows = OPTIONS.map((spec) => {
    const flag = Array.isArray(spec.kind) ? spec.flag.replace(/<[^>]*>/, `<${spec.kind.join('|')}>`) : spec.flag;
    const repeatable = spec.kind === 'list' || spec.kind === 'files' ? ', repeatable' : '';
    const variable = either(variableOf(spec.key), spec.alias === undefined ? undefined : variableOf(spec.alias));
    return `| ${cell(code(flag))}${repeatable} | ${variable} | ${either(spec.key, spec.alias)} | ${cell(spec.value)} | ${cell(spec.shown ?? code(spec.default))} |`;
  });
  return ['| flag | variable | config key | value in a file | default |', '|---|---|---|---|---|', ...rows, '| `--config <file>` | `TOKEN_SIM_CONFIG` | | | none |'];
}
