// Whether a PEM certificate and a PEM private key can serve TLS together: each parses, and the key is the
// certificate's. Said in words naming which of the two is wrong, never quoting either (the key is a secret).
import { X509Certificate, createPrivateKey } from 'node:crypto';

/** What is wrong with a certificate and key pair: which one (`cert`, `key`) and why; undefined when they fit. */
export function pemPairProblem(pem: { cert: string | Buffer; key: string | Buffer }): { which: 'cert' | 'key'; problem: string } | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem.cert);
  } catch (e) {
    return { which: 'cert', problem: `holds no PEM certificate (${opensslReason(e)})` };
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pem.key);
  } catch (e) {
    // an encrypted key asks for a passphrase, which nothing here can give (OpenSSL's reason then says nothing useful)
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(String(pem.key)))
      return { which: 'key', problem: 'holds an encrypted private key: give it unencrypted' };
    return { which: 'key', problem: `holds no PEM private key (${opensslReason(e)})` };
  }
  if (!cert.checkPrivateKey(key)) return { which: 'key', problem: 'is not the private key of the certificate (they do not match)' };
  return undefined;
}

/** OpenSSL's reason ("no start line"), which names no byte of the input; Node's own message otherwise. */
export function opensslReason(e: unknown): string {
  const reason = (e as { reason?: unknown }).reason;
  if (typeof reason === 'string' && reason !== '') return reason;
  return e instanceof Error ? e.message : String(e);
}
