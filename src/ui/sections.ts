/** The dashboard's data sections: the clock, tokens and payments of one tenant. */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call, describe, formatAmount, formatSpan, getJson, time, type Clock, type PaymentItem, type SectionProps, type TokenItem } from './api.js';

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: string | undefined } {
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

export function Problem({ error }: { error: string | undefined }) {
  return error ? html`<p class="problem" role="alert">${error}</p>` : null;
}

export function ClockSection({ tenant, version, refresh, say }: SectionProps) {
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

export function TokensSection({ tenant, version, refresh, say, now }: SectionProps & { now: string | undefined }) {
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

export function PaymentsSection({ tenant, version, refresh, say }: SectionProps) {
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

