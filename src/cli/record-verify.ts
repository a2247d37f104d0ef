/** `token-sim record` and `token-sim verify` (contract 4.5, decision 0059): the commands around src/verify. */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { SimulatorOptions } from '../config/options.js';
import { record } from '../verify/recorder.js';
import { verify } from '../simulator/replay.js';
import { reportLines } from '../verify/report.js';
import type { CliIo } from './io.js';
import { portNumber } from './option-sources.js';

export interface RecordVerifyDeps {
  io: CliIo;
  /** The simulator's options from command-line arguments, read as `token-sim [options]` reads them. */
  simulatorOptions: (args: readonly string[]) => Promise<SimulatorOptions | undefined>;
}

export function addRecordAndVerify(program: Command, { io, simulatorOptions }: RecordVerifyDeps): void {
  program
    .command('record')
    .description('a proxy to --upstream that records every exchange to a HAR file, card data and passwords replaced (docs/verify.md)')
    .requiredOption('--upstream <url>', 'the API to record, e.g. https://try.access.worldpay.com')
    .addOption(new Option('-p, --port <n>', 'port of the proxy; 0 picks a free one').argParser(portNumber).default(8080))
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
      const options = await simulatorOptions(command.args.slice(1));
      if (options === undefined) return;
      const report = await verify({ har: file, options });
      for (const line of reportLines(report)) io.out(line);
      if (o.report !== undefined) await writeFile(o.report, `${JSON.stringify(report, null, 2)}\n`);
      if (report.differences.length > 0) io.exit(1);
    });
}
