/**
 * The active scenario set: its rules (in the engine), its profile (applied to the vault's policy) and its
 * preloaded tokens (created at load time and again after a reset).
 */
import { profileDurations, type SimulatorConfig } from '../config/options.js';
import { VaultError, type FieldPath, type FieldProblem } from '../domain/errors.js';
import { parseInstant } from '../domain/instant.js';
import type { Merchants } from '../domain/ports.js';
import type { VaultPolicy } from '../domain/vault.js';
import type { FixtureToken } from '../config/fixtures.js';
import type { ScenarioEngine } from './engine.js';
import type { Scenario } from './schema.js';

export interface ActiveSetDeps {
  engine: ScenarioEngine;
  config: SimulatorConfig;
  /** The vault's policy object, changed in place when a scenario names a profile. */
  policy: VaultPolicy;
  merchants: Merchants;
  defaultUser: string;
  /** Creates one preloaded token (the same path as fixture tokens). */
  createToken(token: FixtureToken, username: string): void;
  /** The tenant's virtual now. */
  now(tenant: string): number;
}

export interface ActiveScenarios {
  list(): readonly Scenario[];
  /**
   * Replaces the active set, or changes nothing and throws bodyDoesNotMatchSchema when a preloaded token
   * cannot be created. `paths` locate each scenario in the submitted document (for the JSONPaths).
   */
  load(scenarios: readonly Scenario[], paths?: readonly FieldPath[]): void;
  /** Puts the set's preloaded tokens back (of one tenant, or all) after a reset. */
  preload(tenant?: string): void;
}

export function createActiveScenarios(deps: ActiveSetDeps): ActiveScenarios {
  const usernameOf = (t: FixtureToken): string => t.username ?? deps.defaultUser;

  function applyProfile(scenarios: readonly Scenario[]): void {
    const profile = scenarios.findLast((s) => s.profile !== undefined)?.profile ?? deps.config.profile;
    const durations = profileDurations(profile);
    deps.policy.lifetime = deps.config.lifetimeFixed ? deps.config.lifetime : durations.lifetime;
    deps.policy.extension = deps.config.extensionFixed ? deps.config.extension : durations.extension;
  }

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
          if (!(err instanceof VaultError)) throw err;
          if (!paths) return; // after a reset: a token the vault now refuses (say, its expiry passed) is skipped
          const inner = err.details.validationErrors?.[0];
          throw new VaultError('bodyDoesNotMatchSchema', 'A preloaded token was refused', {
            validationErrors: [{ errorName: inner?.errorName ?? 'fieldHasInvalidValue', message: inner?.message ?? err.message, path: [...(paths[i] ?? []), 'tokens', j, ...(inner?.path ?? [])] }],
          });
        }
      });
    });
  }

  return {
    list: () => deps.engine.scenarios(),

    load(scenarios, paths = scenarios.map((_, i) => (scenarios.length > 1 ? [i] : []))) {
      const problems = problemsOf(scenarios, paths);
      if (problems.length > 0) {
        throw new VaultError('bodyDoesNotMatchSchema', 'The scenario preloads tokens that cannot be created', { validationErrors: problems });
      }
      // The profile first (preloaded tokens get its lifetime), the rules last: a refusal in between
      // restores the profile and leaves the active set as it was.
      const before = { lifetime: deps.policy.lifetime, extension: deps.policy.extension };
      applyProfile(scenarios);
      try {
        preload(scenarios, undefined, paths);
      } catch (err) {
        Object.assign(deps.policy, before);
        throw err;
      }
      deps.engine.replace(scenarios);
    },

    preload: (tenant) => preload(deps.engine.scenarios(), tenant),
  };
}
