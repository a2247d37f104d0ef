/**
 * The dashboard (`GET /_sim/ui`, decision 0035): a small page that reads and drives one simulator through its
 * control API (/_sim) only. Preact + htm, bundled by scripts/build-ui.mjs into dist/ui/app.js; no request to
 * any other host. With `--admin-token`, a 401 asks for the token once; it is kept in sessionStorage and sent
 * as `Authorization: Bearer` (as `?access_token=` on the journal's event stream, which cannot set headers).
 */
import { render } from 'preact';
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

declare const __SHIPPED_SCENARIOS__: { file: string; text: string }[];

// ---------------------------------------------------------------------------------------------- the API

const TOKEN_KEY = 'token-sim.adminToken';

interface ApiError {
  status: number;
  errorName: string;
  message: string;
  validationErrors: { errorName: string; message: string; jsonPath: string }[];
}

class CallFailed extends Error {
  constructor(readonly detail: ApiError) {
    super(`${detail.status} ${detail.errorName}: ${detail.message}`);
  }
}

let adminToken: string | null = sessionStorage.getItem(TOKEN_KEY);
let onUnauthorized: () => void = () => undefined;

function setAdminToken(token: string | null): void {
  adminToken = token;
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

function url(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const q = params.toString();
  return `/_sim${path}${q === '' ? '' : `?${q}`}`;
}

async function call(method: string, path: string, query: Record<string, string | number | undefined> = {}, body?: { type: string; text: string }): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (adminToken !== null) headers.Authorization = `Bearer ${adminToken}`;
  if (body) headers['Content-Type'] = body.type;
  const res = await fetch(url(path, query), { method, headers, ...(body ? { body: body.text } : {}), cache: 'no-store' });
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    let parsed: Partial<ApiError> = {};
    try {
      parsed = (await res.json()) as Partial<ApiError>;
    } catch {
      // not JSON: keep the status only
    }
    throw new CallFailed({
      status: res.status,
      errorName: parsed.errorName ?? `HTTP ${res.status}`,
      message: parsed.message ?? res.statusText,
      validationErrors: parsed.validationErrors ?? [],
    });
  }
  return res;
}

async function getJson<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  return (await (await call('GET', path, query)).json()) as T;
}

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

// ------------------------------------------------------------------------------------------ formatting

function formatAmount(value: number | undefined, currency: string | undefined): string {
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

function formatSpan(ms: number): string {
  if (ms <= 0) return 'expired';
  const d = Math.floor(ms / 86_400_000);
  const h = Math.floor((ms % 86_400_000) / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return `${Math.max(m, 0)} min`;
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const time = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.000Z$|Z$/, ' UTC') : '—');

// -------------------------------------------------------------------------------------------- shapes

interface Clock {
  now: string;
  frozen: boolean;
}
interface Tenant {
  name: string;
  clock: Clock;
  ownClock: boolean;
  tokens: number;
  payments: number;
}
interface TokenItem {
  tenant: string;
  tokenId: string;
  namespace?: string;
  description?: string;
  tokenExpiryDateTime?: string;
  paymentInstrument?: { cardHolderName?: string; cardNumber?: string; last4Digits?: string; networkType?: string; cardExpiryDate?: { month: number; year: number } };
}
interface PaymentItem {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  outcome: string;
  lastEvent: string;
  amount: number;
  currency: string;
  refunded: number;
  allowedActions: string[];
  createdAt: string;
  events: { type: string; at: string; amount?: number; reference?: string }[];
}
interface JournalEntry {
  seq: number;
  tenant: string | null;
  operation: string;
  method: string;
  path: string;
  status: number;
  errorName?: string;
  virtualTime: string;
  realTime: string;
  durationMs: number;
  rule: string | null;
  [field: string]: unknown;
}
interface Delivery {
  seq: number;
  eventId: string;
  type: string;
  url: string;
  tenant: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  state: string;
  enqueuedAt: string;
}

type Say = (text: string, kind?: 'ok' | 'error') => void;

interface SectionProps {
  tenant: string;
  version: number;
  refresh: () => void;
  say: Say;
}

// ------------------------------------------------------------------------------------------ sections

function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: string | undefined } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(undefined)),
      (e: unknown) => live && setError(describe(e)),
    );
    return () => {
      live = false;
    };
  }, deps);
  return { data, error };
}

function Problem({ error }: { error: string | undefined }) {
  return error ? html`<p class="problem" role="alert">${error}</p>` : null;
}

function ClockSection({ tenant, version, refresh, say }: SectionProps) {
  const { data: clock, error } = useLoad(() => getJson<Clock>('/clock', { tenant }), [tenant, version]);
  const [by, setBy] = useState('PT30M');
  const [at, setAt] = useState('');
  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      say(what);
      refresh();
    } catch (e) {
      say(describe(e), 'error');
    }
  };
  const advance = (duration: string) => act(`Clock advanced by ${duration}`, () => call('POST', '/clock/advance', { tenant }, { type: 'application/json', text: JSON.stringify({ by: duration }) }));
  const put = (body: { now: string; frozen?: boolean }, what: string) => act(what, () => call('PUT', '/clock', { tenant }, { type: 'application/json', text: JSON.stringify(body) }));
  const toggleFreeze = async () => {
    const current = await getJson<Clock>('/clock', { tenant }).catch(() => clock);
    if (current) await put({ now: current.now, frozen: !current.frozen }, current.frozen ? 'Clock unfrozen' : 'Clock frozen');
  };
  return html`<section aria-labelledby="clock-h" class="card">
    <h2 id="clock-h">Clock</h2>
    <${Problem} error=${error} />
    <p class="now"><span class="label">Now</span> <output id="clock-now" aria-label="Virtual time">${clock ? time(clock.now) : '…'}</output>
      <span class=${clock?.frozen ? 'badge frozen' : 'badge'}>${clock ? (clock.frozen ? 'frozen' : 'running') : ''}</span></p>
    <div class="row" role="group" aria-label="Advance the clock">
      <button type="button" onClick=${() => advance('PT1H')}>Advance 1 hour</button>
      <button type="button" onClick=${() => advance('P1D')}>Advance 1 day</button>
      <button type="button" onClick=${() => advance('P8D')}>Advance 8 days</button>
    </div>
    <form class="row" onSubmit=${(e: Event) => (e.preventDefault(), advance(by.trim()))}>
      <label for="clock-by">Duration (ISO 8601)</label>
      <input id="clock-by" name="by" value=${by} onInput=${(e: Event) => setBy((e.target as HTMLInputElement).value)} placeholder="PT30M" autocomplete="off" />
      <button type="submit">Advance</button>
    </form>
    <form class="row" onSubmit=${(e: Event) => (e.preventDefault(), put({ now: at.trim() }, `Clock set to ${at.trim()}`))}>
      <label for="clock-at">Set time (ISO 8601)</label>
      <input id="clock-at" name="now" value=${at} onInput=${(e: Event) => setAt((e.target as HTMLInputElement).value)} placeholder="2030-01-01T00:00:00Z" autocomplete="off" />
      <button type="submit">Set clock</button>
    </form>
    <div class="row">
      <button type="button" onClick=${toggleFreeze} aria-pressed=${clock?.frozen ? 'true' : 'false'}>${clock?.frozen ? 'Unfreeze clock' : 'Freeze clock'}</button>
    </div>
  </section>`;
}

function TokensSection({ tenant, version, refresh, say, now }: SectionProps & { now: string | undefined }) {
  const { data, error } = useLoad(() => getJson<{ tokens: TokenItem[]; next: string | null }>('/tokens', { tenant, limit: 500 }), [tenant, version]);
  const nowMs = now ? Date.parse(now) : NaN;
  const remove = async (t: TokenItem) => {
    try {
      await call('DELETE', `/tokens/${encodeURIComponent(t.tokenId)}`, { tenant: t.tenant });
      say(`Token ${t.tokenId} deleted`);
      refresh();
    } catch (e) {
      say(describe(e), 'error');
    }
  };
  const tokens = data?.tokens ?? [];
  return html`<section aria-labelledby="tokens-h" class="card wide">
    <h2 id="tokens-h">Tokens <span class="count">${data ? `${tokens.length}${data.next ? '+' : ''}` : ''}</span></h2>
    <${Problem} error=${error} />
    ${tokens.length === 0
      ? html`<p class="empty">No tokens.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="Token table"><table>
      <caption class="sr-only">Tokens of ${tenant}</caption>
      <thead><tr><th scope="col">Token id</th><th scope="col">Card</th><th scope="col">Holder</th><th scope="col">Namespace</th><th scope="col">Expires (virtual)</th><th scope="col">Time left</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${tokens.map((t) => {
        const pi = t.paymentInstrument ?? {};
        const card = pi.cardNumber ?? (pi.last4Digits ? `•••• ${pi.last4Digits}` : '—');
        const left = t.tokenExpiryDateTime && !Number.isNaN(nowMs) ? formatSpan(Date.parse(t.tokenExpiryDateTime) - nowMs) : '—';
        return html`<tr key=${t.tokenId}>
          <td><code>${t.tokenId}</code></td>
          <td>${card}${pi.networkType ? html` <span class="muted">${pi.networkType}</span>` : ''}</td>
          <td>${pi.cardHolderName ?? '—'}</td>
          <td>${t.namespace ?? '—'}</td>
          <td>${time(t.tokenExpiryDateTime)}</td>
          <td>${left}</td>
          <td><button type="button" class="danger" aria-label=${`Delete token ${t.tokenId}`} onClick=${() => remove(t)}>Delete</button></td>
        </tr>`;
      })}</tbody></table></div>`}
  </section>`;
}

function PaymentsSection({ tenant, version, refresh, say }: SectionProps) {
  const { data, error } = useLoad(() => getJson<{ payments: PaymentItem[]; next: string | null }>('/payments', { tenant, limit: 500 }), [tenant, version]);
  const act = async (p: PaymentItem, action: 'refund' | 'reversal') => {
    try {
      await call('POST', `/payments/${encodeURIComponent(p.paymentId)}/${action}`, { tenant: p.tenant });
      say(`${action === 'refund' ? 'Refund' : 'Reversal'} of ${p.transactionReference} requested`);
      refresh();
    } catch (e) {
      say(describe(e), 'error');
    }
  };
  const payments = data?.payments ?? [];
  return html`<section aria-labelledby="payments-h" class="card wide">
    <h2 id="payments-h">Payments <span class="count">${data ? `${payments.length}${data.next ? '+' : ''}` : ''}</span></h2>
    <${Problem} error=${error} />
    ${payments.length === 0
      ? html`<p class="empty">No payments.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="Payment table"><table>
      <caption class="sr-only">Payments of ${tenant}</caption>
      <thead><tr><th scope="col">Reference</th><th scope="col">Outcome</th><th scope="col">Last event</th><th scope="col">Amount</th><th scope="col">Refunded</th><th scope="col">Created (virtual)</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${payments.map(
        (p) => html`<tr key=${p.paymentId}>
          <td><code>${p.transactionReference}</code></td>
          <td>${p.outcome}</td>
          <td>${p.lastEvent}</td>
          <td class="num">${formatAmount(p.amount, p.currency)}</td>
          <td class="num">${formatAmount(p.refunded, p.currency)}</td>
          <td>${time(p.createdAt)}</td>
          <td class="actions">
            <button type="button" aria-label=${`Refund payment ${p.transactionReference}`} disabled=${!p.allowedActions.includes('refund')} onClick=${() => act(p, 'refund')}>Refund</button>
            <button type="button" aria-label=${`Reverse payment ${p.transactionReference}`} disabled=${!p.allowedActions.includes('reversal')} onClick=${() => act(p, 'reversal')}>Reverse</button>
          </td>
        </tr>`,
      )}</tbody></table></div>`}
  </section>`;
}

const OPERATIONS = ['createToken', 'getToken', 'updateToken', 'deleteToken', 'queryTokens', 'sale', 'refund', 'partialRefund', 'reversal', 'paymentEvents', 'unknown'];
const JOURNAL_KEEP = 200;

function JournalSection({ tenants, tenant, onEntry }: { tenants: string[]; tenant: string; onEntry: () => void }) {
  const [who, setWho] = useState(tenant);
  const [operation, setOperation] = useState('');
  const [status, setStatus] = useState('');
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  const [note, setNote] = useState('');
  const [connected, setConnected] = useState(false);
  const onEntryRef = useRef(onEntry);
  onEntryRef.current = onEntry;
  useEffect(() => setWho(tenant), [tenant]);
  const statusOk = status === '' || /^\d{1,3}$/.test(status);
  useEffect(() => {
    if (!statusOk) return undefined;
    setEntries([]);
    setNote('');
    const source = new EventSource(url('/requests/stream', { tenant: who === '*' ? undefined : who, operation, status, access_token: adminToken ?? undefined }));
    source.addEventListener('open', () => setConnected(true));
    source.addEventListener('error', () => setConnected(false));
    source.addEventListener('request', (ev) => {
      try {
        const entry = JSON.parse((ev as MessageEvent<string>).data) as JournalEntry;
        setEntries((list) => [entry, ...list.filter((e) => e.seq !== entry.seq)].slice(0, JOURNAL_KEEP));
        onEntryRef.current();
      } catch {
        // a broken event: skip it
      }
    });
    source.addEventListener('gap', (ev) => {
      let skipped = '';
      try {
        skipped = String((JSON.parse((ev as MessageEvent<string>).data) as { skipped?: number }).skipped ?? '');
      } catch {
        // no count: say it without one
      }
      setNote(`Some journal entries were skipped${skipped ? ` (${skipped})` : ''}: the page read them too slowly.`);
    });
    return () => source.close();
  }, [who, operation, status, statusOk]);
  return html`<section aria-labelledby="journal-h" class="card wide">
    <h2 id="journal-h">Journal <span class=${connected ? 'badge live' : 'badge'}>${connected ? 'live' : 'not connected'}</span></h2>
    <form class="row filters" onSubmit=${(e: Event) => e.preventDefault()} aria-label="Journal filters">
      <label for="journal-tenant">Journal tenant</label>
      <select id="journal-tenant" value=${who} onChange=${(e: Event) => setWho((e.target as HTMLSelectElement).value)}>
        <option value="*">All tenants</option>
        ${tenants.map((t) => html`<option value=${t}>${t}</option>`)}
      </select>
      <label for="journal-operation">Operation</label>
      <select id="journal-operation" value=${operation} onChange=${(e: Event) => setOperation((e.target as HTMLSelectElement).value)}>
        <option value="">Any operation</option>
        ${OPERATIONS.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>
      <label for="journal-status">Status</label>
      <input id="journal-status" inputmode="numeric" size="4" value=${status} aria-invalid=${statusOk ? 'false' : 'true'} onInput=${(e: Event) => setStatus((e.target as HTMLInputElement).value.trim())} placeholder="any" />
    </form>
    ${note ? html`<p class="problem" role="status">${note}</p>` : null}
    ${entries.length === 0
      ? html`<p class="empty">No requests yet. New ones appear here as they are made.</p>`
      : html`<ol class="journal" aria-label="Journal entries">${entries.map(
          (e) => html`<li key=${e.seq}><details>
            <summary><span class="seq">#${e.seq}</span> <span class=${`status s${String(e.status).charAt(0)}`}>${e.status}</span> <code>${e.method} ${e.path}</code>${' '}
              <span class="muted">${e.operation} · ${e.tenant ?? 'no tenant'} · ${time(e.virtualTime)}${e.rule ? html` · rule <strong>${e.rule}</strong>` : ''}</span></summary>
            <div class="exchange">
              <h3>Request</h3>
              <pre tabindex="0">${JSON.stringify({ headers: e.requestHeaders, query: e.query, body: e.requestBody ?? e.requestText }, null, 2)}</pre>
              <h3>Response</h3>
              <pre tabindex="0">${JSON.stringify({ status: e.status, errorName: e.errorName, headers: e.responseHeaders, body: e.responseBody ?? e.responseText }, null, 2)}</pre>
            </div>
          </details></li>`,
        )}</ol>`}
  </section>`;
}

function ScenariosSection({ tenant, version, refresh, say }: SectionProps) {
  const [scope, setScope] = useState<'global' | 'tenant'>('tenant');
  const query = { tenant: scope === 'tenant' ? tenant : undefined };
  const { data, error } = useLoad(() => getJson<{ scenarios: { name?: string; description?: string; rules?: { id?: string }[] }[] }>('/scenarios', query), [tenant, scope, version]);
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<ApiError | undefined>(undefined);
  const where = scope === 'tenant' ? `${tenant}'s set` : 'the global set';
  const apply = async (yaml: string, what: string) => {
    setProblems(undefined);
    try {
      await call('PUT', '/scenarios', query, { type: 'application/yaml', text: yaml });
      say(`${what} loaded into ${where}`);
      refresh();
    } catch (e) {
      if (e instanceof CallFailed) setProblems(e.detail);
      say(describe(e), 'error');
    }
  };
  const clear = async () => {
    try {
      await call('DELETE', '/scenarios', query);
      say(`Cleared ${where}`);
      refresh();
    } catch (e) {
      say(describe(e), 'error');
    }
  };
  const upload = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setText(await file.text());
  };
  const loaded = data?.scenarios ?? [];
  return html`<section aria-labelledby="scenarios-h" class="card wide">
    <h2 id="scenarios-h">Scenarios</h2>
    <div class="row">
      <label for="scenario-scope">Scenario set</label>
      <select id="scenario-scope" value=${scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value as 'global' | 'tenant')}>
        <option value="tenant">Tenant ${tenant}</option>
        <option value="global">Global</option>
      </select>
      <button type="button" class="danger" onClick=${clear}>Clear scenarios</button>
    </div>
    <${Problem} error=${error} />
    <h3>Active in ${where}</h3>
    ${loaded.length === 0
      ? html`<p class="empty">None.</p>`
      : html`<ul class="scenarios">${loaded.map(
          (s, i) => html`<li key=${i}><strong>${s.name ?? `scenario ${i + 1}`}</strong>${s.description ? ` — ${s.description}` : ''}
            ${s.rules?.length ? html` <span class="muted">(rules: ${s.rules.map((r) => r.id ?? '?').join(', ')})</span>` : ''}</li>`,
        )}</ul>`}
    <h3>Shipped scenarios</h3>
    <ul class="shipped" aria-label="Shipped scenarios">${__SHIPPED_SCENARIOS__.map(
      (s) => html`<li key=${s.file}><button type="button" aria-label=${`Load scenario ${s.file.replace(/\.yaml$/, '')}`} onClick=${() => apply(s.text, s.file)}>${s.file.replace(/\.yaml$/, '')}</button></li>`,
    )}</ul>
    <h3>Your own</h3>
    <form onSubmit=${(e: Event) => (e.preventDefault(), apply(text, 'Scenario'))}>
      <div class="row"><label for="scenario-file">Upload YAML file</label>
        <input id="scenario-file" type="file" accept=".yaml,.yml,.json,application/yaml,application/json" onChange=${upload} /></div>
      <label for="scenario-text">Scenario YAML</label>
      <textarea id="scenario-text" rows="10" spellcheck="false" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
        aria-describedby="scenario-problems"></textarea>
      <div class="row"><button type="submit">Apply scenarios</button></div>
    </form>
    <div id="scenario-problems" aria-live="polite">${problems
      ? html`<div class="problem" role="alert"><p>${problems.errorName}: ${problems.message}</p>
          ${problems.validationErrors.length > 0
            ? html`<ul>${problems.validationErrors.map((v) => html`<li><code>${v.jsonPath}</code> ${v.errorName}: ${v.message}</li>`)}</ul>`
            : null}</div>`
      : null}</div>
  </section>`;
}

function StateSection({ tenant, refresh, say }: SectionProps) {
  const [scope, setScope] = useState<'all' | 'tenant'>('all');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [problems, setProblems] = useState<ApiError | undefined>(undefined);
  const query = { tenant: scope === 'tenant' ? tenant : undefined };
  const download = async () => {
    try {
      const blob = await (await call('GET', '/state', query)).blob();
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `token-sim-state${scope === 'tenant' ? `-${tenant}` : ''}.json`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      say('State exported');
    } catch (e) {
      say(describe(e), 'error');
    }
  };
  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return say('Choose a state file first', 'error');
    setProblems(undefined);
    try {
      await call('PUT', '/state', query, { type: 'application/json', text: await file.text() });
      say('State imported');
      refresh();
    } catch (err) {
      if (err instanceof CallFailed) setProblems(err.detail);
      say(describe(err), 'error');
    }
  };
  return html`<section aria-labelledby="state-h" class="card">
    <h2 id="state-h">State</h2>
    <div class="row">
      <label for="state-scope">State scope</label>
      <select id="state-scope" value=${scope} onChange=${(e: Event) => setScope((e.target as HTMLSelectElement).value as 'all' | 'tenant')}>
        <option value="all">Everything</option>
        <option value="tenant">Tenant ${tenant} only</option>
      </select>
    </div>
    <div class="row"><button type="button" onClick=${download}>Export state</button></div>
    <form class="row" onSubmit=${upload}>
      <label for="state-file">State file</label>
      <input id="state-file" type="file" accept=".json,application/json" onChange=${(e: Event) => setFile((e.target as HTMLInputElement).files?.[0])} />
      <button type="submit">Import state</button>
    </form>
    ${problems
      ? html`<div class="problem" role="alert"><p>${problems.errorName}: ${problems.message}</p>
          <ul>${problems.validationErrors.map((v) => html`<li><code>${v.jsonPath}</code> ${v.message}</li>`)}</ul></div>`
      : null}
  </section>`;
}

function WebhooksSection({ tenant, version }: SectionProps) {
  const { data, error } = useLoad(() => getJson<{ webhooks: Delivery[]; count: number }>('/webhooks', { tenant, limit: 200 }), [tenant, version]);
  const list = data?.webhooks ?? [];
  return html`<section aria-labelledby="webhooks-h" class="card wide">
    <h2 id="webhooks-h">Webhook deliveries <span class="count">${data ? data.count : ''}</span></h2>
    <${Problem} error=${error} />
    ${list.length === 0
      ? html`<p class="empty">No deliveries.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="Webhook delivery table"><table>
      <thead><tr><th scope="col">#</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last result</th><th scope="col">Queued (real time)</th></tr></thead>
      <tbody>${list.map(
        (d) => html`<tr key=${d.seq}><td>${d.seq}</td><td>${d.type}</td><td><code>${d.url}</code></td><td>${d.state}</td><td class="num">${d.attempts}</td>
          <td>${d.lastError ?? (d.lastStatus === null ? '—' : d.lastStatus)}</td><td>${time(d.enqueuedAt)}</td></tr>`,
      )}</tbody></table></div>`}
  </section>`;
}

// ------------------------------------------------------------------------------------------- the page

function TokenForm({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  return html`<main id="main"><section aria-labelledby="login-h" class="card login">
    <h1 id="login-h">token-sim dashboard</h1>
    <p>This simulator runs with <code>--admin-token</code>. Enter it once; it is kept for this browser tab only.</p>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      if (value === '') return;
      setAdminToken(value);
      onDone();
    }}>
      <label for="admin-token">Admin token</label>
      <input id="admin-token" name="admin-token" type="password" autocomplete="current-password" required value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
      <div class="row"><button type="submit">Sign in</button></div>
    </form>
  </section></main>`;
}

function App() {
  const [needToken, setNeedToken] = useState(false);
  const [tenants, setTenants] = useState<Tenant[]>([]);
  const [tenant, setTenant] = useState<string>(() => sessionStorage.getItem('token-sim.tenant') ?? '');
  const [version, setVersion] = useState(0);
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const pending = useRef<number | undefined>(undefined);

  onUnauthorized = () => {
    setAdminToken(null);
    setNeedToken(true);
  };
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  // The journal stream drives refreshes: at most one every 750 ms however busy the API is.
  const soon = useCallback(() => {
    if (pending.current !== undefined) return;
    pending.current = window.setTimeout(() => {
      pending.current = undefined;
      setVersion((v) => v + 1);
    }, 750);
  }, []);
  const say: Say = useCallback((text: string, kind: 'ok' | 'error' = 'ok') => setMessage({ text, kind }), []);

  useEffect(() => {
    if (needToken) return;
    getJson<{ tenants: Tenant[] }>('/tenants').then(
      (d) => {
        setTenants(d.tenants);
        setProblem(undefined);
        setTenant((t) => (d.tenants.some((x) => x.name === t) ? t : (d.tenants[0]?.name ?? '')));
      },
      (e: unknown) => setProblem(describe(e)),
    );
  }, [needToken, version]);
  useEffect(() => {
    if (tenant) sessionStorage.setItem('token-sim.tenant', tenant);
  }, [tenant]);
  // A running clock moves on its own: a gentle poll while the page is visible.
  useEffect(() => {
    const id = window.setInterval(() => document.visibilityState === 'visible' && setVersion((v) => v + 1), 15_000);
    return () => window.clearInterval(id);
  }, []);

  if (needToken) return html`<${TokenForm} onDone=${() => (setNeedToken(false), refresh())} />`;
  const current = tenants.find((t) => t.name === tenant);
  const props: SectionProps = { tenant, version, refresh, say };
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top" role="banner">
      <h1>token-sim dashboard</h1>
      <div class="row">
        <label for="tenant-picker">Tenant</label>
        <select id="tenant-picker" value=${tenant} onChange=${(e: Event) => setTenant((e.target as HTMLSelectElement).value)}>
          ${tenants.map((t) => html`<option value=${t.name}>${t.name}</option>`)}
        </select>
        ${current ? html`<span class="muted">${plural(current.tokens, 'token')} · ${plural(current.payments, 'payment')} · ${current.ownClock ? 'own clock' : 'shared clock'}</span>` : null}
        ${adminToken !== null ? html`<button type="button" onClick=${() => (setAdminToken(null), setNeedToken(true))}>Forget admin token</button>` : null}
      </div>
      <nav aria-label="Sections"><ul>
        <li><a href="#clock-h">Clock</a></li><li><a href="#tokens-h">Tokens</a></li><li><a href="#payments-h">Payments</a></li>
        <li><a href="#journal-h">Journal</a></li><li><a href="#scenarios-h">Scenarios</a></li><li><a href="#state-h">State</a></li><li><a href="#webhooks-h">Webhooks</a></li>
      </ul></nav>
    </header>
    <div class="message" role="status" aria-live="polite">${message ? html`<p class=${message.kind}>${message.text}</p>` : null}</div>
    <main id="main" tabindex="-1">
      <${Problem} error=${problem} />
      ${tenant === ''
        ? html`<p class="empty">No tenant to show.</p>`
        : html`<div class="grid">
        <${ClockSection} ...${props} />
        <${StateSection} ...${props} />
        <${TokensSection} ...${props} now=${current?.clock.now} />
        <${PaymentsSection} ...${props} />
        <${JournalSection} tenants=${tenants.map((t) => t.name)} tenant=${tenant} onEntry=${soon} />
        <${ScenariosSection} ...${props} />
        <${WebhooksSection} ...${props} />
      </div>`}
    </main>`;
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
