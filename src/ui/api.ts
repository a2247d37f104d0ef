/** The dashboard's calls to the control API (/_sim), the shapes they answer, and how values are shown. */
import type { ClockState, ControlPayment, ControlTenant, ControlToken, ErrorBody, JournalEntry, WebhookDelivery } from '../../dist/index.js';

// The shapes /_sim answers, as the package publishes them: the dashboard declares none of them again.
export type { ClockState, ControlPayment, ControlTenant, ControlToken, JournalEntry, WebhookDelivery };

const TOKEN_KEY = 'token-sim.adminToken';

/** A refused call: its status and error body, with its field problems (none: empty). */
export type ApiError = Required<Omit<ErrorBody, 'headerName'>> & { status: number };

class CallFailed extends Error {
  constructor(readonly detail: ApiError) {
    super(`${detail.status} ${detail.errorName}: ${detail.message}`);
  }
}

let onUnauthorized: () => void = () => undefined;

/** What a 401 does (the page asks for the admin token). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** The admin token in use, kept for this tab in sessionStorage; or null. */
export const currentAdminToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);

export function setAdminToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

export function url(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const q = params.toString();
  return `/_sim${path}${q === '' ? '' : `?${q}`}`;
}

export async function call(method: string, path: string, query: Record<string, string | number | undefined> = {}, body?: { type: string; text: string }): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const adminToken = currentAdminToken();
  if (adminToken !== null) headers.Authorization = `Bearer ${adminToken}`;
  if (body) headers['Content-Type'] = body.type;
  const res = await fetch(url(path, query), { method, headers, ...(body ? { body: body.text } : {}), cache: 'no-store' });
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    // A body that is not JSON leaves the status only.
    const parsed = (await res.json().catch(() => ({}))) as Partial<ApiError>;
    throw new CallFailed({
      status: res.status,
      errorName: parsed.errorName ?? `HTTP ${res.status}`,
      message: parsed.message ?? res.statusText,
      validationErrors: parsed.validationErrors ?? [],
    });
  }
  return res;
}

export async function getJson<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  return (await (await call('GET', path, query)).json()) as T;
}

export const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Makes a call, says what it did (`done`, or what `done` reads in the answer) and refreshes; or says why it failed,
 * and shows a refusal's detail with `refusal` (cleared as the call starts). */
export async function perform(
  { say, refresh }: Pick<SectionProps, 'say' | 'refresh'>,
  run: () => Promise<Response>,
  done: string | ((answer: Response) => Promise<string>),
  refusal?: (detail: ApiError | undefined) => void,
): Promise<void> {
  refusal?.(undefined);
  try {
    const answer = await run();
    say(typeof done === 'string' ? done : await done(answer));
    refresh();
  } catch (e) {
    if (e instanceof CallFailed) refusal?.(e.detail);
    say(describe(e), 'error');
  }
}

export function formatAmount(value: number | undefined, currency: string | undefined): string {
  if (typeof value !== 'number') return '—';
  if (!currency) return String(value);
  try {
    const fmt = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
    return fmt.format(value / 10 ** digits);
  } catch {
    return `${value} ${currency}`;
  }
}

export function formatSpan(ms: number): string {
  if (ms <= 0) return 'expired';
  const d = Math.floor(ms / 86_400_000);
  const h = Math.floor((ms % 86_400_000) / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return `${Math.max(m, 0)} min`;
}

export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const time = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.000Z$|Z$/, ' UTC') : '—');

export type Say = (text: string, kind?: 'ok' | 'error') => void;

export interface SectionProps {
  tenant: string;
  version: number;
  refresh: () => void;
  say: Say;
}

