/** The command line: `token-sim [options]` and its commands. No side effects on import; bin/token-sim.js calls main(). */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Command, CommanderError } from 'commander';
import { ConfigError, fixturesProblems } from '../config/fixtures.js';
import { resolveConfig, type SimulatorConfig, type SimulatorOptions } from '../config/options.js';
import { resolveStore } from '../config/store.js';
import { localWebhookClient, serverCertificate, startSimulator } from '../simulator/server.js';
import { packageVersion } from '../config/version.js';
import { openApiDocument } from '../http/openapi.js';
import { record } from '../verify/recorder.js';
import { verify } from '../simulator/replay.js';
import { problemsOf, readScenarioFile, validateScenarios, type FileProblem } from '../scenarios/loader.js';
import { reportLines } from '../verify/compare.js';
import { serveUntilStopped } from './watch.js';
import { OPTIONS, type CliOptions } from './option-table.js';
import { MAX_WORKERS, adminTokenOf, commanderOption, withEnvironmentAndFile } from './option-sources.js';
import { bannerLines, colorEnabled, colorForced, paint, processIo, type CliIo } from './io.js';
import { USAGE_ERROR, describeStartError, runCluster } from './cluster.js';

/** The simulator's options from what the CLI read: every option but the CLI's own, under the library's name. */
const toSimulatorOptions = (o: Record<string, unknown>): SimulatorOptions => ({
  frozen: false,
  ...Object.fromEntries(OPTIONS.flatMap((spec) => (spec.cliOnly || o[spec.key] === undefined ? [] : [[spec.alias ?? spec.key, o[spec.key]]]))),
});

export interface CliHandlers {
  /** Starts the simulator; `watch`: the scenario files to reload on change; `workers` > 1 share the port. */
  run(options: SimulatorOptions, watch: readonly string[], workers: number): Promise<void>;
  /** Checks files; returns the exit code. */
  validate(files: readonly string[]): number;
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
      // Wrapping and colours come from the io, not from process.stdout; commander strips the styles when these say no.
      getOutHelpWidth: () => io.helpWidth ?? 80,
      getErrHelpWidth: () => io.helpWidth ?? 80,
      getOutHasColors: () => helpColors,
      getErrHasColors: () => helpColors,
    })
    .configureHelp({ styleTitle: bold, styleOptionText: cyan, styleSubcommandText: cyan, styleArgumentText: cyan });
  for (const spec of OPTIONS) program.addOption(commanderOption(spec));
  program
    .option('--config <file>', 'options from a JSON or YAML file (keys in camelCase)')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .addHelpText('after', ENVIRONMENT_HELP.replace('Environment and config file:', bold('Environment and config file:')))
    .action(async (flags: CliOptions, command: Command) => {
      const options = await withEnvironmentAndFile(flags, command, io);
      for (const { flag, key, secret } of OPTIONS) {
        if (secret !== undefined && command.getOptionValueSource(key) === 'cli') io.err(`token-sim: warning: ${flag.split(' ')[0]} on the command line is visible in ps; use ${secret}`);
      }
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
    .addOption(commanderOption(OPTIONS.find((spec) => spec.key === 'vendor')!))
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
  addRecordAndVerify(program, io);
  return program;
}

/** `token-sim record` and `token-sim verify` (contract 4.5, decision 0059): the commands around src/verify. */
function addRecordAndVerify(program: Command, io: CliIo): void {
  program
    .command('record')
    .description('a proxy to --upstream that records every exchange to a HAR file, card data and passwords replaced (docs/verify.md)')
    .requiredOption('--upstream <url>', 'the API to record, e.g. https://try.access.worldpay.com')
    .addOption(commanderOption({ ...OPTIONS.find((spec) => spec.key === 'port')!, help: 'port of the proxy; 0 picks a free one' }))
    .option('--upstream-ca <file>', 'PEM CA certificate trusted for an https upstream, besides the system store')
    .requiredOption('--out <file.har>', 'the HAR 1.2 file, written after every exchange')
    .action(async (o: { upstream: string; port: number; upstreamCa?: string; out: string }) => {
      const upstreamCa = o.upstreamCa === undefined ? undefined : readFileSync(o.upstreamCa, 'utf8');
      const recording = await record({ upstream: o.upstream, out: o.out, port: o.port, ...(upstreamCa !== undefined && { upstreamCa }) }, io.err);
      io.out(`token-sim record listening on ${recording.url}`);
      io.out(`token-sim record: recording ${o.upstream} to ${o.out}`);
      io.onStopSignal(() => {
        void recording.close().then(() => {
          io.out(`token-sim record: ${recording.exchanges()} exchanges in ${o.out}`);
          io.exit(0);
        });
      });
    });
  program
    .command('verify')
    .description('replay a recording against a fresh simulator started with the options after --; print every difference; exit 0 when none, 1 otherwise')
    .usage('[options] <file.har> [-- <simulator options>]')
    .argument('<file.har>', 'a recording (token-sim record, or any HAR 1.2 of the API); after it, -- and the simulator\'s options as token-sim takes them')
    // The simulator's options after `--` are operands past the file: declared here, they would widen every help column.
    .allowExcessArguments(true)
    .option('--report <file.json>', 'also write the differences as JSON')
    .action(async (file: string, o: { report?: string }, command: Command) => {
      const options = await simulatorOptionsOf(command.args.slice(1), io);
      if (options === undefined) return;
      const report = await verify({ har: file, options });
      for (const line of reportLines(report)) io.out(line);
      if (o.report !== undefined) await writeFile(o.report, `${JSON.stringify(report, null, 2)}\n`);
      if (report.differences.length > 0) io.exit(1);
    });
}

/** The simulator options a `token-sim` command line gives (flags only: not the environment), or undefined after a usage error. */
async function simulatorOptionsOf(args: readonly string[], io: CliIo): Promise<SimulatorOptions | undefined> {
  let options: SimulatorOptions | undefined;
  const parser = createProgram({ ...io, env: {} }, { run: (o) => Promise.resolve(void (options = o)), validate: () => 0 });
  await parser.parseAsync([...args], { from: 'user' });
  return options;
}

/** `token-sim validate <files...>`: every problem of a file with its JSONPath. */
export function problemsOfFile(path: string): FileProblem[] {
  try {
    const data = readScenarioFile(path);
    // A fixtures file has credentials or bins at the top; anything else is read as a scenario file.
    if (typeof data === 'object' && data !== null && !Array.isArray(data) && ('credentials' in data || 'bins' in data)) return fixturesProblems(data);
    validateScenarios(data);
    return [];
  } catch (err) {
    return problemsOf(err);
  }
}

/** Prints `file: ok` or one `file: $.path: message` line per problem; returns the exit code. */
function validateFiles(files: readonly string[], print: (line: string) => void): number {
  let invalid = 0;
  for (const file of files) {
    const problems = problemsOfFile(file);
    if (problems.length === 0) print(`${file}: ok`);
    else invalid++;
    for (const p of problems) print(`${file}: ${p.jsonPath}: ${p.message}`);
  }
  return invalid === 0 ? 0 : 1;
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
  const banner = (url: string, config: SimulatorConfig, workers: number, caFile: string | undefined): void => {
    io.out(`token-sim listening on ${url}`);
    // Contract 4.3: the line after the listening line names the CA file a client trusts.
    if (caFile !== undefined) io.out(`token-sim CA certificate: ${caFile}`);
    if (io.isTTY === true || colorForced(env)) {
      for (const line of bannerLines({ ...config, version: packageVersion(), url, adminToken: config.adminToken !== undefined, workers }, color)) io.err(line);
    }
  };
  const run = async (options: SimulatorOptions, watch: readonly string[], workers: number): Promise<void> => {
    try {
      if (workers > 1) {
        // Checked and the local CA's certificates made once here, before the workers read them (decisions 0038, 0056).
        const config = resolveConfig(options);
        const caFile = (await serverCertificate(config))?.caFile;
        await localWebhookClient(config);
        runCluster(workers, { options, watch, isTTY: io.isTTY === true, color }, io, (url) => banner(url, config, workers, caFile));
      } else {
        const running = await startSimulator(options, { writeErr: io.err, isTTY: io.isTTY === true, color });
        serveUntilStopped(running, watch, io);
        banner(running.url, running.config, 1, running.caFile);
      }
    } catch (err) {
      io.err(`token-sim: ${describeStartError(err, options)}`);
      io.exit(USAGE_ERROR);
    }
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
