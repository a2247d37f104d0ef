#!/usr/bin/env node
// The one file that touches process.argv. The CLI itself is compiled to dist/ by `npm install` (prepare).
import('../dist/cli/main.js').then(
  ({ main }) => main(process.argv.slice(2)),
  (err) => {
    process.stderr.write(`token-sim: cannot load dist/cli/main.js (${err.code ?? err.message}); run "npm run build"\n`);
    process.exit(2);
  },
);
