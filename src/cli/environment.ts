/** The simulator's options from `TOKEN_SIM_<OPTION>` variables (decision 0017). */
import type { Env } from './color.js';
import { closestField } from '../wire/unknown-fields.js';
import { OPTIONS, checkValue, variableOf, type OptionValue } from './option-table.js';
import { parseEnvText } from './option-parse.js';

const PREFIX = 'TOKEN_SIM_';
/** The config file's variable (the CLI reads it). */
export const CONFIG_VARIABLE = 'TOKEN_SIM_CONFIG';
/** Set by the test-runner helpers for the tests they start: not an option, and no reason to warn. */
const NOT_OPTIONS: readonly string[] = [CONFIG_VARIABLE, 'TOKEN_SIM_URL'];

export interface EnvironmentOptions {
  values: Partial<Record<string, OptionValue>>;
  /** Refused values, each naming its variable; any of them stops the CLI. */
  problems: string[];
  /** `TOKEN_SIM_*` variables that are not options: ignored, with a warning. */
  warnings: string[];
}

/** A variable set to the empty string counts as unset (as `${VAR:-}` in a compose file leaves it). */
export const valueOf = (env: Env, name: string): string | undefined => (env[name] === '' ? undefined : env[name]);

export function readEnvironment(env: Env): EnvironmentOptions {
  const values: EnvironmentOptions['values'] = {};
  const problems: string[] = [];
  const known = new Set(NOT_OPTIONS);
  for (const spec of OPTIONS) {
    const names = [variableOf(spec.key), ...(spec.alias === undefined ? [] : [variableOf(spec.alias)])];
    names.forEach((name) => known.add(name));
    const [name, other] = names.filter((name) => valueOf(env, name) !== undefined);
    if (name === undefined) continue;
    if (other !== undefined) {
      problems.push(`${name} and ${other} are the same option: set one of them`);
      continue;
    }
    const parsed = parseEnvText(spec.kind, valueOf(env, name)!);
    const problem = 'problem' in parsed ? parsed.problem : checkValue(spec, parsed.value);
    if (problem !== undefined) problems.push(`${name} ${problem}`);
    else if ('value' in parsed) values[spec.key] = parsed.value;
  }
  const warnings = Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && !known.has(name))
    .sort()
    .map((name) => {
      const meant = closestField(name.slice(PREFIX.length), [...known].map((k) => k.slice(PREFIX.length)));
      const hint = meant === undefined ? '' : ` (did you mean ${PREFIX}${meant}?)`;
      return `token-sim: warning: ${name} is not a token-sim option${hint}; it is ignored`;
    });
  return { values, problems, warnings };
}
