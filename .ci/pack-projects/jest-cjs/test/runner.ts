export { describe, expect, it } from '@jest/globals';
