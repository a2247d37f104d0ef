/** The webhook dispatcher's keys (webhooks.ts), and how it shows URLs and errors. */
import type { Queue } from './queue.js';
import type { WebhookDelivery, WebhookItem } from './webhook-types.js';

/** A log entry: the delivery as shown, and the item it sends (a held one's is replaced by its release). */
export interface Entry {
  item: WebhookItem;
  record: WebhookDelivery;
}

/** A key's queue: its head is the item in progress. */
export interface KeyQueue {
  id: string;
  tenant: string;
  items: Queue<Entry>;
  phase: 'ready' | 'sending' | 'waiting';
  timer?: NodeJS.Timeout | undefined;
  abort?: AbortController | undefined;
}

/** A URL as the log shows it: a password in it is replaced by `***` (the request still sends it). */
export function shownUrl(url: string): string {
  if (!url.includes('@') || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.href;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 500);

export const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
