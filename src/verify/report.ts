/** The verify report as lines: one per difference, grouped by kind, then a summary (decision 0059). */
import { DIFFERENCE_KINDS, type Difference, type VerifyReport } from './types.js';

const side = (value: string | undefined): string => value ?? '(none)';

/** `status  #3 POST /tokens: recorded 201, simulator 406`; `field missing  #3 POST /tokens: $.tokenId (string)`. */
export function differenceLine(d: Difference): string {
  const where = `#${d.index} ${d.method} ${d.path}`;
  const at = d.at === '' ? '' : `${d.at} `;
  if (d.kind === 'field missing' || d.kind === 'field extra') return `${d.kind}  ${where}: ${at}(${side(d.recorded ?? d.simulator)})`;
  if (d.kind === 'jsonPath' || d.kind === 'link') return `${d.kind}  ${where}: ${at}${d.recorded === undefined ? 'only the simulator has it' : 'only the recording has it'}`;
  return `${d.kind}  ${where}: ${at}recorded ${side(d.recorded)}, simulator ${side(d.simulator)}`;
}

export function reportLines(report: VerifyReport): string[] {
  const lines: string[] = [];
  for (const kind of DIFFERENCE_KINDS) for (const d of report.differences) if (d.kind === kind) lines.push(differenceLine(d));
  const answers = new Set(report.differences.map((d) => d.index)).size;
  const counts = Object.entries(report.counts).map(([kind, n]) => `${kind} ${n}`).join(', ');
  const n = report.differences.length;
  lines.push(
    n === 0
      ? `no difference in ${report.requests} answer${report.requests === 1 ? '' : 's'}`
      : `${n} difference${n === 1 ? '' : 's'} in ${answers} of ${report.requests} answers (${counts})`,
  );
  return lines;
}
