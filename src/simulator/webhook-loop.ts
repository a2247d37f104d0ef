/**
 * No loops (contract 4.1, decision 0042): a webhook URL, from --webhook-url or a fixtures credential, that
 * names the simulator's own listener would have each payment event call the simulator itself (aimed at
 * `/_sim/reset`, the first sale wipes every tenant). Such a configuration is refused at start.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { SimulatorConfig } from '../config/options.js';

/** Every address of this machine, and the addresses that mean "this machine" to a client (loopback, unspecified). */
function isOwnAddress(address: string): boolean {
  const plain = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  if (/^127\./.test(plain) || plain === '::1' || plain === '0.0.0.0' || plain === '::') return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address.toLowerCase() === plain) === true);
}

/** The addresses a URL's host names: itself when it is an address, else what the resolver says (nothing when it fails). */
async function addressesOf(hostname: string): Promise<string[]> {
  const name = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(name) !== 0) return [name];
  if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1'];
  try {
    return (await lookup(name, { all: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

/** Whether a URL reaches the listener at `port` on this machine, or the simulator's own --base-url. */
async function namesListener(text: string, port: number, baseUrl: string | undefined): Promise<boolean> {
  const url = new URL(text);
  if (baseUrl !== undefined && url.origin === new URL(baseUrl).origin) return true;
  const urlPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (urlPort !== port) return false;
  return (await addressesOf(url.hostname)).some(isOwnAddress);
}

/** The line that refuses the first webhook URL naming the simulator's own listener; undefined when none does. */
export async function webhookLoop(config: Pick<SimulatorConfig, 'webhookUrl' | 'credentials' | 'baseUrl'>, port: number): Promise<string | undefined> {
  const urls: [string, string][] = [];
  if (config.webhookUrl !== undefined) urls.push(['--webhook-url', config.webhookUrl]);
  for (const [name, credential] of config.credentials) {
    if (credential.webhookUrl !== undefined) urls.push([`the fixtures credential '${name}' webhookUrl`, credential.webhookUrl]);
  }
  for (const [where, url] of urls) {
    if (await namesListener(url, port, config.baseUrl)) {
      return `${where} ${url} names this simulator's own listener (port ${port}): each payment event would be sent to the simulator itself; point it at your webhook receiver`;
    }
  }
  return undefined;
}
