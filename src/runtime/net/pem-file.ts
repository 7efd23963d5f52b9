// Reading a PEM file named by a setting (the gateway's TLS files, the relay's ca_file): what is wrong with it in words
// (missing, a directory, unreadable, no certificate in it) for an error naming that setting, never its content.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { opensslReason } from './pem-pair.js';

/** The file's bytes, or why it cannot be read ("does not exist", "is a directory, not a PEM file", ...). */
export function readPemFile(path: string): { pem: Buffer } | { problem: string } {
  try {
    return { pem: readFileSync(path) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // a relative path is read from the working directory, not beside the config file that names it: say where it looked
    if (code === 'ENOENT')
      return { problem: isAbsolute(path) ? 'does not exist' : `does not exist (a relative path is read from the working directory: ${resolve(path)})` };
    if (code === 'EISDIR') return { problem: 'is a directory, not a PEM file' };
    return { problem: `cannot be read (${code ?? (e as Error).message})` };
  }
}

/** Why `pem` holds no certificate (its first is parsed), or undefined when it does. */
export function certificateProblem(pem: string | Buffer): string | undefined {
  try {
    new X509Certificate(pem);
    return undefined;
  } catch (e) {
    return `holds no PEM certificate (${opensslReason(e)})`;
  }
}
