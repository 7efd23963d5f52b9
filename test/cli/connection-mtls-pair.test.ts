// `connections add` / `update` with --auth mtls refuse a certificate and key that cannot serve together (a key of
// another certificate, a file that is no PEM certificate), naming the flag and quoting no key, and store nothing:
// before, such a pair was stored and every call to the remote failed at its TLS handshake.
import { join } from 'node:path';
import t from 'tap';
import { certsInDir } from '../support/certs.js';
import { runCli } from '../support/child-server.js';

t.setTimeout(300_000);

t.test('connections: an mTLS certificate and key must be one pair', async (t) => {
  const { certs, dir, file } = await certsInDir(t, 'a2a-conn-mtls-');
  const cert = await file('client.crt', certs.client.cert);
  const key = await file('client.key', certs.client.key);
  const otherKey = await file('server.key', certs.server.key);
  const dataDir = join(dir, 'data');
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const add = (name: string, c: string, k: string) =>
    cli(['connections', 'add', '--workspace', 'acme', '--name', name, '--url', 'https://agent.example.com/a2a', '--auth', 'mtls', '--cert', c, '--key', k]);

  const mismatched = await add('mismatched', cert, otherKey);
  t.equal(mismatched.code, 2, mismatched.stderr);
  t.match(mismatched.stderr, /credentials\.key: is not the private key of the certificate \(they do not match\) \(--key\)/);
  const swapped = await add('swapped', key, cert);
  t.equal(swapped.code, 2, swapped.stderr);
  t.match(swapped.stderr, /credentials\.cert: holds no PEM certificate .*\(--cert\)/);
  for (const r of [mismatched, swapped]) t.notOk(r.stderr.includes('PRIVATE KEY'), 'no key is quoted');
  t.same(JSON.parse((await cli(['connections', 'list', '--json'])).stdout), [], 'nothing was added');

  const ok = await add('ok', cert, key);
  t.equal(ok.code, 0, ok.stderr);
  const update = await cli(['connections', 'update', 'ok', '--workspace', 'acme', '--key', otherKey]);
  t.equal(update.code, 2, update.stderr);
  t.match(update.stderr, /credentials\.key: is not the private key of the certificate .*\(--key\)/);
});
