// The relay's ca_file (the private CA of the gateway's certificate), read at start: a missing, unreadable or non-PEM
// file is a config error naming ca_file (exit 2), not a bare "ENOENT: ..." or a TLS failure at every connect.
import { certificateProblem, readPemFile } from '../src/runtime/net/pem-file.js';
import { RelayConfigError } from './config.js';

export function readCaFile(path: string): string {
  const read = readPemFile(path);
  if ('problem' in read) throw new RelayConfigError('ca_file', `${path} ${read.problem}`);
  const problem = certificateProblem(read.pem);
  if (problem !== undefined) throw new RelayConfigError('ca_file', `${path} ${problem}`);
  return read.pem.toString('utf8');
}
