/** The dashboard's data sections: the clock, tokens and payments of one tenant. */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call, describe, formatAmount, formatSpan, getJson, perform, time, type ClockState, type ControlPayment, type ControlToken, type SectionProps } from './api.js';

/** Data loaded again whenever `deps` change, shown only for the `scope` it was loaded for (a tenant, a scenario set):
 * never another tenant's list after a switch. `loading` until the first answer. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], scope = ''): { data: T | undefined; error: string | undefined; loading: boolean } {
  const [state, setState] = useState<{ scope: string; data?: T; error?: string }>({ scope });
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && setState({ scope, data: d }),
      // A failed refresh keeps what was shown, with the problem above it.
      (e: unknown) => live && setState((s) => (s.scope === scope && s.data !== undefined ? { scope, data: s.data, error: describe(e) } : { scope, error: describe(e) })),
    );
    return () => {
      live = false;
    };
  }, deps);
  const current = state.scope === scope;
  const data = current ? state.data : undefined;
  const error = current ? state.error : undefined;
  return { data, error, loading: data === undefined && error === undefined };
}

export function Problem({ error }: { error: string | undefined }) {
  return error ? html`<p class="problem" role="alert">${error}</p>` : null;
}

/** A labelled select that hands its value to `set`; `options`: [value, text] pairs. */
export function Select({ id, label, value, set, options }: { id: string; label: string; value: string; set: (value: string) => void; options: string[][] }) {
  return html`<label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(e: Event) => set((e.target as HTMLSelectElement).value)}>${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}</select>`;
}

/** What a section shows until its first data arrives: never its "nothing here" line. */
export function Loading() {
  return html`<p class="empty loading">Loading…</p>`;
}

/** Newest first, then by id: the exact reverse of the control API's total order, oldest first (decision 0045). */
export const newestFirst = <T>(list: readonly T[]): T[] => [...list].reverse();

/** A list loaded by useLoad: loading, nothing (a failed first load: its problem says why), its "nothing here" line, or the list. */
export function listOf<T>({ data, loading }: { data: unknown; loading: boolean }, list: readonly T[], empty: string, shown: () => unknown) {
  if (loading) return html`<${Loading} />`;
  if (data === undefined) return null;
  return list.length === 0 ? html`<p class="empty">${empty}</p>` : shown();
}

/** `code 51: LIMIT EXCEEDED`, the refusal of a refused payment, from its `refused` event. */
export function refusalOf(p: ControlPayment): string | undefined {
  const refusal = p.events.find((e) => e.type === 'refused')?.refusal;
  return refusal ? `code ${refusal.code}: ${refusal.description}` : undefined;
}

export function ClockSection({ tenant, version, refresh, say }: SectionProps) {
  const { data: clock, error } = useLoad(() => getJson<ClockState>('/clock', { tenant }), [tenant, version]);
  const [by, setBy] = useState('PT30M');
  const [at, setAt] = useState('');
  const send = (method: string, path: string, body: object, what: string) =>
    perform({ say, refresh }, () => call(method, path, { tenant }, { type: 'application/json', text: JSON.stringify(body) }), what);
  const advance = (duration: string) => send('POST', '/clock/advance', { by: duration }, `Clock advanced by ${duration}`);
  const put = (body: { now: string; frozen?: boolean }, what: string) => send('PUT', '/clock', body, what);
  const toggleFreeze = async () => {
    const current = await getJson<ClockState>('/clock', { tenant }).catch(() => clock);
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

export function TokensSection({ tenant, version, refresh, say, now }: SectionProps & { now: string | undefined }) {
  const load = useLoad(() => getJson<{ tokens: ControlToken[]; next: string | null }>('/tokens', { tenant, limit: 500 }), [tenant, version], tenant);
  const { data, error, loading } = load;
  const nowMs = now ? Date.parse(now) : NaN;
  const remove = (t: ControlToken) => perform({ say, refresh }, () => call('DELETE', `/tokens/${encodeURIComponent(t.tokenId)}`, { tenant: t.tenant }), `Token ${t.tokenId} deleted`);
  const tokens = newestFirst(data?.tokens ?? []);
  return html`<section aria-labelledby="tokens-h" class="card wide" aria-busy=${loading ? 'true' : 'false'}>
    <h2 id="tokens-h">Tokens <span class="count">${data ? `${tokens.length}${data.next ? '+' : ''}` : ''}</span></h2>
    <${Problem} error=${error} />
    ${listOf(load, tokens, 'No tokens.', () => html`<div class="scroll" tabindex="0" role="region" aria-label="Token table"><table>
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
      })}</tbody></table></div>`)}
  </section>`;
}

export function PaymentsSection({ tenant, version, refresh, say }: SectionProps) {
  // A search by transactionReference: the control API's filter on /_sim/payments (decision 0057).
  const [draft, setDraft] = useState('');
  const [reference, setReference] = useState('');
  const load = useLoad(
    () => getJson<{ payments: ControlPayment[]; next: string | null }>('/payments', { tenant, limit: 500, transactionReference: reference }),
    [tenant, version, reference],
    `${tenant}\n${reference}`,
  );
  const { data, error, loading } = load;
  const act = (p: ControlPayment, action: 'refund' | 'reversal') =>
    perform(
      { say, refresh },
      () => call('POST', `/payments/${encodeURIComponent(p.paymentId)}/${action}`, { tenant: p.tenant }),
      `${action === 'refund' ? 'Refund' : 'Reversal'} of ${p.transactionReference} requested`,
    );
  const payments = newestFirst(data?.payments ?? []);
  return html`<section aria-labelledby="payments-h" class="card wide" aria-busy=${loading ? 'true' : 'false'}>
    <h2 id="payments-h">Payments <span class="count">${data ? `${payments.length}${data.next ? '+' : ''}` : ''}</span></h2>
    <form class="row" role="search" aria-label="Payment search" onSubmit=${(e: Event) => (e.preventDefault(), setReference(draft.trim()))}>
      <label for="payments-reference">Transaction reference</label>
      <input id="payments-reference" name="transactionReference" type="search" value=${draft} onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)} autocomplete="off" />
      <button type="submit">Find</button>
      ${reference ? html`<button type="button" onClick=${() => (setDraft(''), setReference(''))}>Show all payments</button>` : ''}
    </form>
    <${Problem} error=${error} />
    ${listOf(load, payments, reference ? `No payments with transaction reference ${reference}.` : 'No payments.', () => html`<div class="scroll" tabindex="0" role="region" aria-label="Payment table"><table>
      <caption class="sr-only">Payments of ${tenant}</caption>
      <thead><tr><th scope="col">Reference</th><th scope="col">Outcome</th><th scope="col">Last event</th><th scope="col">Amount</th><th scope="col">Refunded</th><th scope="col">Created (virtual)</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${payments.map(
        (p) => html`<tr key=${p.paymentId}>
          <td><code>${p.transactionReference}</code></td>
          <td>${p.outcome}${refusalOf(p) ? html` <span class="refusal">${refusalOf(p)}</span>` : ''}</td>
          <td>${p.lastEvent}</td>
          <td class="num">${formatAmount(p.amount, p.currency)}</td>
          <td class="num">${formatAmount(p.refunded, p.currency)}</td>
          <td>${time(p.createdAt)}</td>
          <td class="actions">
            <button type="button" aria-label=${`Refund payment ${p.transactionReference}`} disabled=${!p.allowedActions.includes('refund')} onClick=${() => act(p, 'refund')}>Refund</button>
            <button type="button" aria-label=${`Reverse payment ${p.transactionReference}`} disabled=${!p.allowedActions.includes('reversal')} onClick=${() => act(p, 'reversal')}>Reverse</button>
          </td>
        </tr>`,
      )}</tbody></table></div>`)}
  </section>`;
}

