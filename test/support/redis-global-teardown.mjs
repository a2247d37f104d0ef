// The "http (redis)" project's global tear-down: stops the redis-server its set-up started.
export { teardown as default } from './redis-global.mjs';
