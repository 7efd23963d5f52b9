// A start the gateway refuses leaves nothing behind: an unknown LOG_LEVEL (once taken as info without a word), a
// --host that is no address, and an address that cannot be had (a host that does not resolve or is not this machine's,
// a port in use), which were found only at the listen, after the data dir, its secret and its store were made.
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { runCli } from '../support/child-server.js';
import { serveRefused } from '../support/serve-refused.js';

t.setTimeout(600_000);

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-start-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('an unknown LOG_LEVEL stops serve and every command, naming LOG_LEVEL and the levels; nothing is made', async (t) => {
  const dir = await tempDir(t);
  const served = await serveRefused(t, 'LOG_LEVEL=loud', join(dir, 'data-serve'), [], { LOG_LEVEL: 'loud' });
  t.match(served.stderr, /invalid environment:\n {2}LOG_LEVEL: must be info, debug or silent \(in any case\), not "loud"/);
  const keys = await runCli(['keys', 'create', '--workspace', 'ws1', '--trust', 'admin', '--data-dir', join(dir, 'data-keys')], {
    env: { LOG_LEVEL: 'chatty' },
  });
  t.equal(keys.code, 2, keys.stderr);
  t.match(keys.stderr, /LOG_LEVEL: must be info, debug or silent .*"chatty"/);
  t.notMatch(keys.stdout, /svc_a2a_/, 'no key was made');
  t.notOk(existsSync(join(dir, 'data-keys')), 'nothing written');
  // the levels it knows, in any case, and an empty value (the default) are still taken
  for (const level of ['', 'Silent', 'DEBUG', 'info']) {
    const r = await runCli(['keys', 'list', '--data-dir', join(dir, 'data-ok'), '--json'], { env: { LOG_LEVEL: level } });
    t.equal(r.code, 0, `LOG_LEVEL=${JSON.stringify(level)} is taken: ${r.stderr}`);
  }
});

t.test('a --host (or A2A_HOST) that is no address or host name is refused naming it, before anything is made', async (t) => {
  const dir = await tempDir(t);
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['a space and a !', ['--host', 'bad host!'], {}, /host \(--host, A2A_HOST\): must be an IP address .* or a host name/],
    ['an IPv6 address in brackets', ['--host', '[::1]'], {}, /host \(--host, A2A_HOST\): an IPv6 address goes without brackets \(::1\)/],
    ['an IPv4 address cut short', ['--host', '1.2.3'], {}, /host \(--host, A2A_HOST\): must be an IP address/],
    ['A2A_HOST with a scheme', [], { A2A_HOST: 'http://localhost' }, /host \(--host, A2A_HOST\): must be an IP address/],
  ];
  for (const [i, [what, args, env, message]] of cases.entries()) {
    const r = await serveRefused(t, what, join(dir, `data-${i}`), args, env);
    t.match(r.stderr, message, `${what}: names the setting`);
  }
  // what listens today is still taken
  for (const host of ['localhost', '0.0.0.0', '::', '::1', 'gateway_1.internal', 'fe80::1%lo']) {
    t.equal((await loadConfig({ env: {}, flags: { host } })).host, host, `${host} is taken`);
  }
});

t.test('an address that cannot be had stops serve before anything is made (exit 1, as at the listen)', async (t) => {
  const dir = await tempDir(t);
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen({ host: '127.0.0.1', port: 0 }, resolve));
  t.teardown(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  const port = String((taken.address() as { port: number }).port);
  const cases: Array<[string, string[], RegExp]> = [
    [
      'a host that does not resolve',
      ['--host', 'nosuch.invalid'],
      /cannot listen on nosuch\.invalid:0: the host name does not resolve \(check --host or A2A_HOST\)/,
    ],
    // TEST-NET-1 (RFC 5737): never an address of this machine
    ['an address not of this machine', ['--host', '192.0.2.1'], /cannot listen on 192\.0\.2\.1:0: the address is not available on this machine/],
    ['a port in use', ['--host', '127.0.0.1', '--port', port], new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`)],
  ];
  for (const [i, [what, args, message]] of cases.entries()) {
    const r = await serveRefused(t, what, join(dir, `data-${i}`), args, {}, { code: 1 });
    t.match(r.stderr, message, `${what}: says why`);
  }
});
