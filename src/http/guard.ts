/** What keeps a web page from driving a simulator on a developer's laptop (decision 0042): the Host check, /_sim's cross-site rules. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { BoundedMap } from '../infra/bounded-map.js';
import { HttpError } from './errors.js';
import { essence, hasBody } from './media.js';
import type { SimulatorConfig } from '../config/options.js';

/** Form types: a page can send them to any origin without a preflight, even with an empty body. */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);
/** The /_sim calls that take YAML as well as JSON (paths under /_sim, lower case). */
const YAML_PATHS = new Set(['/scenarios']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a Content-Type (its essence, lower case) is YAML. */
export const isYamlType = (type: string | undefined): boolean => type !== undefined && YAML_TYPES.has(type);

/** A Host header's name, lower case, without its port (`[::1]:80` → `::1`); undefined when it is no host at all. */
function hostNameOf(host: string): string | undefined {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    const name = value.slice(1, end);
    const rest = value.slice(end + 1);
    return end > 0 && isIP(name) === 6 && /^(:\d{1,5})?$/.test(rest) ? name : undefined;
  }
  const match = /^([a-z0-9_.-]+)(:\d{1,5})?$/.exec(value);
  return match?.[1];
}

/** Names that only ever mean this machine, or that no public DNS name can be: never a rebinding target. */
function isLocalName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || !name.includes('.');
}

type GuardOptions = Pick<SimulatorConfig, 'host' | 'baseUrl' | 'allowedHosts' | 'allowedOrigins'>;

/** The hosts a configuration allows besides the local names; `true` when any host is. */
function configuredHosts(options: GuardOptions): Set<string> | true {
  if (options.allowedHosts.includes('*')) return true;
  const names = new Set(options.allowedHosts.map((h) => hostNameOf(h) ?? h.toLowerCase()));
  const own = hostNameOf(options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host);
  if (own !== undefined) names.add(own);
  if (options.baseUrl !== undefined) names.add(new URL(options.baseUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase());
  return names;
}

/** At most this many Host values are remembered (a client rarely sends more than a couple). */
const REMEMBERED_HOSTS = 64;

export class Guard {
  private readonly hosts: Set<string> | true;
  private readonly origins: Set<string>;
  private readonly verdicts = new BoundedMap<string, boolean>(REMEMBERED_HOSTS);

  constructor(options: GuardOptions) {
    this.hosts = configuredHosts(options);
    this.origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase()));
  }

  /** The refusal of a request whose `Host` names neither this machine nor an allowed name; undefined when allowed. */
  checkHost(host: string | undefined): HttpError | undefined {
    // No Host at all: HTTP/1.0 without one (node refuses HTTP/1.1 without one). Browsers always send it.
    if (host === undefined || this.hostAllowed(host)) return undefined;
    return new HttpError(
      'hostNotAllowed',
      `Host '${host.slice(0, 100)}' is not this simulator's: use localhost, an IP address, or start token-sim with --allowed-host <name>`,
    );
  }

  private hostAllowed(host: string): boolean {
    const known = this.verdicts.get(host);
    if (known !== undefined) return known;
    const name = hostNameOf(host);
    const allowed = this.hosts === true || (name !== undefined && (isLocalName(name) || this.hosts.has(name)));
    return this.verdicts.remember(host, allowed);
  }

  /** The refusal of a /_sim request a web page of another site could have sent; undefined when allowed. */
  checkControl(req: IncomingMessage, path: string): HttpError | undefined {
    if (SAFE_METHODS.has(req.method ?? '')) return undefined;
    const { origin, host } = req.headers;
    // Allowed, or the request's own (`http(s)://` + its Host).
    const own = origin !== undefined && host !== undefined && origin.toLowerCase() === `${schemeOf(req)}://${host.toLowerCase()}`;
    const originAllowed = origin !== undefined && (this.origins.has(origin.toLowerCase()) || own);
    if (origin !== undefined && !originAllowed) {
      return new HttpError(
        'originNotAllowed',
        `A web page of ${origin.slice(0, 100)} may not change this simulator: start token-sim with --allowed-origin <origin> to allow it`,
      );
    }
    if (!originAllowed && req.headers['sec-fetch-site'] === 'cross-site') {
      return new HttpError('crossSiteNotAllowed', 'A web page of another site may not change this simulator (Sec-Fetch-Site: cross-site)');
    }
    const type = essence(req.headers['content-type']);
    const typed = type === 'application/json' || (isYamlType(type) && YAML_PATHS.has(path));
    if ((type !== undefined && FORM_TYPES.has(type)) || (hasBody(req.headers) && !typed)) {
      const yaml = YAML_PATHS.has(path) ? ', or application/yaml' : '';
      return new HttpError('contentTypeUnsupported', `A /_sim body must be sent with Content-Type: application/json${yaml}; got ${type ?? 'none'}`);
    }
    return undefined;
  }

  /** CORS on /_sim for `--allowed-origin` origins only, their preflights answered (true: answered, nothing more to do). */
  cors(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (origin === undefined || !this.origins.has(origin.toLowerCase())) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, DELETE');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization');
    res.setHeader('Access-Control-Max-Age', '600');
    res.statusCode = 204;
    res.end();
    return true;
  }
}

/** `https` on a TLS socket (--tls), else `http`. */
export const schemeOf = (req: IncomingMessage): 'http' | 'https' => ((req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http');
