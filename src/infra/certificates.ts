/** The local CA of `--tls` and its server and webhook client certificates, made once in a directory and reused (decisions 0052, 0056). */
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface PemPair {
  cert: string;
  key: string;
}

const DAY_MS = 86_400_000;
/** Lifetimes; a certificate is made anew when less than a month is left. */
const CA_DAYS = 3650;
const SERVER_DAYS = 397;
const RENEW_BEFORE_MS = 30 * DAY_MS;

/** An IP address (v4, or v6 which alone holds colons), not a DNS name. */
const isAddress = (name: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');

const FILES = { ca: 'ca.pem', caKey: 'ca-key.pem', cert: 'server.pem', key: 'server-key.pem', clientCert: 'client.pem', clientKey: 'client-key.pem' } as const;

/** The extended key usage of a TLS client certificate. */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const WEBHOOK_CLIENT_NAME = 'token-sim webhooks';

/** Names that cannot be in a certificate (the unspecified addresses a server binds to) are left out; IPv6 brackets dropped. */
export function certificateNames(names: readonly (string | undefined)[]): string[] {
  const named = names.filter((raw): raw is string => raw !== undefined && raw !== '').map((raw) => raw.replace(/^\[(.*)\]$/, '$1').toLowerCase());
  return [...new Set(named.filter((name) => name !== '0.0.0.0' && name !== '::'))];
}

/** The server certificate for these names from the local CA in `dir` (both made when missing or no longer serving). */
export async function localCertificate(dir: string, names: readonly string[], now: number = Date.now()) {
  return issued(dir, now, ['cert', 'key'], { names });
}

/** The client certificate webhook deliveries present (contract 4.4), from the same CA, made and reused alike. */
export async function localClientCertificate(dir: string, now: number = Date.now()) {
  return issued(dir, now, ['clientCert', 'clientKey'], { names: [WEBHOOK_CLIENT_NAME], client: true });
}

/** A certificate of the local CA in `dir` and its key, in these files, reused while it serves the request; `caFile`: the CA a client trusts. */
async function issued(dir: string, now: number, [certName, keyName]: [keyof typeof FILES, keyof typeof FILES], request: Pick<CertificateRequest, 'names' | 'client'>): Promise<PemPair & { caFile: string }> {
  const { path, issuer } = await localCa(dir, now);
  const [certFile, keyFile] = [path(certName), path(keyName)];
  const current = existsSync(certFile) && existsSync(keyFile) ? { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') } : undefined;
  if (current && serves(current, issuer.cert, request, now)) return { ...current, caFile: path('ca') };
  const made = await makeCertificate({ ...request, now, days: SERVER_DAYS, issuer });
  // Renamed into place whole: another process reads the old file or the new one, never half of one.
  renameSync(writtenAside(keyFile, made.key, 0o600), keyFile);
  renameSync(writtenAside(certFile, made.cert, 0o644), certFile);
  return { ...made, caFile: path('ca') };
}

/** The local CA in `dir` (made when missing), and where its files are. Processes starting at once agree on one. */
async function localCa(dir: string, now: number): Promise<{ path: (name: keyof typeof FILES) => string; issuer: PemPair }> {
  const home = resolve(dir);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = (name: keyof typeof FILES): string => join(home, FILES[name]);
  if (!existsSync(path('ca'))) {
    const ca = await makeCertificate({ names: [], now, days: CA_DAYS });
    // Whoever places the key places the certificate too; another process waits for it.
    if (placeOnce(path('caKey'), ca.key, 0o600)) placeOnce(path('ca'), ca.cert, 0o644);
    else await appears(path('ca'));
  }
  return { path, issuer: { cert: readFileSync(path('ca'), 'utf8'), key: readFileSync(path('caKey'), 'utf8') } };
}

/** Whether a certificate goes with its key, was signed by this CA, has a month left, and is for client auth or names every name. */
function serves(current: PemPair, caPem: string, { names, client }: Pick<CertificateRequest, 'names' | 'client'>, now: number): boolean {
  try {
    const cert = new X509Certificate(current.cert);
    const ca = new X509Certificate(caPem);
    if (!cert.checkPrivateKey(createPrivateKey(current.key))) return false;
    if (!cert.verify(ca.publicKey) || Date.parse(cert.validTo) - now < RENEW_BEFORE_MS) return false;
    if (client) return cert.keyUsage?.includes(CLIENT_AUTH) === true;
    return names.every((name) => (isAddress(name) ? cert.checkIP(name) !== undefined : cert.checkHost(name) !== undefined));
  } catch {
    return false;
  }
}

/** Writes a file whole only if none is there (linked into place, which fails if one is): whether it was placed. */
function placeOnce(file: string, text: string, mode: number): boolean {
  const aside = writtenAside(file, text, mode);
  try {
    linkSync(aside, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Waits (up to 10 s) for a file another process is placing. */
async function appears(file: string): Promise<void> {
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 10_000) throw new Error(`${file} did not appear: another process made its key and stopped`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The path of a new file beside `file`, of this process's own, holding the text with this mode. */
function writtenAside(file: string, text: string, mode: number): string {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, text, { mode });
  // writeFileSync's mode passes through the umask.
  chmodSync(aside, mode);
  return aside;
}

interface CertificateRequest {
  /** The server's DNS names and IP addresses; a client's common name; none for the CA. */
  names: readonly string[];
  /** A client certificate (clientAuth, no subject alternative names). */
  client?: true;
  now: number;
  days: number;
  /** The CA that signs it; absent, the certificate signs itself (the CA). */
  issuer?: PemPair;
}

async function makeCertificate(request: CertificateRequest): Promise<PemPair> {
  const { default: forge } = await import('node-forge');
  const { pki } = forge;
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(pair.publicKey);
  // A positive serial of 16 random bytes: the first one 0x01–0x7f (DER integers are signed, and not padded).
  const serial = randomBytes(16);
  serial.writeUInt8((serial.readUInt8(0) % 0x7f) + 1, 0);
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(request.now - DAY_MS);
  cert.validity.notAfter = new Date(request.now + request.days * DAY_MS);
  const isCa = request.issuer === undefined;
  const subject = [{ name: 'commonName', value: isCa ? `token-sim local CA ${randomBytes(3).toString('hex')}` : (request.names[0] ?? 'localhost') }, { name: 'organizationName', value: 'token-sim' }];
  cert.setSubject(subject);
  const issuerCert = request.issuer ? pki.certificateFromPem(request.issuer.cert) : undefined;
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : subject);
  cert.setExtensions(
    isCa
      ? [
          { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false, critical: true },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          ...(request.client
            ? [{ name: 'extKeyUsage', clientAuth: true }]
            : [{ name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames: request.names.map((name) => (isAddress(name) ? { type: 7, ip: name } : { type: 2, value: name })) }]),
          { name: 'subjectKeyIdentifier' },
          { name: 'authorityKeyIdentifier', keyIdentifier: issuerCert?.generateSubjectKeyIdentifier().getBytes() },
        ],
  );
  cert.sign(pki.privateKeyFromPem(request.issuer?.key ?? pair.privateKey), forge.md.sha256.create());
  return { cert: pki.certificateToPem(cert), key: pair.privateKey };
}
