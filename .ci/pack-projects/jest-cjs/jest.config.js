// A CommonJS project with the default ts-jest preset: no ESM flags, no moduleNameMapper.
/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  maxWorkers: 2,
  // A cache of its own: no timings from an earlier run, which could make Jest run the files in band.
  cacheDirectory: '<rootDir>/.jest-cache',
  globalSetup: './global-setup.js',
  globalTeardown: 'token-sim/jest/global-teardown',
};
