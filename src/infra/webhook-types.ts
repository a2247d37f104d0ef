/** The shapes of webhook delivery (decision 0030): what is queued, what the log shows, what the dispatcher offers. */

/** What the payment domain hands over, its body rendered. */
export interface WebhookItem extends Pick<WebhookDelivery, 'tenant' | 'url' | 'eventId' | 'type'> {
  /** Deliveries of one key go out in order, one at a time (a payment's reference). */
  orderKey: string;
  body: string;
  mediaType: string;
  /** The delivery's id, unique per store (decision 0056): what the log shows and a resend names. Absent: the log's seq. */
  id?: string | undefined;
  /** The label of the scenario rule that shaped this delivery (decision 0056). */
  rule?: string | undefined;
  /** A rule's `drop`: never sent, logged as dropped. */
  drop?: true | undefined;
  /** A rule's `reorder` or `delay`: held back, not handed to the dispatcher until released (store/webhook-gate.ts). */
  hold?: WebhookHold | undefined;
}

/** Where a held delivery waits (decision 0056): the payment's next event, the tenant's clock at `until` (epoch ms), or the release of `after`. */
export type WebhookHold = { next: true } | { until: number } | { after: string };

/** A delivery's states: `held` by a rule until released, `dropped` by a rule (never sent), the others as they come. */
export const WEBHOOK_STATES = ['pending', 'held', 'delivered', 'failed', 'dropped'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

/** One webhook delivery as the log shows it (docs/webhooks.md). */
export interface WebhookDelivery {
  /** Position in the log (a cursor for paging). */
  seq: number;
  /** Stable and unique per store (decision 0056): `POST /_sim/webhooks/<id>/resend` sends it again. */
  id: string;
  eventId: string;
  type: string;
  /** The scenario rule that duplicated, held or dropped it, or null. */
  rule: string | null;
  url: string;
  tenant: string;
  attempts: number;
  /** The HTTP status of the last attempt, or null (no attempt yet, or a network error or timeout). */
  lastStatus: number | null;
  /** Why the last attempt failed, or null. */
  lastError: string | null;
  state: WebhookState;
  /** Real time (ISO 8601): when it was queued, last tried, delivered or given up. */
  enqueuedAt: string;
  lastAttemptAt: string | null;
  finishedAt: string | null;
}

export interface WebhookFilter extends Partial<Pick<WebhookDelivery, 'tenant' | 'state'>> {
  /** Entries after this seq (the `next` of an earlier page). */
  since?: number;
  /** At most this many, the oldest that pass. */
  limit?: number;
}

export type WebhookRequest = Pick<WebhookItem, 'url' | 'body' | 'mediaType'> & { timeoutMs: number; signal: AbortSignal };

/** Sends one POST: resolves with the answer's status, rejects on a network error, a timeout or an abort. */
export type WebhookSend = (request: WebhookRequest) => Promise<{ status: number }>;

/** The dispatcher's limits by default (decision 0030): `concurrency` across keys; each retry waits twice the last. */
export const WEBHOOK_DEFAULTS = { concurrency: 8, attempts: 5, backoffMs: 100, timeoutMs: 5000, logSize: 10_000 } as const;

export interface WebhookOptions extends Partial<Record<keyof typeof WEBHOOK_DEFAULTS, number>> {
  send: WebhookSend;
  /** Called after send's own release of resources at close (the sender's sockets). */
  onClose?: () => void;
  /** Told when an item is done: delivered, or given up after its last attempt. */
  onSettled?: (item: WebhookItem, state: 'delivered' | 'failed') => void;
}

/** What a resend queued (decision 0056): the new delivery's id, its event's id (unchanged), and the delivery it sends again. */
export interface WebhookResend {
  id: string;
  eventId: string;
  resendOf: string;
}

/** What a flush found: whether the queue emptied, and how many deliveries are still pending. */
export interface WebhookFlush {
  flushed: boolean;
  pending: number;
}
