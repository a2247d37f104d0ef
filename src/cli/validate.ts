/** `token-sim validate <files...>`: every problem of every file with its JSONPath. */
import { fixturesProblems } from '../config/fixtures.js';
import { problemsOf, readScenarioFile, validateScenarios, type FileProblem } from '../scenarios/loader.js';

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
export function validateFiles(files: readonly string[], print: (line: string) => void): number {
  let invalid = 0;
  for (const file of files) {
    const problems = problemsOfFile(file);
    if (problems.length === 0) print(`${file}: ok`);
    else invalid++;
    for (const p of problems) print(`${file}: ${p.jsonPath}: ${p.message}`);
  }
  return invalid === 0 ? 0 : 1;
}
