/** The active scenario sets: their rules (in the engine), the profile each puts in force (`Profiles`) and their preloaded tokens. */
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
  if (!(err instanceof WireError || err instanceof DomainError)) return undefined;
  return (err instanceof WireError ? err.problems[0] : fieldProblemOf(err.code, err.message)) ?? { errorName: 'fieldHasInvalidValue', message: err.message };
}

/** The profile a set puts in force: its last named profile, where the command line did not fix the durations. */
function profileOf(config: SimulatorConfig, scenarios: readonly Scenario[]): LifetimeProfile | undefined {
  const named = scenarios.findLast((s) => s.profile !== undefined)?.profile;
  if (named === undefined) return undefined;
  const durations = profileDurations(named);
  return Object.freeze({
    lifetime: config.lifetimeFixed ? config.lifetime : durations.lifetime,
    extension: config.extensionFixed ? config.extension : durations.extension,
  });
}

/** A set's preloaded tokens, each with its tenant (its username, else the set's tenant, else the first credential) and path. */
function tokensOf(deps: ActiveSetDeps, scenarios: readonly Scenario[], owner: string | undefined, paths: readonly FieldPath[] = []) {
  return scenarios.flatMap((s, i) =>
    (s.tokens ?? []).map((token, j) => ({ token, username: token.username ?? owner ?? deps.defaultUser, path: [...(paths[i] ?? []), 'tokens', j] })),
  );
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
  const configured = profileOf(deps.config, [{ name: 'configured', profile: deps.config.profile }]) as LifetimeProfile;
  let global = configured;
  /** Tenants whose own set names a profile. */
  const own = new Map<string, LifetimeProfile>();

  /** Sets the profile a set puts in force; returns how to undo it. */
  function applyProfile(scenarios: readonly Scenario[], tenant: string | undefined): () => void {
    const before = tenant === undefined ? global : own.get(tenant);
    const put = (profile: LifetimeProfile | undefined): void => {
      if (tenant === undefined) global = profile ?? configured;
      else if (profile) own.set(tenant, profile);
      else own.delete(tenant);
    };
    put(profileOf(deps.config, scenarios));
    return () => put(before);
  }

  function restoreSet(scenarios: readonly Scenario[], tenant?: string): void {
    applyProfile(scenarios, tenant);
    deps.engine.replace(scenarios, tenant);
  }

  return {
    /** The global set, or one tenant's own set. */
    list: (tenant?: string): readonly Scenario[] => deps.engine.scenarios(tenant),

    /**
     * Replaces a set, or changes nothing and throws bodyDoesNotMatchSchema when a preloaded token cannot be
     * created; `paths` locate each scenario in the submitted document.
     */
    load(scenarios: readonly Scenario[], paths: readonly FieldPath[] = scenarios.map((_, i) => (scenarios.length > 1 ? [i] : [])), tenant?: string): void {
      const problems = problemsOf(deps, scenarios, paths, tenant);
      if (problems.length > 0) throw schemaError(problems, 'The scenario preloads tokens that cannot be created');
      // The profile first (preloaded tokens get its lifetime), the rules last, so a refusal changes nothing.
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
      for (const tenant of deps.engine.tenantSets().keys()) restoreSet([], tenant);
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
