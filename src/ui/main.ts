/** The dashboard (`GET /_sim/ui`, decision 0035): one simulator through /_sim only; a 401 asks for the admin token. */
import { render } from 'preact';
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { currentAdminToken, describe, getJson, plural, setAdminToken, whenUnauthorized, type ControlTenant, type Say, type SectionProps } from './api.js';
import { ClockSection, Loading, PaymentsSection, Problem, Select, TokensSection } from './sections.js';
import { JournalSection, ScenariosSection, StateSection, WebhooksSection } from './control-sections.js';

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

/** The banner: the tenant picker and what it holds, forgetting the admin token, the sections' links. */
function TopBar({ tenants, tenant, setTenant, onForget }: { tenants: ControlTenant[]; tenant: string; setTenant: (name: string) => void; onForget: () => void }) {
  const current = tenants.find((t) => t.name === tenant);
  return html`<header class="top" role="banner">
      <h1>token-sim dashboard</h1>
      <div class="row">
        <${Select} id="tenant-picker" label="Tenant" value=${tenant} set=${setTenant} options=${tenants.map((t) => [t.name, t.name])} />
        ${current ? html`<span class="muted">${plural(current.tokens, 'token')} · ${plural(current.payments, 'payment')} · ${current.ownClock ? 'own clock' : 'shared clock'}</span>` : null}
        ${currentAdminToken() !== null ? html`<button type="button" onClick=${onForget}>Forget admin token</button>` : null}
      </div>
      <nav aria-label="Sections"><ul>
        <li><a href="#clock-h">Clock</a></li><li><a href="#tokens-h">Tokens</a></li><li><a href="#payments-h">Payments</a></li>
        <li><a href="#journal-h">Journal</a></li><li><a href="#scenarios-h">Scenarios</a></li><li><a href="#state-h">State</a></li><li><a href="#webhooks-h">Webhooks</a></li>
      </ul></nav>
    </header>`;
}

function App() {
  const [needToken, setNeedToken] = useState(false);
  // undefined until GET /_sim/tenants first answers: the page says it is loading, not "No tenant to show.".
  const [tenantList, setTenants] = useState<ControlTenant[] | undefined>(undefined);
  const tenants = tenantList ?? [];
  const [tenant, setTenant] = useState<string>(() => sessionStorage.getItem('token-sim.tenant') ?? '');
  const [version, setVersion] = useState(0);
  const [message, setMessage] = useState<{ text: string; kind: 'ok' | 'error' } | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const pending = useRef<number | undefined>(undefined);

  // A 401 and the "Forget admin token" button alike: the token goes, and the page asks for it.
  const forget = useCallback(() => (setAdminToken(null), setNeedToken(true)), []);
  whenUnauthorized(forget);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  // The journal stream drives refreshes: at most one every 750 ms however busy the API is.
  const soon = useCallback(() => {
    if (pending.current !== undefined) return;
    pending.current = window.setTimeout(() => {
      pending.current = undefined;
      refresh();
    }, 750);
  }, []);
  const say: Say = useCallback((text: string, kind: 'ok' | 'error' = 'ok') => setMessage({ text, kind }), []);

  useEffect(() => {
    if (needToken) return;
    getJson<{ tenants: ControlTenant[] }>('/tenants').then(
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
    const id = window.setInterval(() => document.visibilityState === 'visible' && refresh(), 15_000);
    return () => window.clearInterval(id);
  }, []);

  if (needToken) return html`<${TokenForm} onDone=${() => (setNeedToken(false), refresh())} />`;
  const current = tenants.find((t) => t.name === tenant);
  const props: SectionProps = { tenant, version, refresh, say };
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <${TopBar} tenants=${tenants} tenant=${tenant} setTenant=${setTenant} onForget=${forget} />
    <div class="message" role="status" aria-live="polite">${message ? html`<p class=${message.kind}>${message.text}</p>` : null}</div>
    <main id="main" tabindex="-1">
      <${Problem} error=${problem} />
      ${tenantList === undefined
        ? problem === undefined
          ? html`<${Loading} />`
          : null
        : tenant === ''
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
