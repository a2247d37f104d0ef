/** The certificate an HTTPS simulator presents (contract 4.3, decision 0053), and the one its webhook deliveries present (contract 4.4, decision 0056). */
import type { ClientCertificate, SimulatorConfig } from '../config/options.js';
import { readPem } from '../config/tls.js';
import { certificateNames, localCertificate, localClientCertificate, type PemPair } from '../infra/certificates.js';

/** With the local CA's certificate file; undefined for the user's own certificate. */
type PresentedCertificate = PemPair & { caFile: string | undefined };

/**
 * The user's certificate and key (--tls-cert, --tls-key), or the local CA's certificate naming localhost,
 * 127.0.0.1, ::1, the --host value and the --base-url host; undefined without TLS.
 */
export async function serverCertificate(config: Pick<SimulatorConfig, 'tls' | 'host' | 'baseUrl'>): Promise<PresentedCertificate | undefined> {
  const { tls } = config;
  if (tls === undefined) return undefined;
  if (tls.kind === 'given') {
    return { cert: readPem('--tls-cert', tls.certFile, 'CERTIFICATE'), key: readPem('--tls-key', tls.keyFile, 'PRIVATE KEY'), caFile: undefined };
  }
  const names = certificateNames(['localhost', '127.0.0.1', '::1', config.host, config.baseUrl === undefined ? undefined : new URL(config.baseUrl).hostname]);
  return localCertificate(tls.dir, names);
}

/**
 * The client certificate issued from the local CA for webhook deliveries (decision 0056): with `--tls` and its
 * local CA, no --webhook-client-cert, and a webhook receiver configured (--webhook-url or a credential's
 * webhookUrl); undefined otherwise (the given files are in the configuration already).
 */
export async function localWebhookClient(config: Pick<SimulatorConfig, 'tls' | 'webhookClient' | 'webhookUrl' | 'credentials'>): Promise<ClientCertificate | undefined> {
  const { tls } = config;
  if (tls?.kind !== 'local' || config.webhookClient !== undefined) return undefined;
  const receivers = config.webhookUrl !== undefined || [...config.credentials.values()].some((c) => c.webhookUrl !== undefined);
  if (!receivers) return undefined;
  const { cert, key } = await localClientCertificate(tls.dir);
  return { cert, key };
}
