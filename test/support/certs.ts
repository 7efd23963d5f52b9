// Test support: a throwaway certificate authority, a server certificate for 127.0.0.1 and client certificates, made
// with the openssl binary in a temp dir (EC P-256 keys: quick to make).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  cert: string;
  key: string;
}

export interface Certs {
  ca: Pem;
  server: Pem;
  client: Pem;
  /** a client certificate from another CA: the server must refuse it */
  stranger: Pem;
  dispose(): Promise<void>;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const newKey = (dir: string, name: string) => openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);

async function selfSigned(dir: string, name: string): Promise<void> {
  newKey(dir, name);
  openssl(dir, ['req', '-x509', '-new', '-key', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`]);
}

async function signed(dir: string, name: string, ca: string, ext: string): Promise<void> {
  newKey(dir, name);
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  await writeFile(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

export async function makeCerts(): Promise<Certs> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-certs-'));
  await selfSigned(dir, 'ca');
  await selfSigned(dir, 'other-ca');
  await signed(dir, 'server', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  await signed(dir, 'client', 'ca', 'extendedKeyUsage=clientAuth\n');
  await signed(dir, 'stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  const read = async (name: string): Promise<Pem> => ({
    cert: await readFile(join(dir, `${name}.crt`), 'utf8'),
    key: await readFile(join(dir, `${name}.key`), 'utf8'),
  });
  return {
    ca: await read('ca'),
    server: await read('server'),
    client: await read('client'),
    stranger: await read('stranger'),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What `certsInDir` gives: the certificates, a temp dir, and `file`, which writes a file there and gives its path. */
export interface CertsInDir {
  certs: Certs;
  dir: string;
  file: (name: string, text: string) => Promise<string>;
}

/** Certificates and a temp dir to write cert and key files into, both removed when the test ends. */
export async function certsInDir(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<CertsInDir> {
  const certs = await makeCerts();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(async () => {
    await certs.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  const file = (name: string, text: string) => writeFile(join(dir, name), text).then(() => join(dir, name));
  return { certs, dir, file };
}
