/**
 * The active scenario set: its rules (in the engine), its profile (the lifetime profile new tokens are
 * created under, read by the vault through `Profiles`) and its preloaded tokens (created at load time and
 * again after a reset).
 */
import { profileDurations, type SimulatorConfig } from '../config/options.js';
import { DomainError } from '../domain/errors.js';
import { parseInstant } from '../wire/instant.js';
import type { LifetimeProfile, Merchants, Profiles } from '../domain/ports.js';
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

export interface ActiveScenarios extends Profiles {
  list(): readonly Scenario[];
  /**
   * Replaces the active set, or changes nothing and throws bodyDoesNotMatchSchema when a preloaded token
   * cannot be created. `paths` locate each scenario in the submitted document (for the JSONPaths).
   */
  load(scenarios: readonly Scenario[], paths?: readonly FieldPath[]): void;
  /** Puts the set's preloaded tokens back (of one tenant, or all) after a reset. */
  preload(tenant?: string): void;
}

/** What a refused preloaded token amounts to, as one problem (its path relative to the token); undefined for a bug. */
export function problemOfRefusal(err: unknown): FieldProblem | undefined {
  if (err instanceof WireError) return err.problems[0] ?? { errorName: 'fieldHasInvalidValue', message: err.message };
  if (err instanceof DomainError) return fieldProblemOf(err.code, err.message) ?? { errorName: 'fieldHasInvalidValue', message: err.message };
  return undefined;
}

export function createActiveScenarios(deps: ActiveSetDeps): ActiveScenarios {
  const usernameOf = (t: FixtureToken): string => t.username ?? deps.defaultUser;

  /** The profile a set puts in force: its last named profile, where the command line did not fix the durations. */
  function profileOf(scenarios: readonly Scenario[]): LifetimeProfile {
    const named = scenarios.findLast((s) => s.profile !== undefined)?.profile ?? deps.config.profile;
    const durations = profileDurations(named);
    return Object.freeze({
      lifetime: deps.config.lifetimeFixed ? deps.config.lifetime : durations.lifetime,
      extension: deps.config.extensionFixed ? deps.config.extension : durations.extension,
    });
  }
  let current = profileOf([]);

  /** What would stop a token from being preloaded, found before anything changes. */
  function problemsOf(scenarios: readonly Scenario[], paths: readonly FieldPath[]): FieldProblem[] {
    return scenarios.flatMap((s, i) =>
      (s.tokens ?? []).flatMap((t, j): FieldProblem[] => {
        const path = [...(paths[i] ?? []), 'tokens', j];
        const username = usernameOf(t);
        if (!deps.merchants.entityFor(username, t.merchant.entity)) {
          return [{ errorName: 'fieldHasInvalidValue', message: `no credential '${username}' with the entity '${t.merchant.entity}'`, path }];
        }
        const expiry = t.tokenExpiryDateTime === undefined ? undefined : parseInstant(t.tokenExpiryDateTime);
        if (expiry !== undefined && expiry <= deps.now(username)) {
          return [{ errorName: 'fieldHasInvalidValue', message: 'tokenExpiryDateTime must be in the future', path: [...path, 'tokenExpiryDateTime'] }];
        }
        return [];
      }),
    );
  }

  function preload(scenarios: readonly Scenario[], tenant: string | undefined, paths?: readonly FieldPath[]): void {
    scenarios.forEach((scenario, i) => {
      (scenario.tokens ?? []).forEach((token, j) => {
        const username = usernameOf(token);
        if (tenant !== undefined && username !== tenant) return;
        try {
          deps.createToken(token, username);
        } catch (err) {
          const inner = problemOfRefusal(err);
          if (!inner) throw err;
          if (!paths) return; // after a reset: a token the vault now refuses (say, its expiry passed) is skipped
          throw schemaError(
            [{ errorName: inner.errorName, message: inner.message, path: [...(paths[i] ?? []), 'tokens', j, ...(inner.path ?? [])] }],
            'A preloaded token was refused',
          );
        }
      });
    });
  }

  return {
    list: () => deps.engine.scenarios(),

    load(scenarios, paths = scenarios.map((_, i) => (scenarios.length > 1 ? [i] : []))) {
      const problems = problemsOf(scenarios, paths);
      if (problems.length > 0) {
        throw schemaError(problems, 'The scenario preloads tokens that cannot be created');
      }
      // The profile first (preloaded tokens get its lifetime), the rules last: a refusal in between
      // restores the profile and leaves the active set as it was.
      const before = current;
      current = profileOf(scenarios);
      try {
        preload(scenarios, undefined, paths);
      } catch (err) {
        current = before;
        throw err;
      }
      deps.engine.replace(scenarios);
    },

    current: () => current,

    preload: (tenant) => preload(deps.engine.scenarios(), tenant),
  };
}
