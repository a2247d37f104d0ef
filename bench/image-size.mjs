// The container image's size for npm run bench (issue 25): what `npm run test:image` measured last
// (reports/image.json), else the size podman gives for the image it built, else why it is unknown.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPORT = fileURLToPath(new URL('../reports/image.json', import.meta.url));
/** The image `npm run test:image` builds (scripts/test-image.mjs). */
const IMAGE = 'localhost/token-sim:test';
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** The figure's text: the size, what it is made of and where it comes from; or "unknown" and why. */
export function imageSize() {
  let report;
  try {
    report = JSON.parse(readFileSync(REPORT, 'utf8'));
  } catch (err) {
    report = undefined;
    if (err.code !== 'ENOENT') return `unknown (reports/image.json cannot be read: ${err.message})`;
  }
  if (report !== undefined) {
    return `${mib(report.bytes)}: ${mib(report.baseBytes)} of base (${report.base}) + ${mib(report.addedBytes)} of token-sim (npm run test:image, ${report.measuredAt.slice(0, 10)})`;
  }
  try {
    const bytes = Number(execFileSync(process.env.PODMAN || 'podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
    return `${mib(bytes)} (podman image inspect ${IMAGE}; its base's share unknown)`;
  } catch (err) {
    const why = err.code === 'ENOENT' ? 'podman not found' : `no image ${IMAGE}`;
    return `unknown (no reports/image.json and ${why}: run npm run test:image first)`;
  }
}
