/** Why a simulator could not start, as the one line the CLI prints (the primary and each worker alike). */
import { ConfigError } from '../config/fixtures.js';
import type { SimulatorOptions } from '../config/options.js';

export function describeStartError(err: unknown, options: SimulatorOptions): string {
  if (err instanceof ConfigError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${options.host ?? '127.0.0.1'}:${options.port ?? 8080}`;
  if (code === 'EADDRINUSE') return `port ${options.port} is already in use on ${options.host}`;
  if (code === 'EACCES') return `no permission to listen on ${where}`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot bind to ${where}: no such address`;
  return `cannot start: ${err instanceof Error ? err.message : String(err)}`;
}
