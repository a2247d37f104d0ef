/**
 * Compares the output a page shows with the output a run printed. The page may shorten it with `…` (any
 * text, on one line or across lines, whitespace around it included); a `json` block may lay its JSON out
 * over several lines where the simulator sends one (whitespace outside strings is ignored). Values that
 * change on every run (real time, durations, `Date:`, a timing from `time`) are replaced on both sides first.
 */

/** What differs on every run, replaced alike on both sides. */
const VARYING: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  [/"realTime": ?"[^"]*"/g, '"realTime": "<real time>"'],
  [/"durationMs": ?[\d.]+/g, '"durationMs": <ms>'],
  [/"(startedDateTime|enqueuedAt|lastAttemptAt|finishedAt)": ?"[^"]*"/g, '"$1": "<real time>"'],
  [/^Date: .*$/gm, 'Date: <date>'],
  // `time` of a request that a scenario delays 1500 ms: at least that, whatever the machine's load.
  [/^real\t(\d+)m([\d.]+)s$/gm, (_m, min, sec) => `real\t${Number(min) * 60 + Number(sec) >= 1.5 ? 'at least 1.5 s' : `${min}m${sec}s`}`],
  [/^(user|sys)\t.*$/gm, '$1\t<cpu>'],
  // curl's --max-time: it gives up a millisecond or two after the limit.
  [/^(curl: \(28\) Operation timed out after )(\d+)( milliseconds)/gm, (_m, a, ms, b) => `${a}${Math.floor(Number(ms) / 1000) * 1000}${b}`],
  // Without --seed the correlation id's prefix is random; its counter is not.
  [/^Correlation-Id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-/gm, 'Correlation-Id: <random>-'],
];

export function withoutVarying(text: string): string {
  let out = text.replace(/\r/g, '');
  for (const [pattern, replacement] of VARYING) out = out.replace(pattern, replacement as string);
  return out.trimEnd();
}

/** JSON text without the whitespace outside its strings (works on text that is not quite JSON, `…` and all). */
export function squeezed(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the output printed is the output shown, `…` standing for any text. */
export function matchesShown(printed: string, shown: string, json = false): boolean {
  let actual = withoutVarying(printed);
  let expected = withoutVarying(shown);
  if (json) {
    actual = squeezed(actual);
    expected = squeezed(expected);
  }
  if (!expected.includes('…')) return actual === expected;
  const pattern = expected
    .split(/[ \t]*\n?[ \t]*…[ \t]*\n?[ \t]*/)
    .map(escape)
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual);
}
