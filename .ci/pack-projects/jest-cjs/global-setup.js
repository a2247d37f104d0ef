// One simulator for the run: a tenant per test file (file-1 … file-10) and a bystander, on a frozen clock.
const users = Array.from({ length: 10 }, (_, i) => `file-${i + 1}:secret`).concat('bystander:secret');
module.exports = require('token-sim/jest').globalSetup({ users, now: '2030-01-01T00:00:00Z', frozen: true });
