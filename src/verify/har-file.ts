/**
 * A HAR 1.2 file that is valid after every exchange (decision 0059): it is written whole once, ending with the
 * tail `]}}`, and each exchange then overwrites that tail with `,<entry>]}}` in one positional write, so the file
 * grows by the entry and costs nothing in proportion to what it already holds. Writes are queued in order.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { HarExchange } from './har.js';

const TAIL = ']}}\n';

export interface HarFile {
  /** Queues an entry; the returned promise settles once it is in the file. */
  append(entry: HarExchange): Promise<void>;
  readonly count: () => number;
  /** Waits for queued writes and closes the file. */
  close(): Promise<void>;
}

export async function createHarFile(path: string, creator: { name: string; version: string }, comment: string): Promise<HarFile> {
  const file: FileHandle = await open(path, 'w');
  const head = `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"comment":${JSON.stringify(comment)},"entries":[`;
  await file.write(head + TAIL, 0);
  let end = Buffer.byteLength(head);
  let count = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: Error | undefined;
  return {
    append(entry) {
      const text = Buffer.from(`${count === 0 ? '' : ','}${JSON.stringify(entry)}${TAIL}`);
      count++;
      const at = end;
      end += text.length - Buffer.byteLength(TAIL);
      queue = queue.then(async () => {
        if (failure !== undefined) return;
        try {
          await file.write(text, 0, text.length, at);
        } catch (err) {
          failure = err instanceof Error ? err : new Error('the HAR file could not be written');
        }
      });
      return queue;
    },
    count: () => count,
    async close() {
      await queue;
      await file.close();
      if (failure instanceof Error) throw failure;
    },
  };
}
