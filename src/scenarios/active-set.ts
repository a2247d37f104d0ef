/**
 * The active scenario set: its rules (in the engine), its profile (the lifetime profile new tokens are
 * created under, read by the vault through `Profiles`) and its preloaded tokens (created at load time and
 * again after a reset).
 */
import { profileDurations, type SimulatorConfig } from '../config/options.js';
import { DomainError } from '../domain/errors.js';
import { parseInstant } from '../wire/instant.js';
import type { LifetimeProfile, Merchants } from '../domain/ports.js';
import { WireError, fieldProblemOf, schemaError, type FieldPath, type FieldProblem } from '../wire/problems.js';
import type { FixtureToken } from '../config/fixtures.js';
import type { ScenarioEngine } from './engine.js';
import type { Scenario } from './schema.js';

export interface ActiveSetDeps {
  engine: ScenarioEngine;
  config: SimulatorConfig;
  merchants: Merchants;
  defaultUser: string;
  /** Creates one preloaded token (the same path as fixture tokens). */
  createToken(token: FixtureToken, username: string): void;
  /** The tenant's virtual now. */
  now(tenant: string): number;
}

/** What a refused preloaded token amounts to, as one problem (its path relative to the token); undefined for a bug. */
export function problemOfRefusal(err: unknown): FieldProblem | undefined {
  if (err instanceof WireError) return err.problems[0] ?? { errorName: 'fieldHasInvalidValue', message: err.message };
  if (err instanceof DomainError) return fieldProblemOf(err.code, err.message) ?? { errorName: 'fieldHasInvalidValue', message: err.message };
  return undefined;
}

/** A set's preloaded tokens, each with its tenant (its username, else the set's tenant, else the first credential) and path. */
function tokensOf(deps: ActiveSetDeps, scenarios: readonly Scenario[], owner: string | undefined, paths: readonly FieldPath[] = []) {
  return scenarios.flatMap((s, i) =>
    (s.tokens ?? []).map((token, j) => ({ token, username: token.username ?? owner ?? deps.defaultUser, path: [...(paths[i] ?? []), 'tokens', j] })),
  );
}

/** The profile a set puts in force: its last named profile, where the command line did not fix the durations. */
function profileOf(config: SimulatorConfig, scenarios: readonly Scenario[], fallback: LifetimeProfile | undefined): LifetimeProfile | undefined {
  const named = scenarios.findLast((s) => s.profile !== undefined)?.profile;
  if (named === undefined) return fallback;
  const durations = profileDurations(named);
  return Object.freeze({
    lifetime: config.lifetimeFixed ? config.lifetime : durations.lifetime,
    extension: config.extensionFixed ? config.extension : durations.extension,
  });
}

/** What would stop a token from being preloaded, found before anything changes. */
function problemsOf(deps: ActiveSetDeps, scenarios: readonly Scenario[], paths: readonly FieldPath[], owner: string | undefined): FieldProblem[] {
  return tokensOf(deps, scenarios, owner, paths).flatMap(({ token: t, username, path }): FieldProblem[] => {
    if (owner !== undefined && username !== owner) {
      return [{ errorName: 'fieldHasInvalidValue', message: `a scenario of the tenant '${owner}' preloads that tenant's tokens only`, path: [...path, 'username'] }];
    }
    if (!deps.merchants.entityFor(username, t.merchant.entity)) {
      return [{ errorName: 'fieldHasInvalidValue', message: `no credential '${username}' with the entity '${t.merchant.entity}'`, path }];
    }
    const expiry = t.tokenExpiryDateTime === undefined ? undefined : parseInstant(t.tokenExpiryDateTime);
    if (expiry !== undefined && expiry <= deps.now(username)) {
      return [{ errorName: 'fieldHasInvalidValue', message: 'tokenExpiryDateTime must be in the future', path: [...path, 'tokenExpiryDateTime'] }];
    }
    return [];
  });
}

/** Creates a set's preloaded tokens (those of `tenant` only, when named). */
function preload(deps: ActiveSetDeps, scenarios: readonly Scenario[], owner: string | undefined, tenant: string | undefined, paths?: readonly FieldPath[]): void {
  for (const { token, username, path } of tokensOf(deps, scenarios, owner, paths)) {
    if (tenant !== undefined && username !== tenant) continue;
    try {
      deps.createToken(token, username);
    } catch (err) {
      const inner = problemOfRefusal(err);
      if (!inner) throw err;
      if (!paths) continue; // after a reset: a token the vault now refuses (say, its expiry passed) is skipped
      throw schemaError(
        [{ errorName: inner.errorName, message: inner.message, path: [...path, ...(inner.path ?? [])] }],
        'A preloaded token was refused',
      );
    }
  }
}

/** The active sets, and the profile in force for each tenant (`Profiles`). */
export type ActiveScenarios = ReturnType<typeof createActiveScenarios>;

export function createActiveScenarios(deps: ActiveSetDeps) {
  const configured = profileOf(deps.config, [{ name: 'configured', profile: deps.config.profile }], undefined) as LifetimeProfile;
  let global = configured;
  /** Tenants whose own set names a profile. */
  const own = new Map<string, LifetimeProfile>();

  /** Sets the profile a set puts in force; returns how to undo it. */
  function applyProfile(scenarios: readonly Scenario[], tenant: string | undefined): () => void {
    if (tenant === undefined) {
      const before = global;
      global = profileOf(deps.config, scenarios, configured) as LifetimeProfile;
      return () => void (global = before);
    }
    const before = own.get(tenant);
    const next = profileOf(deps.config, scenarios, undefined);
    if (next) own.set(tenant, next);
    else own.delete(tenant);
    return () => void (before ? own.set(tenant, before) : own.delete(tenant));
  }

  function restoreSet(scenarios: readonly Scenario[], tenant?: string): void {
    applyProfile(scenarios, tenant);
    deps.engine.replace(scenarios, tenant);
  }

  return {
    /** The global set, or one tenant's own set. */
    list: (tenant?: string): readonly Scenario[] => deps.engine.scenarios(tenant),

    /**
     * Replaces the global set, or one tenant's own set; or changes nothing and throws bodyDoesNotMatchSchema
     * when a preloaded token cannot be created. `paths` locate each scenario in the submitted document (for
     * the JSONPaths). A tenant's set preloads tokens for that tenant only.
     */
    load(scenarios: readonly Scenario[], paths: readonly FieldPath[] = scenarios.map((_, i) => (scenarios.length > 1 ? [i] : [])), tenant?: string): void {
      const problems = problemsOf(deps, scenarios, paths, tenant);
      if (problems.length > 0) {
        throw schemaError(problems, 'The scenario preloads tokens that cannot be created');
      }
      // The profile first (preloaded tokens get its lifetime), the rules last: a refusal in between
      // restores the profile and leaves the active set as it was.
      const undo = applyProfile(scenarios, tenant);
      try {
        preload(deps, scenarios, tenant, undefined, paths);
      } catch (err) {
        undo();
        throw err;
      }
      deps.engine.replace(scenarios, tenant);
    },

    current: (tenant: string): LifetimeProfile => own.get(tenant) ?? global,

    /** Replaces every tenant's own set, preloading nothing (a state import brings the tokens). */
    restoreTenantSets(sets: Readonly<Record<string, readonly Scenario[]>>): void {
      for (const tenant of deps.engine.tenantSets().keys()) deps.engine.replace([], tenant);
      own.clear();
      for (const [tenant, scenarios] of Object.entries(sets)) restoreSet(scenarios, tenant);
    },

    /** Replaces the global set, or one tenant's own set, preloading nothing (a shared store's replica brings the tokens). */
    restoreSet,

    /** Puts the sets' preloaded tokens back (of one tenant, or all) after a reset. */
    preload(tenant?: string): void {
      preload(deps, deps.engine.scenarios(), undefined, tenant);
      for (const [owner, scenarios] of deps.engine.tenantSets()) {
        if (tenant === undefined || owner === tenant) preload(deps, scenarios, owner, owner);
      }
    },
  };
}
