// The "http (redis)" project (jest.config.js httpRedisProject): the HTTP suite on the node:http lane, with
// the simulator's state in a real Redis (test/support/sim.ts reads TOKEN_SIM_TEST_STORE).
process.env.TOKEN_SIM_ADAPTER = 'lane';
process.env.TOKEN_SIM_TEST_STORE = 'redis';
