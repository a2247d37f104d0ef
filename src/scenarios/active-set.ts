/**
 * The active scenario set: its rules (in the engine), its profile (applied to the vault's policy) and its
 * preloaded tokens (created at load time and again after a reset).
 */
import { profileDurations, type SimulatorConfig } from '../config/options.js';
import { VaultError } from '../domain/errors.js';
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
}

export interface ActiveScenarios {
  list(): readonly Scenario[];
  /** Replaces the active set; refuses (changing nothing) tokens whose credential or entity is unknown. */
  load(scenarios: readonly Scenario[]): void;
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

  function preload(scenarios: readonly Scenario[], tenant: string | undefined, strict: boolean): void {
    for (const scenario of scenarios) {
      for (const token of scenario.tokens ?? []) {
        const username = usernameOf(token);
        if (tenant !== undefined && username !== tenant) continue;
        try {
          deps.createToken(token, username);
        } catch (err) {
          if (strict || !(err instanceof VaultError)) throw err;
        }
      }
    }
  }

  return {
    list: () => deps.engine.scenarios(),

    load(scenarios) {
      const problems = scenarios.flatMap((s, i) =>
        (s.tokens ?? []).flatMap((t, j) =>
          deps.merchants.entityFor(usernameOf(t), t.merchant.entity)
            ? []
            : [{ errorName: 'fieldHasInvalidValue' as const, message: `no credential '${usernameOf(t)}' with the entity '${t.merchant.entity}'`, path: scenarios.length > 1 ? [i, 'tokens', j] : ['tokens', j] }],
        ),
      );
      if (problems.length > 0) {
        throw new VaultError('bodyDoesNotMatchSchema', 'The scenario preloads tokens for unknown credentials', { validationErrors: problems });
      }
      deps.engine.replace(scenarios);
      applyProfile(scenarios);
      preload(scenarios, undefined, true);
    },

    preload: (tenant) => preload(deps.engine.scenarios(), tenant, false),
  };
}
