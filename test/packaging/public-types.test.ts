/**
 * The published declarations (decision 0047): `npm run build` generates them from the source
 * (scripts/build-types.mjs: rollup with rollup-plugin-dts), one file per entry point, for `import` (dist/) and
 * `require` (dist/cjs/). These tests read that build (`npm test` builds first): every entry point has its
 * declarations; they import nothing and compile alone without @types; they export the names listed here (this
 * file's own list) and no member of the simulator's internals. The functions the library exports hand out
 * simulators without their internals.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import ts from 'typescript';
import * as tokenSim from '../../src/index.js';
import type * as Public from '../../src/index.js';

const dist = new URL('../../dist/', import.meta.url).pathname;
const ENTRIES = ['index', 'jest', 'jest-global-setup', 'jest-global-teardown', 'vitest'];
const FILES = ENTRIES.flatMap((entry) => [`${entry}.d.ts`, `cjs/${entry}.d.ts`]);

/** What each entry point exports, values and types. */
const HELPERS = ['CA_VARIABLE', 'TestRunnerOptions', 'URL_VARIABLE', 'WorkerTenant', 'workerTenant', 'workerUsers'];
const EXPORTS: Record<string, string[]> = {
  index: [
    // values: the functions and the error classes (each a type as well)
    'connectSimulator', 'createApp', 'createSimulator', 'startSimulator', 'ConfigError', 'ScenarioFileError', 'SimulatorError',
    'ConfigErrorConstructor', 'ScenarioFileErrorConstructor', 'SimulatorErrorConstructor', 'ErrorBody', 'FileProblem',
    // options, fixtures, scenarios
    'SimulatorOptions', 'Profile', 'LogFormat', 'SimulatorIo', 'Fixtures', 'FixtureToken', 'FixtureCredential', 'EntityConfig', 'BinRange',
    'CreateTokenBody', 'BillingAddress', 'Scenario', 'Rule', 'RuleWhen', 'RuleThen', 'RiskFactor', 'ScenarioOperation', 'ApiOperation',
    // snapshots
    'StateSnapshot', 'TokenState', 'ClockState', 'ExpiryDate', 'RuleCounts', 'PaymentState', 'PaymentEventState', 'PaymentEventType',
    // journal, tokens, payments, webhooks
    'JournalEntry', 'JournalFilter', 'RequestQuery', 'Operation', 'ControlToken', 'TokenResource', 'ControlPayment', 'ControlTenant',
    'MagicValues', 'MagicName', 'MagicPostalCode', 'MagicAmount', 'MagicCard', 'MagicRiskFactor',
    'WebhookDelivery', 'WebhookState', 'WebhookFilter', 'WebhookQuery', 'WebhookFlush', 'WebhookResend', 'FlushOptions',
    // simulators, in this process and remote
    'Simulator', 'RunningSimulator', 'ListeningServer', 'HttpHandler', 'SimulatorControl', 'SimulatorClock', 'SimulatorTenant', 'TenantClock',
    'RemoteSimulator', 'RemoteTenant', 'RemoteClock', 'RemoteTenantClock', 'ConnectOptions',
    'TestRunnerOptions', 'WorkerTenant',
    // record and verify (issue 27)
    'record', 'verify', 'RecordOptions', 'Recording', 'VerifyOptions', 'VerifyReport', 'Difference', 'DifferenceKind',
  ],
  jest: ['globalSetup', 'globalTeardown', ...HELPERS],
  'jest-global-setup': ['default'],
  'jest-global-teardown': ['default'],
  vitest: ['GlobalSetupContext', 'globalSetup', 'setup', 'teardown', ...HELPERS],
};

/** Members of the composed simulator that stay off the public objects (decision 0019). */
const INTERNALS = ['vault', 'heldSockets', 'config', 'controlApp', 'sweepExpired', 'storedTokens', 'webhookDispatcher', 'webhookUrlFor'];

/** The declarations as a consumer's tsc reads them: strict, every file checked, no @types, no DOM. */
function consumerProgram(): ts.Program {
  const missing = FILES.filter((file) => !existsSync(`${dist}${file}`));
  if (missing.length > 0) throw new Error(`no build: dist/${missing.join(', dist/')} missing (run npm run build)`);
  return ts.createProgram(
    FILES.map((file) => `${dist}${file}`),
    { noEmit: true, strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false, types: [], lib: ['lib.es2022.d.ts'], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  );
}

/** Everything a declaration file takes from elsewhere: module specifiers, import types, triple-slash references, ambient modules. */
function importsOf(file: ts.SourceFile): string[] {
  const found = [...file.referencedFiles, ...file.typeReferenceDirectives, ...file.libReferenceDirectives].map((r) => `/// <reference ${r.fileName}>`);
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) found.push(node.moduleSpecifier.getText(file));
    if (ts.isImportEqualsDeclaration(node) || ts.isImportTypeNode(node)) found.push(node.getText(file));
    if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) found.push(`declare module ${node.name.text}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The names of every member declared anywhere in a file (properties and methods of interfaces, classes, object types). */
function memberNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isPropertySignature(node) || ts.isMethodSignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) && ts.isIdentifier(node.name)) {
      names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

describe('the published declarations', () => {
  const program = consumerProgram();
  const checker = program.getTypeChecker();
  const source = (file: string): ts.SourceFile => {
    const found = program.getSourceFile(`${dist}${file}`);
    if (!found) throw new Error(`dist/${file} is not in the program`);
    return found;
  };

  it('exist for every entry point, the same text for import and for require', () => {
    for (const entry of ENTRIES) {
      expect(readFileSync(`${dist}cjs/${entry}.d.ts`, 'utf8')).toBe(readFileSync(`${dist}${entry}.d.ts`, 'utf8'));
    }
  });

  it('import nothing, and compile alone with strict and skipLibCheck false, without @types', () => {
    expect(Object.fromEntries(FILES.map((file) => [file, importsOf(source(file))]))).toEqual(Object.fromEntries(FILES.map((file) => [file, []])));
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });

  it.each(ENTRIES)('export the public names of %s, and nothing more', (entry) => {
    for (const file of [`${entry}.d.ts`, `cjs/${entry}.d.ts`]) {
      const module = checker.getSymbolAtLocation(source(file));
      if (!module) throw new Error(`dist/${file} is not a module`);
      expect(checker.getExportsOfModule(module).map((s) => s.name).sort()).toEqual([...(EXPORTS[entry] ?? [])].sort());
    }
  });

  it('declare no member of the simulator’s internals, nor the composed simulator', () => {
    for (const file of FILES) {
      expect(INTERNALS.filter((name) => memberNames(source(file)).has(name))).toEqual([]);
      expect(source(file).text).not.toMatch(/\bComposedSimulator\b/);
    }
    const index = checker.getSymbolAtLocation(source('index.d.ts'));
    const exported = new Map(index ? checker.getExportsOfModule(index).map((s) => [s.name, s]) : []);
    for (const name of ['Simulator', 'RunningSimulator', 'SimulatorControl', 'SimulatorTenant']) {
      const symbol = exported.get(name);
      if (!symbol) throw new Error(`index.d.ts does not export ${name}`);
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(target)).map((p) => p.name);
      expect(members.length).toBeGreaterThan(10);
      expect(members.filter((m) => INTERNALS.includes(m))).toEqual([]);
    }
  });

  it('type the request handlers so that node, supertest and Express accept them, without node’s types', () => {
    const sim = tokenSim.createSimulator({ log: 'silent' });
    const listener: RequestListener = sim.listener;
    const app: RequestListener = tokenSim.createApp();
    const express: Public.HttpHandler = {} as Express;
    expect([typeof listener, typeof app, typeof express]).toEqual(['function', 'function', 'object']);
  });
});

describe('the library’s exports', () => {
  it('hand out a simulator without its vault, held sockets or resolved configuration', () => {
    const sim = tokenSim.createSimulator();
    expect(Object.keys(sim).filter((k) => ['vault', 'heldSockets', 'config', 'webhookDispatcher', 'webhookUrlFor'].includes(k))).toEqual([]);
    expect(Object.keys(sim).sort()).toEqual(
      ['app', 'listener', 'clock', 'requests', 'clearRequests', 'reset', 'tokens', 'payments', 'exportState', 'importState', 'loadScenarios', 'scenarios', 'webhooks', 'flushWebhooks', 'resendWebhook', 'magicValues', 'tenant'].sort(),
    );
  });

  it('start a simulator that shows its url, server and close, and nothing internal', async () => {
    const sim = await tokenSim.startSimulator({ port: 0 });
    try {
      expect(Object.keys(sim).filter((k) => ['vault', 'heldSockets', 'config'].includes(k))).toEqual([]);
      expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sim.server.listening).toBe(true);
      expect((await fetch(`${sim.url}/_sim/health`)).status).toBe(200);
    } finally {
      await sim.close();
    }
    expect(sim.server.listening).toBe(false);
  });

  it('create an app that supertest drives without a socket', async () => {
    await request(tokenSim.createApp()).get('/_sim/health').expect(200, { status: 'ok', store: { kind: 'memory' } });
  });

  it('export the error classes that the library throws', () => {
    const sim = tokenSim.createSimulator();
    expect(() => sim.importState({ format: 'nope' })).toThrow(tokenSim.SimulatorError);
    expect(() => tokenSim.createSimulator({ profile: 'beta' as Public.Profile })).toThrow(tokenSim.ConfigError);
    let fileError: unknown;
    try {
      sim.loadScenarios('/nonexistent/scenario.yaml');
    } catch (err) {
      fileError = err;
    }
    expect(fileError).toBeInstanceOf(tokenSim.ScenarioFileError);
    expect(fileError).toBeInstanceOf(tokenSim.ConfigError);
    expect((fileError as Public.ScenarioFileError).problems).toEqual([{ jsonPath: '$', message: 'cannot read the file (ENOENT)' }]);
  });

  it('export connectSimulator: the control surface over HTTP', async () => {
    const sim = await tokenSim.startSimulator({ port: 0, now: '2030-01-01T00:00:00Z', frozen: true });
    try {
      const remote = tokenSim.connectSimulator(sim.url);
      expect(await remote.tenant('merchant').clock.advance('P1D')).toBe('2030-01-02T00:00:00Z');
      expect(sim.clock.now('merchant')).toBe('2030-01-02T00:00:00Z');
    } finally {
      await sim.close();
    }
  });
});
