/** --state-file (decision 0027): the state restored at start, saved atomically when it changed, sealed with the state key. */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../config/fixtures.js';
import type { Controller } from '../control/controller.js';
import { isInRange } from '../domain/duration.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { WireError } from '../wire/problems.js';
import { toJsonPath } from '../wire/validation.js';

/** Tokens converted and written per slice; the event loop serves requests between slices. */
const SAVE_SLICE = 500;

const errorCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));

/** The state key: the one given, else the key file's (created with a random key, mode 0600, when missing). */
export function resolveStateKey(stateFile: string, given: string | undefined): string {
  if (given !== undefined) return given;
  const keyFile = `${stateFile}.key`;
  try {
    writeFileSync(keyFile, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`--state-file: the key file ${keyFile} cannot be created (${errorCode(err)})`);
  }
  let key: string;
  try {
    key = readFileSync(keyFile, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new ConfigError(`--state-file: the key file ${keyFile} cannot be read (${errorCode(err)})`);
  }
  if (key.length < 16) throw new ConfigError(`--state-file: the key file ${keyFile} must hold a key of at least 16 characters`);
  return key;
}

/** A running clock kept running while the process was down: its saved time plus the time since the save. */
function advanceRunningClock(clock: unknown, elapsedMs: number): void {
  if (typeof clock !== 'object' || clock === null) return;
  const c = clock as { now?: unknown; frozen?: unknown };
  if (c.frozen !== false || typeof c.now !== 'string') return;
  const now = parseInstant(c.now);
  if (now === undefined || !isInRange(now + elapsedMs)) return;
  c.now = formatInstant(now + elapsedMs);
}

/** Removes temporary files that killed processes left beside the state file. */
function removeStaleTemporaries(stateFile: string): void {
  const dir = dirname(stateFile);
  const prefix = `${basename(stateFile)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Restores the file's state (none when it is missing); an unreadable file, or not a snapshot this key opens, is a ConfigError. */
export function restoreStateFile(stateFile: string, controller: Controller): void {
  removeStaleTemporaries(stateFile);
  let text: string;
  let savedAt: number;
  try {
    text = readFileSync(stateFile, 'utf8');
    savedAt = statSync(stateFile).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ConfigError(`--state-file ${stateFile} cannot be read (${errorCode(err)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`--state-file ${stateFile} is not valid JSON (${(err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ')})`);
  }
  if (typeof data === 'object' && data !== null) {
    const { clock, tenantClocks } = data as { clock?: unknown; tenantClocks?: Record<string, unknown> };
    // advanceRunningClock passes over what is not a clock.
    for (const c of [clock, ...Object.values(tenantClocks ?? {})]) advanceRunningClock(c, Math.max(0, Date.now() - savedAt));
  }
  try {
    controller.importState(data);
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    const first = err.problems[0];
    const where = first?.path === undefined ? '' : ` at ${toJsonPath(first.path)}`;
    const sealed = err.problems.some((p) => p.path?.some((segment) => segment === 'sealedCardNumber'));
    const hint = sealed ? ' (sealed with another state key? give the same --state-key, or keep the key file beside it)' : '';
    throw new ConfigError(`--state-file ${stateFile} cannot be restored: ${first?.message ?? err.message}${where}${hint}`);
  }
}

/** Writes the state to `<file>.tmp-<pid>` in slices and a final newline, syncs it, renames it over the file, syncs the directory. */
async function saveStateFile(stateFile: string, controller: Controller): Promise<void> {
  const text = controller.exportStateText(undefined, { slice: SAVE_SLICE, mask: false });
  const temporary = `${stateFile}.tmp-${process.pid}`;
  try {
    const file = await open(temporary, 'w', 0o600);
    await writeFile(file, text).then(() => file.write('\n')).then(() => file.sync()).finally(() => file.close());
    await rename(temporary, stateFile);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  // The rename itself is durable once the directory is synced (not every platform lets a directory be opened).
  try {
    const dir = await open(dirname(stateFile), 'r');
    await dir.sync().finally(() => dir.close());
  } catch {
    // best effort
  }
}

export function createStateSaver(stateFile: string, intervalMs: number, controller: Controller, writeErr: (line: string) => void) {
  let changed = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;

  async function save(): Promise<void> {
    try {
      await saveStateFile(stateFile, controller);
      if (failing) writeErr(`token-sim: the state is saved to ${stateFile} again`);
      failing = false;
    } catch (err) {
      changed = true;
      // One line per run of failures, not one per interval.
      if (!failing) writeErr(`token-sim: cannot save the state to ${stateFile} (${errorCode(err)}); retrying every interval`);
      failing = true;
    }
  }

  /** Saves when anything changed since the last save began (waits for one under way first). */
  async function saveIfChanged(): Promise<void> {
    while (running) await running;
    if (!changed) return;
    changed = false;
    running = save().finally(() => (running = undefined));
    await running;
  }

  return {
    /** Something may have changed: the next periodic save writes the state. */
    touch: (): void => void (changed = true),
    /** Starts the periodic saves (an unref'd timer: it never keeps the process alive). */
    start(): void {
      timer ??= setInterval(() => void (running === undefined && saveIfChanged()), intervalMs);
      timer.unref();
    },
    /** Stops the periodic saves, waits for a save under way, then saves once more if anything changed. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await saveIfChanged();
    },
  };
}
