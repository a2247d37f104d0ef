// The "http (redis)" project (jest.config.js httpRedisProject): the HTTP suite with the simulator's state in
// a real Redis (test/support/sim.ts reads TOKEN_SIM_TEST_STORE).
process.env.TOKEN_SIM_TEST_STORE = 'redis';
