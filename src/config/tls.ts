/** `--tls`, `--tls-cert`, `--tls-key`, `--tls-dir` and `--webhook-ca` (contract 4.3, decision 0053); `--webhook-client-cert` and `--webhook-client-key` (contract 4.4, decision 0056). */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { resolve } from 'node:path';
import type { PemPair } from '../infra/certificates.js';
import { ConfigError, readConfigText } from './fixtures.js';

/** HTTPS: the user's certificate and key files, or a local CA's kept in `dir`. */
export type TlsConfig = { kind: 'given'; certFile: string; keyFile: string } | { kind: 'local'; dir: string };

/** Where `--tls` keeps its CA when `--tls-dir` does not say, under the working directory. */
export const DEFAULT_TLS_DIR = '.token-sim/tls';

export interface TlsOptions {
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsDir?: string;
}

/** HTTPS or not: `--tls`, or a certificate and its key (which turn it on by themselves). */
export function resolveTls(options: TlsOptions): TlsConfig | undefined {
  const { tlsCert, tlsKey } = options;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new ConfigError('--tls-cert and --tls-key go together: give both, or neither');
  if (options.tlsDir !== undefined && options.tlsDir.trim() === '') throw new ConfigError('--tls-dir must be a path');
  if (tlsCert !== undefined && tlsKey !== undefined) {
    if (options.tls === false) throw new ConfigError('--tls-cert and --tls-key serve HTTPS: they cannot go with --tls false');
    return { kind: 'given', certFile: resolve(tlsCert), keyFile: resolve(tlsKey) };
  }
  return options.tls === true ? { kind: 'local', dir: resolve(options.tlsDir ?? DEFAULT_TLS_DIR) } : undefined;
}

/** A PEM file's text, which must hold this kind of block (`CERTIFICATE`, `PRIVATE KEY`). */
export function readPem(flag: string, path: string, block: string): string {
  const text = readConfigText(path, (why) => `${flag} names a file that cannot be read: ${path} (${why})`);
  if (!new RegExp(`-----BEGIN [A-Z ]*${block}-----`).test(text)) throw new ConfigError(`${flag} must be a PEM file with a ${block} block: ${path}`);
  return text;
}

/** `--webhook-client-cert` and `--webhook-client-key`: read, and checked to be a pair, at start. */
export function resolveWebhookClient(options: { webhookClientCert?: string | undefined; webhookClientKey?: string | undefined }): PemPair | undefined {
  const { webhookClientCert: certFile, webhookClientKey: keyFile } = options;
  if ((certFile === undefined) !== (keyFile === undefined)) throw new ConfigError('--webhook-client-cert and --webhook-client-key go together: give both, or neither');
  if (certFile === undefined || keyFile === undefined) return undefined;
  const cert = readPem('--webhook-client-cert', resolve(certFile), 'CERTIFICATE');
  const key = readPem('--webhook-client-key', resolve(keyFile), 'PRIVATE KEY');
  let pair: boolean;
  try {
    pair = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new ConfigError(`--webhook-client-cert and --webhook-client-key cannot be presented: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!pair) throw new ConfigError('--webhook-client-key is not the key of --webhook-client-cert');
  return { cert, key };
}
