export { describe, expect, it } from 'vitest';
