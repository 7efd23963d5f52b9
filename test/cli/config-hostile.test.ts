// Hostile gateway config through the real `serve` command: TLS files that cannot serve, a public URL carrying
// credentials, a config file whose syntax error or repeated key would otherwise be read silently or quoted back, and
// instance liveness settings that would judge live instances dead. Each stops the command (exit 2) naming the
// field, with nothing written to the data dir and no secret echoed.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { certsInDir } from '../support/certs.js';
import { runCli } from '../support/child-server.js';
import { serveRefused } from '../support/serve-refused.js';

t.setTimeout(600_000);

t.test('TLS files that cannot serve are refused before anything starts, naming the field', async (t) => {
  const { certs, dir, file } = await certsInDir(t, 'a2a-cfg-tls-');
  const cert = await file('server.crt', certs.server.cert);
  const key = await file('server.key', certs.server.key);
  const otherKey = await file('client.key', certs.client.key);
  const garbage = await file('garbage.pem', 'not a PEM file\n');
  const cases: Array<[string, { certFile: string; keyFile: string }, RegExp]> = [
    ['a key of another certificate', { certFile: cert, keyFile: otherKey }, /tls\.keyFile: .*client\.key is not the private key of the certificate/],
    ['a directory as the certificate', { certFile: dir, keyFile: key }, /tls\.certFile: .* is a directory/],
    ['a file that is no PEM certificate', { certFile: garbage, keyFile: key }, /tls\.certFile: .*garbage\.pem holds no PEM certificate/],
    ['a certificate as the key', { certFile: cert, keyFile: cert }, /tls\.keyFile: .*server\.crt holds no PEM private key/],
  ];
  for (const [i, [what, tls, message]] of cases.entries()) {
    const config = await file(`config-${i}.json`, JSON.stringify({ tls }));
    const r = await serveRefused(t, what, join(dir, `data-${i}`), ['--config', config]);
    t.match(r.stderr, message, `${what}: says which file and why`);
    t.notOk(r.stderr.includes('PRIVATE KEY'), `${what}: quotes no key`);
  }
});

t.test('a public URL with a user name or password is refused: the public cards would show it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-url-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const fromEnv = await serveRefused(t, 'A2A_PUBLIC_URL', join(dir, 'data-env'), [], { A2A_PUBLIC_URL: 'https://ops:hunter2secret@gw.example' });
  t.match(fromEnv.stderr, /publicUrl \(A2A_PUBLIC_URL\): must not carry a user name or password/);
  t.notOk(fromEnv.stderr.includes('hunter2secret'), 'the password is not echoed');
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ publicUrl: 'https://ops@gw.example' }));
  const fromFile = await serveRefused(t, 'publicUrl in the file', join(dir, 'data-file'), ['--config', config]);
  t.match(fromFile.stderr, /publicUrl .*must not carry a user name or password/);
  // the credentials check must not trip over a value that is no URL at all
  const notUrl = await serveRefused(t, 'a public URL that is no URL', join(dir, 'data-bad'), [], { A2A_PUBLIC_URL: 'nope' });
  t.match(notUrl.stderr, /publicUrl \(A2A_PUBLIC_URL\): must be an http or https URL/);
});

t.test('a config file that is not valid JSON is refused without quoting it; a key given twice is refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-json-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cases: Array<[string, string, RegExp]> = [
    // V8 quotes the text around an unexpected token: here the Redis password
    ['an unquoted value', '{"port": 0,\n "redisUrl": hunter2secret}', /is not valid JSON: Unexpected token 'h'/],
    ['a missing comma', '{"port": 0,\n "redisUrl": "redis://:hunter2secret@127.0.0.1:6379" "store": "redis"}', /is not valid JSON: .* at line 2, column \d+/],
    ['a key given twice', '{"port": 0, "push": {"timeoutMs": 5000, "timeoutMs": 50}}', /push\.timeoutMs: given twice; give it once/],
    ['a key given twice at the top', '{"store": "lmdb", "redisUrl": "redis://:hunter2secret@a:1", "store": "redis"}', /store \(A2A_STORE\): given twice/],
  ];
  for (const [i, [what, text, message]] of cases.entries()) {
    const config = join(dir, `config-${i}.json`);
    await writeFile(config, text);
    const r = await serveRefused(t, what, join(dir, `data-${i}`), ['--config', config]);
    t.match(r.stderr, message, `${what}: says what is wrong`);
    t.notOk(r.stderr.includes('hunter2'), `${what}: no text of the file is quoted`);
  }
});

t.test('a byte order mark before the JSON is taken', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-bom-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.json');
  await writeFile(config, `\uFEFF${JSON.stringify({ port: 0 })}`);
  const r = await runCli(['keys', 'list', '--json', '--config', config, '--data-dir', join(dir, 'data')], { timeoutMs: 45_000 });
  t.equal(r.code, 0, `read: ${r.stderr.trim()}`);
  t.same(JSON.parse(r.stdout), []);
});

t.test('an A2A_SECRET of a few characters is refused before any command opens a store, and is not echoed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-secret-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const env = { A2A_SECRET: 'tiny-secret' };
  const served = await serveRefused(t, 'serve', join(dir, 'data-serve'), [], env);
  t.match(served.stderr, /A2A_SECRET: at least 16 characters/);
  const dataDir = join(dir, 'data-keys');
  const created = await runCli(['keys', 'create', '--workspace', 'ws1', '--trust', 'admin', '--data-dir', dataDir], { env, timeoutMs: 45_000 });
  t.equal(created.code, 2, created.stderr);
  t.match(created.stderr, /A2A_SECRET: at least 16 characters/);
  t.notMatch(created.stdout, /svc_a2a_/, 'no key was made');
  t.notOk(existsSync(dataDir), 'nothing written');
  for (const r of [served, created]) t.notOk(r.stderr.includes('tiny-secret'), 'the secret is not echoed');
});

t.test('instances.deadAfterMs below two heartbeats is refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-beat-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ instances: { heartbeatMs: 5_000, deadAfterMs: 6_000 } }));
  const r = await serveRefused(t, 'deadAfterMs 6 s, beats every 5 s', join(dir, 'data'), ['--config', config]);
  t.match(r.stderr, /instances\.deadAfterMs: must be at least twice instances\.heartbeatMs/);
});
