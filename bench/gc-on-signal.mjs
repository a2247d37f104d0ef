// Preloaded into the token-sim process of the memory figure (node --expose-gc --import this file): on
// SIGUSR2, two full garbage collections, then one line on stdout with the process's memory after them, so
// that RSS is read without the garbage a busy process carries between its own major collections. Nothing
// else changes: no hot path runs this code.
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`gc done ${JSON.stringify({ rss, heapUsed })}\n`);
});
