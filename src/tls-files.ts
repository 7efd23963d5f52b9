// The gateway's own TLS files (config tls.certFile, tls.keyFile), checked before anything starts or is written: uWS
// given a missing, unreadable, non-PEM or mismatched pair says only "App construction failed", naming nothing, and by
// then the store and the secret file were made.
import { ConfigError } from './config/error.js';
import type { Config } from './config/schema.js';
import { readPemFile } from './runtime/net/pem-file.js';
import { pemPairProblem } from './runtime/net/pem-pair.js';

/** Throws a ConfigError naming the field when the files cannot serve TLS together; never quotes their content. */
export function checkTlsFiles(tls: Config['tls']): void {
  if (!tls) return;
  const cert = readPem('tls.certFile', tls.certFile);
  const key = readPem('tls.keyFile', tls.keyFile);
  const bad = pemPairProblem({ cert, key });
  if (!bad) return;
  const [field, path] = bad.which === 'cert' ? ['tls.certFile', tls.certFile] : ['tls.keyFile', tls.keyFile];
  throw new ConfigError(`invalid config: ${field}: ${path} ${bad.problem}`);
}

function readPem(field: string, path: string): Buffer {
  const read = readPemFile(path);
  if ('problem' in read) throw new ConfigError(`invalid config: ${field}: ${path} ${read.problem}`);
  return read.pem;
}
