/**
 * The public types (src/public-types.ts, written by hand so that the published declarations import nothing)
 * stay the types the code uses: identical to the zod schemas' outputs and the internal interfaces, checked
 * by the compiler (`npm run typecheck`, and ts-jest when this file runs). The functions the library exports
 * hand out simulators without their internals.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import type * as z from 'zod';
import type * as Internal from '../../src/config/options.js';
import type { fixtureToken, fixturesSchema, ConfigError as InternalConfigError } from '../../src/config/fixtures.js';
import type { JournalFilter as InternalJournalFilter } from '../../src/control/journal.js';
import type { JournalEntry as InternalJournalEntry, Operation as InternalOperation } from '../../src/control/journal-entry.js';
import type { ClockState as InternalClockState, TokenState as InternalTokenState, stateSchema } from '../../src/control/state.js';
import type { PaymentState as InternalPaymentState } from '../../src/control/payment-state.js';
import type { ErrorBody as InternalErrorBody } from '../../src/http/errors.js';
import type { WebhookDelivery as InternalWebhookDelivery, WebhookFlush as InternalWebhookFlush, WebhookState as InternalWebhookState } from '../../src/infra/webhooks.js';
import type { FileProblem as InternalFileProblem, ScenarioFileError as InternalScenarioFileError } from '../../src/scenarios/loader.js';
import type { ScenarioOperation as InternalScenarioOperation, ruleSchema, scenarioSchema } from '../../src/scenarios/schema.js';
import type { SimulatorIo as InternalSimulatorIo } from '../../src/simulator/compose.js';
import type * as Facade from '../../src/simulator/facade.js';
import type * as Remote from '../../src/simulator/remote.js';
import type { RunningSimulator as InternalRunningSimulator } from '../../src/simulator/server.js';
import type { strictCreateTokenBody } from '../../src/wire/schemas.js';
import * as tokenSim from '../../src/index.js';
import type * as Public from '../../src/index.js';

/** True only when A and B are the same type (not merely assignable to each other). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
/** For interfaces of methods: assignable both ways, with the same members. */
type SameSurface<A, B> = [A] extends [B] ? ([B] extends [A] ? Equals<keyof A, keyof B> : false) : false;
/** Compiles only with `true`: `holds<Equals<A, B>>()`. */
const holds = <T extends true>(): T | true => true;

describe('the public types', () => {
  it('are the zod schemas’ outputs: options, fixtures, scenarios, rules, snapshots', () => {
    expect(holds<Equals<Public.SimulatorOptions, Internal.SimulatorOptions>>()).toBe(true);
    expect(holds<Equals<Public.Profile, Internal.Profile>>()).toBe(true);
    expect(holds<Equals<Public.LogFormat, Internal.LogFormat>>()).toBe(true);
    expect(holds<Equals<Public.Fixtures, z.output<typeof fixturesSchema>>>()).toBe(true);
    expect(holds<Equals<Public.FixtureToken, z.output<typeof fixtureToken>>>()).toBe(true);
    // The body as files preload it: the API's own schema also takes null for an optional field (decision 0032).
    expect(holds<Equals<Public.CreateTokenBody, z.output<typeof strictCreateTokenBody>>>()).toBe(true);
    expect(holds<Equals<Public.Scenario, z.output<typeof scenarioSchema>>>()).toBe(true);
    expect(holds<Equals<Public.Rule, z.output<typeof ruleSchema>>>()).toBe(true);
    expect(holds<Equals<Public.ScenarioOperation, InternalScenarioOperation>>()).toBe(true);
    expect(holds<Equals<Public.StateSnapshot, z.output<typeof stateSchema>>>()).toBe(true);
    expect(holds<Equals<Public.TokenState, InternalTokenState>>()).toBe(true);
    expect(holds<Equals<Public.PaymentState, InternalPaymentState>>()).toBe(true);
    expect(holds<Equals<Public.ClockState, InternalClockState>>()).toBe(true);
  });

  it('are the internal types: journal entries and filters, error bodies, io, control tokens', () => {
    expect(holds<Equals<Public.JournalEntry, InternalJournalEntry>>()).toBe(true);
    expect(holds<Equals<Public.Operation, InternalOperation>>()).toBe(true);
    expect(holds<Equals<Public.JournalFilter, InternalJournalFilter>>()).toBe(true);
    expect(holds<Equals<Public.RequestQuery, Facade.RequestQuery>>()).toBe(true);
    expect(holds<Equals<Public.ErrorBody, InternalErrorBody>>()).toBe(true);
    expect(holds<Equals<Public.FileProblem, InternalFileProblem>>()).toBe(true);
    expect(holds<Equals<Public.SimulatorIo, InternalSimulatorIo>>()).toBe(true);
    expect(holds<Equals<Public.ControlToken, Facade.ControlToken>>()).toBe(true);
    expect(holds<Equals<Public.ControlPayment, Facade.ControlPayment>>()).toBe(true);
    expect(holds<Equals<Public.ConnectOptions, Remote.ConnectOptions>>()).toBe(true);
    expect(holds<Equals<Public.WebhookDelivery, InternalWebhookDelivery>>()).toBe(true);
    expect(holds<Equals<Public.WebhookState, InternalWebhookState>>()).toBe(true);
    expect(holds<Equals<Public.WebhookFlush, InternalWebhookFlush>>()).toBe(true);
    expect(holds<Equals<Public.WebhookFilter, Facade.WebhookFilter>>()).toBe(true);
    expect(holds<Equals<Public.WebhookQuery, Facade.WebhookQuery>>()).toBe(true);
    expect(holds<Equals<Public.FlushOptions, Facade.FlushOptions>>()).toBe(true);
  });

  it('are the control surfaces of a simulator in this process and of a remote one', () => {
    expect(holds<SameSurface<Public.SimulatorClock, Facade.SimulatorClock>>()).toBe(true);
    expect(holds<SameSurface<Public.TenantClock, Facade.TenantClock>>()).toBe(true);
    expect(holds<SameSurface<Public.SimulatorTenant, Facade.SimulatorTenant>>()).toBe(true);
    expect(holds<SameSurface<Public.SimulatorControl, Facade.SimulatorControl>>()).toBe(true);
    expect(holds<SameSurface<Public.RemoteSimulator, Remote.RemoteSimulator>>()).toBe(true);
    expect(holds<SameSurface<Public.RemoteTenant, Remote.RemoteTenant>>()).toBe(true);
    expect(holds<SameSurface<Public.RemoteClock, Remote.RemoteSimulator['clock']>>()).toBe(true);
    expect(holds<SameSurface<Public.RemoteTenantClock, Remote.RemoteTenant['clock']>>()).toBe(true);
  });

  it('show a simulator without its internals: every other member, and nothing more', () => {
    type Internals = 'vault' | 'heldSockets' | 'config' | 'controlApp' | 'sweepExpired' | 'storedTokens' | 'webhookDispatcher' | 'webhookUrlFor';
    expect(holds<Equals<keyof Public.Simulator, keyof Facade.Simulator>>()).toBe(true);
    expect(holds<Equals<Exclude<keyof Facade.ComposedSimulator, keyof Facade.Simulator>, Internals>>()).toBe(true);
    expect(holds<Equals<keyof Public.RunningSimulator, Exclude<keyof InternalRunningSimulator, Internals>>>()).toBe(true);
    expect(holds<[Facade.Simulator] extends [Public.Simulator] ? true : false>()).toBe(true);
    expect(holds<[InternalRunningSimulator] extends [Public.RunningSimulator] ? true : false>()).toBe(true);
    expect(holds<Equals<'vault' & keyof Public.RunningSimulator, never>>()).toBe(true);
  });

  it('give the errors their classes’ members', () => {
    expect(holds<[Facade.SimulatorError] extends [Public.SimulatorError] ? true : false>()).toBe(true);
    expect(holds<Equals<keyof Public.SimulatorError, keyof Facade.SimulatorError>>()).toBe(true);
    expect(holds<Equals<keyof Public.ConfigError, keyof InternalConfigError>>()).toBe(true);
    expect(holds<Equals<keyof Public.ScenarioFileError, keyof InternalScenarioFileError>>()).toBe(true);
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
      ['app', 'listener', 'clock', 'requests', 'clearRequests', 'reset', 'tokens', 'payments', 'exportState', 'importState', 'loadScenarios', 'scenarios', 'webhooks', 'flushWebhooks', 'tenant'].sort(),
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
