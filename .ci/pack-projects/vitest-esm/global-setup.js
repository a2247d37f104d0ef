// One simulator for the run: a tenant per test file (file-1 … file-10) and a bystander, on a frozen clock.
import { globalSetup } from 'token-sim/vitest';

const users = Array.from({ length: 10 }, (_, i) => `file-${i + 1}:secret`).concat('bystander:secret');
export default globalSetup({ users, now: '2030-01-01T00:00:00Z', frozen: true });
