/** The dashboard's live and control sections: the journal stream, scenarios, state and webhook deliveries. */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, currentAdminToken, describe, getJson, perform, time, url, type ApiError, type JournalEntry, type SectionProps, type WebhookDelivery } from './api.js';
import { listOf, Loading, newestFirst, Problem, Select, useLoad } from './sections.js';

declare const __SHIPPED_SCENARIOS__: { file: string; text: string }[];
/** The journal's operations (scripts/build-ui.mjs). */
declare const __JOURNAL_OPERATIONS__: readonly JournalEntry['operation'][];

const JOURNAL_KEEP = 200;

/** An event's JSON data; undefined when it is broken (the event is skipped, or said without its count). */
function dataOf<T>(ev: Event): T | undefined {
  try {
    return JSON.parse((ev as MessageEvent<string>).data) as T;
  } catch {
    return undefined;
  }
}

export function JournalSection({ tenants, tenant, onEntry }: { tenants: string[]; tenant: string; onEntry: () => void }) {
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
    setConnected(false);
    const source = new EventSource(url('/requests/stream', { tenant: who === '*' ? undefined : who, operation, status, access_token: currentAdminToken() ?? undefined }));
    source.addEventListener('open', () => setConnected(true));
    source.addEventListener('error', () => setConnected(false));
    source.addEventListener('request', (ev) => {
      const entry = dataOf<JournalEntry>(ev);
      if (!entry) return;
      setEntries((list) => [entry, ...list.filter((e) => e.seq !== entry.seq)].slice(0, JOURNAL_KEEP));
      onEntryRef.current();
    });
    source.addEventListener('gap', (ev) => {
      const skipped = String(dataOf<{ skipped?: number } | null>(ev)?.skipped ?? '');
      setNote(`Some journal entries were skipped${skipped ? ` (${skipped})` : ''}: the page read them too slowly.`);
    });
    return () => source.close();
  }, [who, operation, status, statusOk]);
  return html`<section aria-labelledby="journal-h" class="card wide">
    <h2 id="journal-h">Journal <span class=${connected ? 'badge live' : 'badge'}>${connected ? 'live' : 'not connected'}</span></h2>
    <form class="row filters" onSubmit=${(e: Event) => e.preventDefault()} aria-label="Journal filters">
      <${Select} id="journal-tenant" label="Journal tenant" value=${who} set=${setWho} options=${[['*', 'All tenants'], ...tenants.map((t) => [t, t])]} />
      <${Select} id="journal-operation" label="Operation" value=${operation} set=${setOperation} options=${[['', 'Any operation'], ...__JOURNAL_OPERATIONS__.map((o) => [o, o])]} />
      <label for="journal-status">Status</label>
      <input id="journal-status" inputmode="numeric" size="4" value=${status} aria-invalid=${statusOk ? 'false' : 'true'} onInput=${(e: Event) => setStatus((e.target as HTMLInputElement).value.trim())} placeholder="any" />
    </form>
    ${note ? html`<p class="problem" role="status">${note}</p>` : null}
    ${entries.length === 0
      ? connected
        ? html`<p class="empty">No requests yet. New ones appear here as they are made.</p>`
        : html`<${Loading} />`
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

export function ScenariosSection({ tenant, version, refresh, say }: SectionProps) {
  const [scope, setScope] = useState<'global' | 'tenant'>('tenant');
  const query = { tenant: scope === 'tenant' ? tenant : undefined };
  const load = useLoad(() => getJson<{ scenarios: { name?: string; description?: string; rules?: { id?: string }[] }[] }>('/scenarios', query), [tenant, scope, version], `${scope}:${tenant}`);
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<ApiError | undefined>(undefined);
  const where = scope === 'tenant' ? `${tenant}'s set` : 'the global set';
  const apply = (yaml: string, what: string) =>
    perform({ say, refresh }, () => call('PUT', '/scenarios', query, { type: 'application/yaml', text: yaml }), `${what} loaded into ${where}`, setProblems);
  const clear = () => perform({ say, refresh }, () => call('DELETE', '/scenarios', query), `Cleared ${where}`);
  const upload = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (file) setText(await file.text());
  };
  const loaded = load.data?.scenarios ?? [];
  return html`<section aria-labelledby="scenarios-h" class="card wide">
    <h2 id="scenarios-h">Scenarios</h2>
    <div class="row">
      <${Select} id="scenario-scope" label="Scenario set" value=${scope} set=${setScope} options=${[['tenant', `Tenant ${tenant}`], ['global', 'Global']]} />
      <button type="button" class="danger" onClick=${clear}>Clear scenarios</button>
    </div>
    <${Problem} error=${load.error} />
    <h3>Active in ${where}</h3>
    ${listOf(load, loaded, 'None.', () => html`<ul class="scenarios">${loaded.map(
          (s, i) => html`<li key=${i}><strong>${s.name ?? `scenario ${i + 1}`}</strong>${s.description ? ` — ${s.description}` : ''}
            ${s.rules?.length ? html` <span class="muted">(rules: ${s.rules.map((r) => r.id ?? '?').join(', ')})</span>` : ''}</li>`,
        )}</ul>`)}
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

export function StateSection({ tenant, refresh, say }: SectionProps) {
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
    await perform({ say, refresh }, async () => call('PUT', '/state', query, { type: 'application/json', text: await file.text() }), 'State imported', setProblems);
  };
  return html`<section aria-labelledby="state-h" class="card">
    <h2 id="state-h">State</h2>
    <div class="row">
      <${Select} id="state-scope" label="State scope" value=${scope} set=${setScope} options=${[['all', 'Everything'], ['tenant', `Tenant ${tenant} only`]]} />
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

export function WebhooksSection({ tenant, version, refresh, say }: SectionProps) {
  const load = useLoad(() => getJson<{ webhooks: WebhookDelivery[]; count: number }>('/webhooks', { tenant, limit: 200 }), [tenant, version], tenant);
  const { data, error, loading } = load;
  const list = newestFirst(data?.webhooks ?? []);
  // The same event and eventId again, as a new delivery (POST /_sim/webhooks/{id}/resend, decision 0056).
  const resend = (d: WebhookDelivery) =>
    perform(
      { say, refresh },
      () => call('POST', `/webhooks/${encodeURIComponent(d.id)}/resend`, { tenant: d.tenant }),
      async (answer) => `Delivery ${d.id} sent again as ${((await answer.json()) as { id: string }).id}`,
    );
  return html`<section aria-labelledby="webhooks-h" class="card wide" aria-busy=${loading ? 'true' : 'false'}>
    <h2 id="webhooks-h">Webhook deliveries <span class="count">${data ? data.count : ''}</span></h2>
    <${Problem} error=${error} />
    ${listOf(load, list, 'No deliveries.', () => html`<div class="scroll" tabindex="0" role="region" aria-label="Webhook delivery table"><table>
      <thead><tr><th scope="col">#</th><th scope="col">Event</th><th scope="col">URL</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last result</th><th scope="col">Queued (real time)</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${list.map(
        (d) => html`<tr key=${d.seq}><td>${d.seq}</td><td>${d.type}</td><td><code>${d.url}</code></td><td>${d.state}</td><td class="num">${d.attempts}</td>
          <td>${d.lastError ?? (d.lastStatus === null ? '—' : d.lastStatus)}</td><td>${time(d.enqueuedAt)}</td>
          <td><button type="button" aria-label=${`Resend delivery ${d.id}`} onClick=${() => resend(d)}>Resend</button></td></tr>`,
      )}</tbody></table></div>`)}
  </section>`;
}

