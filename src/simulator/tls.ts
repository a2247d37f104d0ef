/** The certificate an HTTPS simulator presents (contract 4.3, decision 0053). */
import type { SimulatorConfig } from '../config/options.js';
import { readPem } from '../config/tls.js';
import { certificateNames, localCertificate } from '../infra/certificates.js';

export interface PresentedCertificate {
  cert: string;
  key: string;
  /** The local CA's certificate file; absent for the user's own certificate. */
  caFile: string | undefined;
}

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
