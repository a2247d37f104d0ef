/** The command line: `token-sim [options]`. No side effects on import; bin/token-sim.js calls main(). */
import { availableParallelism } from 'node:os';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../config/fixtures.js';
import { resolveConfig, type LogFormat, type Profile, type SimulatorConfig, type SimulatorOptions } from '../config/options.js';
import { resolveStore } from '../config/store.js';
import { startSimulator, type StartedSimulator } from '../simulator/server.js';
import { packageVersion } from '../config/version.js';
import { openApiDocument } from '../http/openapi.js';
import { validateFiles } from './validate.js';
import { watchScenarioFiles } from './watch.js';
import { bannerLines } from './banner.js';
import { colorEnabled, colorForced, paint, type Env } from './color.js';
import { readConfigFile } from './config-file.js';
import { CONFIG_VARIABLE, readEnvironment, valueOf } from './environment.js';
import { MAX_WORKERS, OPTIONS, parseWorkers } from './option-table.js';
import { runCluster } from './cluster.js';
import { describeStartError } from './start-error.js';
import { ADMIN_TOKEN_ON_COMMAND_LINE, STATE_KEY_ON_COMMAND_LINE, adminTokenOf } from './secrets.js';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  exit: (code: number) => void;
  /** Registers a handler for SIGINT and SIGTERM. */
  onStopSignal: (handler: (signal: string) => void) => void;
  /** Whether stderr is a terminal: the banner, and colour in it and in the pretty log. */
  isTTY?: boolean;
  /** Help text: wrap width (default 80), and whether stdout is a terminal that shows colours (default not). */
  helpWidth?: number;
  helpColors?: boolean;
  /** `TOKEN_SIM_*` options, `NO_COLOR` and `FORCE_COLOR`: process.env for the process, none by default. */
  env?: Env;
}

export const processIo: CliIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  exit: (code) => process.exit(code),
  onStopSignal(handler) {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  },
  isTTY: process.stderr.isTTY,
  ...(process.stdout.isTTY && { helpWidth: process.stdout.columns, helpColors: true }),
  env: process.env,
};

/** Exit code for bad options and start-up failures. */
export const USAGE_ERROR = 2;

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('must be a whole number from 0 to 65535');
  return port;
}

function workerCount(value: string): number | 'auto' {
  const workers = parseWorkers(value);
  if (workers === undefined) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_WORKERS} or auto`);
  return workers;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

interface CliOptions {
  port: number;
  host: string;
  profile: Profile;
  tokenLifetime?: string;
  settlementDelay?: string;
  tokenExtension?: string;
  now?: string;
  frozen?: boolean;
  seed?: string;
  fixtures?: string;
  user?: string[];
  vendor: string;
  baseUrl?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  webhookUrl?: string;
  adminToken?: string;
  adminTokenFile?: string;
  drainTimeout?: string;
  stateFile?: string;
  stateInterval?: string;
  stateKey?: string;
  journalSize: number;
  journalTotal?: number;
  stateLimit?: string;
  scenario?: string[];
  watch?: boolean;
  log: LogFormat;
  store?: string;
  storePrefix?: string;
  workers?: number | 'auto';
  config?: string;
}

export function toSimulatorOptions(o: CliOptions): SimulatorOptions {
  return {
    port: o.port,
    host: o.host,
    profile: o.profile,
    vendor: o.vendor,
    log: o.log,
    frozen: o.frozen ?? false,
    ...(o.tokenLifetime !== undefined && { tokenLifetime: o.tokenLifetime }),
    ...(o.tokenExtension !== undefined && { tokenExtension: o.tokenExtension }),
    ...(o.settlementDelay !== undefined && { settlementDelay: o.settlementDelay }),
    ...(o.now !== undefined && { now: o.now }),
    ...(o.seed !== undefined && { seed: o.seed }),
    ...(o.fixtures !== undefined && { fixtures: o.fixtures }),
    ...(o.user !== undefined && { users: o.user }),
    ...(o.baseUrl !== undefined && { baseUrl: o.baseUrl }),
    ...(o.allowedHost !== undefined && { allowedHosts: o.allowedHost }),
    ...(o.allowedOrigin !== undefined && { allowedOrigins: o.allowedOrigin }),
    ...(o.webhookUrl !== undefined && { webhookUrl: o.webhookUrl }),
    ...(o.adminToken !== undefined && { adminToken: o.adminToken }),
    ...(o.drainTimeout !== undefined && { drainTimeout: o.drainTimeout }),
    ...(o.stateFile !== undefined && { stateFile: o.stateFile }),
    ...(o.stateInterval !== undefined && { stateInterval: o.stateInterval }),
    ...(o.stateKey !== undefined && { stateKey: o.stateKey }),
    journalSize: o.journalSize,
    ...(o.journalTotal !== undefined && { journalTotal: o.journalTotal }),
    ...(o.stateLimit !== undefined && { stateLimit: o.stateLimit }),
    ...(o.scenario !== undefined && { scenarios: o.scenario }),
    ...(o.store !== undefined && { store: o.store }),
    ...(o.storePrefix !== undefined && { storePrefix: o.storePrefix }),
  };
}

export interface CliHandlers {
  /**
   * Starts the simulator; `watch` lists the scenario files to reload on change; `workers` processes share the
   * port when more than 1 (--workers).
   */
  run(options: SimulatorOptions, watch: readonly string[], workers: number): Promise<void>;
  /** Checks files; resolves with the exit code. */
  validate(files: readonly string[]): number;
}

/**
 * The options with what the environment and the config file add: for each option not given as a flag, its
 * `TOKEN_SIM_*` variable, else the config file's key, else the default (decision 0017).
 */
async function withEnvironmentAndFile(flags: CliOptions, command: Command, io: CliIo): Promise<CliOptions> {
  const env = io.env ?? {};
  const environment = readEnvironment(env);
  for (const warning of environment.warnings) io.err(warning);
  const configPath = flags.config ?? valueOf(env, CONFIG_VARIABLE);
  const file = configPath === undefined ? {} : await readConfigFile(configPath);
  if (environment.problems.length > 0) throw new ConfigError(environment.problems.join('; '));
  const merged: Record<string, unknown> = { ...flags };
  for (const { key } of OPTIONS) {
    if (command.getOptionValueSource(key) === 'cli') continue;
    const value = environment.values[key] ?? file[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged as unknown as CliOptions;
}

const ENVIRONMENT_HELP = `
Environment and config file:
  Every option can also be set as TOKEN_SIM_<OPTION> (TOKEN_SIM_PORT=0,
  TOKEN_SIM_ADMIN_TOKEN=...), or in a JSON or YAML --config file
  (TOKEN_SIM_CONFIG) with the options as camelCase keys. A flag wins over the
  environment, which wins over the file. NO_COLOR and FORCE_COLOR are honoured.
  Details: docs/cli.md.`;

export function createProgram(io: CliIo, handlers: CliHandlers): Command {
  const helpColors = colorEnabled(io.helpColors ?? false, io.env ?? {});
  const { bold, cyan } = paint(true);
  const program = new Command('token-sim')
    .description('An in-memory simulator of a payment token vault and card-on-file sale API, with a virtual clock.')
    // The simulator's options before a command belong to it; after `openapi` they are the command's own.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
      outputError: (s, write) => write(`token-sim: ${s.replace(/^error: /, '').trim()}`),
      // Wrapping and colours come from the io, not from whatever process.stdout happens to be.
      getOutHelpWidth: () => io.helpWidth ?? 80,
      getErrHelpWidth: () => io.helpWidth ?? 80,
      // commander strips the styles below when these say no.
      getOutHasColors: () => helpColors,
      getErrHasColors: () => helpColors,
    })
    .configureHelp({ styleTitle: bold, styleOptionText: cyan, styleSubcommandText: cyan, styleArgumentText: cyan })
    .addOption(new Option('-p, --port <n>', 'port; 0 picks a free one').default(8080).argParser(portNumber))
    .addOption(new Option('--host <addr>', 'bind address').default('127.0.0.1'))
    .addOption(new Option('--profile <profile>', 'token lifetime profile').choices(['try', 'live']).default('try'))
    .option('--token-lifetime <duration>', 'ISO 8601 duration overriding the profile lifetime (e.g. P7D)')
    .option('--token-extension <duration>', 'ISO 8601 duration overriding the extension on use')
    .option('--settlement-delay <duration>', 'ISO 8601 duration until a sale settles on the virtual clock (default: P1D)')
    .option('--now <date-time>', 'start the virtual clock at this ISO 8601 date-time (default: real time)')
    .option('--frozen', 'the clock moves only when told to')
    .option('--seed <string>', 'deterministic ids, refs and codes')
    .option('--fixtures <file>', 'credentials, entities and BIN table (default: fixtures/default.json)')
    .option('--user <name:password>', 'add a credential; repeatable', collect)
    .addOption(new Option('--vendor <name>', 'media-type vendor').default('service'))
    .option('--base-url <url>', 'base of generated links (default: from the Host header)')
    .option('--allowed-host <name>', 'also answer requests whose Host names this (besides localhost, IP addresses and single-label names); * allows any; repeatable', collect)
    .option('--allowed-origin <origin>', 'let web pages of this origin (e.g. http://localhost:3000) change the simulator through /_sim; repeatable', collect)
    .option('--webhook-url <url>', 'POST every payment event to this http(s) URL (a fixtures credential\'s webhookUrl wins)')
    .option('--admin-token <token>', 'require Authorization: Bearer <token> on /_sim (visible in ps: prefer TOKEN_SIM_ADMIN_TOKEN or --admin-token-file)')
    .option('--admin-token-file <file>', 'read the admin token from this file (one line)')
    .addOption(new Option('--journal-size <n>', 'journal entries kept per tenant').default(1000).argParser(wholeNumber))
    .addOption(new Option('--journal-total <n>', 'journal entries kept across all tenants (default: 10000, or --journal-size if larger)').argParser(wholeNumber))
    .addOption(new Option('--state-limit <size>', 'the largest snapshot PUT /_sim/state takes (default: 256MiB)'))
    .option('--scenario <file>', 'scenario file, JSON or YAML; repeatable', collect)
    .option('--watch', 'reload the scenario files when they change (an invalid change keeps the previous set)')
    .option('--drain-timeout <duration>', 'ISO 8601 duration a stop lets requests in flight finish before cutting them (default: PT65S)')
    .option('--state-file <file>', 'restore the state from this file at start; save it there atomically every --state-interval and on stop')
    .option('--state-interval <duration>', 'ISO 8601 duration between saves of a changed state to --state-file (default: PT10S)')
    .option('--state-key <key>', 'seals card numbers in snapshots (default with --state-file: generated in <file>.key; prefer TOKEN_SIM_STATE_KEY)')
    .addOption(new Option('--log <format>', 'request log on stderr').choices(['pretty', 'json', 'silent']).default('pretty'))
    .option('--store <memory|url>', 'where the state lives: memory, or a redis://host:port[/db] (rediss:// for TLS) that several simulators can share (default: memory)')
    .option('--store-prefix <prefix>', 'the prefix of every Redis key, so that several simulators can share one Redis (default: token-sim:)')
    .addOption(new Option('--workers <n|auto>', 'run n processes sharing the port (auto: one per CPU core); needs --store redis://…').argParser(workerCount))
    .option('--config <file>', 'options from a JSON or YAML file (keys in camelCase)')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .addHelpText('after', ENVIRONMENT_HELP.replace('Environment and config file:', bold('Environment and config file:')))
    .action(async (flags: CliOptions, command: Command) => {
      const options = await withEnvironmentAndFile(flags, command, io);
      if (command.getOptionValueSource('adminToken') === 'cli') io.err(ADMIN_TOKEN_ON_COMMAND_LINE);
      if (command.getOptionValueSource('stateKey') === 'cli') io.err(STATE_KEY_ON_COMMAND_LINE);
      const adminToken = adminTokenOf(options.adminToken, options.adminTokenFile);
      const simulatorOptions = toSimulatorOptions({ ...options, ...(adminToken !== undefined && { adminToken }) });
      const workers = options.workers === 'auto' ? Math.min(availableParallelism(), MAX_WORKERS) : (options.workers ?? 1);
      // `auto` is refused too, even on one core: whether a command line works should not depend on the machine.
      if ((options.workers === 'auto' || workers > 1) && resolveStore(simulatorOptions.store).kind === 'memory') {
        throw new ConfigError(`--workers ${options.workers} needs --store redis://host:port: with the memory store each worker would have its own state`);
      }
      await handlers.run(simulatorOptions, options.watch ? (options.scenario ?? []) : [], workers);
    });
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the simulated API and the control API')
    .addOption(new Option('--vendor <name>', 'media-type vendor').default('service'))
    .option('--base-url <url>', 'server URL to advertise (default: http://127.0.0.1:8080)')
    .action((o: { vendor: string; baseUrl?: string }) => {
      io.out(JSON.stringify(openApiDocument({ vendor: o.vendor, version: packageVersion(), ...(o.baseUrl !== undefined && { baseUrl: o.baseUrl }) }), null, 2));
    });
  program
    .command('validate')
    .description('check scenario and fixtures files; print every problem with its JSONPath; exit 0 when all are valid, 1 otherwise')
    .argument('<files...>', 'scenario (JSON or YAML) or fixtures (JSON) files')
    .action((files: string[]) => {
      const code = handlers.validate(files);
      if (code !== 0) io.exit(code);
    });
  return program;
}

/** Runs the CLI with arguments (without `node` and the script). */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<void> {
  if (io === processIo) {
    // `token-sim openapi | head`: a reader that stops early is not an error.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  const env = io.env ?? {};
  const color = colorEnabled(io.isTTY === true, env);
  const banner = (url: string, config: SimulatorConfig, workers: number): void => {
    io.out(`token-sim listening on ${url}`);
    if (io.isTTY === true || colorForced(env)) {
      const { credentials, store, storePrefix } = config;
      const info = { version: packageVersion(), url, credentials, adminToken: config.adminToken !== undefined, store, storePrefix, workers };
      for (const line of bannerLines(info, color)) io.err(line);
    }
  };
  const runWorkers = (options: SimulatorOptions, watch: readonly string[], workers: number): void => {
    let config: SimulatorConfig;
    try {
      // Checked once here, so that a bad option is one line rather than one per worker; the banner needs it too.
      config = resolveConfig(options);
    } catch (err) {
      io.err(`token-sim: ${describeStartError(err, options)}`);
      io.exit(USAGE_ERROR);
      return;
    }
    runCluster(workers, { options, watch, isTTY: io.isTTY === true, color }, io, (url) => banner(url, config, workers));
  };
  const run = async (options: SimulatorOptions, watched: readonly string[], workers: number): Promise<void> => {
    if (workers > 1) {
      runWorkers(options, watched, workers);
      return;
    }
    let running: StartedSimulator;
    try {
      running = await startSimulator(options, { writeErr: io.err, isTTY: io.isTTY === true, color });
    } catch (err) {
      io.err(`token-sim: ${describeStartError(err, options)}`);
      io.exit(USAGE_ERROR);
      return;
    }
    const stopWatching = watched.length > 0 ? watchScenarioFiles(running, watched, io.err) : () => undefined;
    io.onStopSignal(() => {
      stopWatching();
      // close() drains for at most --drain-timeout, then cuts what is left.
      void running.close().then(() => io.exit(0));
    });
    banner(running.url, running.config, 1);
  };
  const program = createProgram(io, { run, validate: (files) => validateFiles(files, io.out) });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      io.exit(err.exitCode === 0 ? 0 : USAGE_ERROR);
      return;
    }
    io.err(`token-sim: ${err instanceof Error ? err.message : String(err)}`);
    io.exit(USAGE_ERROR);
  }
}
