// `a2a-gateway connections ...` as a user runs it (child processes, a real data dir, the real Redis): every auth kind,
// every subcommand in text and JSON, refusals that name the field and change nothing, the SSRF guard and its
// allowlist, and no secret anywhere (output, data dir bytes, Redis values) once a connection is made.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, RESP_TYPES } from 'redis';
import t, { type Test } from 'tap';
import { openCredentials } from '../../src/runtime/connection-admin.js';
import { loadSecret } from '../../src/runtime/keys.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { makeCerts } from '../support/certs.js';
import { type CliResult, runCli } from '../support/child-server.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

// every CLI run is a fresh Node process
t.setTimeout(600_000);

const hex = () => randomBytes(6).toString('hex');
/** a real client pair: an mTLS certificate and key are checked to be one pair when added */
const certs = await makeCerts();
t.teardown(() => certs.dispose());
/** a PEM's first line of base64 (which the secrets test looks for) */
const bodyOf = (pem: string) => pem.split('\n')[1]!;
const WS = 'acme';
const REMOTE = 'https://agent.example.com/a2a';

/** The secrets of this run: each must appear in no output, no data dir file and no Redis value once given. */
const S = {
  apiKey: `sk-apikey-${hex()}`,
  token: `tok-bearer-${hex()}`,
  newToken: `tok-rotated-${hex()}`,
  clientSecret: `cs-oauth-${hex()}`,
  keyBody: bodyOf(certs.client.key),
  certBody: bodyOf(certs.client.cert),
  switchedToken: `tok-switched-${hex()}`,
  redisToken: `tok-redis-${hex()}`,
  redisClientSecret: `cs-redis-${hex()}`,
};

/** Every CLI result of the file: the secrets test reads them all at the end. */
const outputs: CliResult[] = [];

async function cli(args: string[], env?: Record<string, string>): Promise<CliResult> {
  const r = await runCli(['connections', ...args], { env });
  outputs.push(r);
  return r;
}

async function json(t: Test, args: string[], env?: Record<string, string>): Promise<any> {
  const r = await cli([...args, '--json'], env);
  t.equal(r.code, 0, `${args.slice(0, 2).join(' ')}: exit 0 ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A refusal: exit 2, nothing on stdout, and stderr naming `field`. */
function refused(t: Test, r: CliResult, field: RegExp, what: string): void {
  t.equal(r.code, 2, `${what}: exit 2`);
  t.equal(r.stdout, '', `${what}: no output`);
  t.match(r.stderr, field, `${what}: the message names the field`);
}

/** Every file's bytes under `dir`. */
async function filesUnder(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.push({ path, bytes: await readFile(path) });
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), 'a2a-conn-cli-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const dataDir = join(dir, 'data');
const D = ['--data-dir', dataDir];
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

/** The store and secret the CLI used, opened here as the server would (the runtime path to the credentials). */
async function stored<T>(fn: (s: Awaited<ReturnType<typeof openLmdbStore>>, secret: Buffer) => Promise<T>): Promise<T> {
  const s = await openLmdbStore({ path: join(dataDir, 'store') });
  try {
    return await fn(s, await loadSecret({ dataDir }));
  } finally {
    await s.close();
  }
}

t.test('each auth kind is added with its settings; the runtime gets its credentials back', async (t) => {
  const apiKeyFile = await file('api-key.txt', `${S.apiKey}\n`);
  const secretFile = await file('client-secret.txt', `${S.clientSecret}\r\n`);
  const cert = await file('client.crt', certs.client.cert);
  const key = await file('client.key', certs.client.key);
  const ca = await file('ca.crt', certs.ca.cert);
  const base = (name: string) => ['add', ...D, '--workspace', WS, '--name', name, '--url', `${REMOTE}/${name}`];

  const none = await json(t, base('open-agent'));
  t.match(none, { name: 'open-agent', workspace: WS, url: `${REMOTE}/open-agent`, auth: 'none' });
  t.match(
    none,
    { dialect: 'auto', trust: 'execute', agents: [], store_results: false, allowed_data_types: ['text', 'data', 'file'], result_retention_hours: 168 },
    'the defaults',
  );

  const apikey = await json(t, [...base('keyed'), '--auth', 'apikey', '--api-key-file', apiKeyFile, '--api-key-header', 'X-Remote-Key']);
  t.equal(apikey.auth, 'apikey');

  const bearerText = await cli([
    ...base('bearer-agent'),
    '--auth',
    'bearer',
    '--token',
    S.token,
    '--store-results',
    '--allowed-data-types',
    'text,data',
    '--retention-hours',
    '12',
    '--trust',
    'admin',
    '--agents',
    'echo,summarizer',
    '--dialect',
    'B',
  ]);
  t.equal(bearerText.code, 0, bearerText.stderr);
  t.equal(bearerText.stdout, `connection bearer-agent added to workspace ${WS}: ${REMOTE}/bearer-agent (auth bearer, trust admin)\n`, 'the text answer');

  const oauth = await json(t, [
    ...base('oauth-agent'),
    '--auth',
    'oauth',
    '--token-url',
    'https://login.example.com/oauth/token',
    '--client-id',
    'gateway-client',
    '--client-secret-file',
    secretFile,
    '--oauth-scope',
    'a2a.call',
  ]);
  t.equal(oauth.auth, 'oauth');
  const mtls = await json(t, [...base('mtls-agent'), '--auth', 'mtls', '--cert', cert, '--key', key, '--ca', ca]);
  t.equal(mtls.auth, 'mtls');

  const show = await json(t, ['show', 'bearer-agent', ...D, '--workspace', WS]);
  t.match(
    show,
    {
      auth: 'bearer',
      dialect: 'B',
      trust: 'admin',
      agents: ['echo', 'summarizer'],
      store_results: true,
      allowed_data_types: ['text', 'data'],
      result_retention_hours: 12,
    },
    'every setting was kept',
  );
  t.strictSame(Object.keys(show).sort(), [...Object.keys(none)].sort(), 'the view has the same fields for every kind');

  await stored(async (s, secret) => {
    const creds = async (name: string) => openCredentials({ secret }, (await s.connections.get(WS, name))!);
    t.strictSame(await creds('open-agent'), { kind: 'none' });
    t.strictSame(await creds('keyed'), { kind: 'apikey', header: 'X-Remote-Key', value: S.apiKey }, "a secret file's trailing newline is not part of it");
    t.strictSame(await creds('bearer-agent'), { kind: 'bearer', token: S.token });
    t.strictSame(await creds('oauth-agent'), {
      kind: 'oauth',
      tokenUrl: 'https://login.example.com/oauth/token',
      clientId: 'gateway-client',
      clientSecret: S.clientSecret,
      scope: 'a2a.call',
    });
    t.strictSame(await creds('mtls-agent'), { kind: 'mtls', cert: certs.client.cert, key: certs.client.key, ca: certs.ca.cert }, 'PEM files are kept whole');
  });
});

t.test('list, show and status, in text and JSON', async (t) => {
  const listed = await json(t, ['list', ...D]);
  t.strictSame(
    listed.map((c: any) => [c.name, c.auth]),
    [
      ['bearer-agent', 'bearer'],
      ['keyed', 'apikey'],
      ['mtls-agent', 'mtls'],
      ['oauth-agent', 'oauth'],
      ['open-agent', 'none'],
    ],
    'by name, with the auth kind',
  );
  t.strictSame(await json(t, ['list', ...D, '--workspace', WS]), listed, 'one workspace');
  t.strictSame(await json(t, ['list', ...D, '--workspace', 'other']), [], 'another workspace has none');
  const text = await cli(['list', ...D]);
  t.equal(text.code, 0);
  t.equal(text.stdout.trim().split('\n').length, 5, 'one line each');
  t.match(text.stdout, `${WS}  oauth-agent  ${REMOTE}/oauth-agent  auth oauth  trust execute  dialect auto`);
  t.equal((await cli(['list', ...D, '--workspace', 'other'])).stdout, 'no connections in workspace other\n');

  t.strictSame(await json(t, ['show', ...D, '--workspace', WS, '--name', 'oauth-agent']), listed[3], 'show by --name: the listed view');
  const shown = await cli(['show', 'oauth-agent', ...D, '--workspace', WS]);
  t.equal(shown.code, 0);
  t.match(shown.stdout, /^connection oauth-agent \(conn_\w+\) in workspace acme\n/);
  t.match(shown.stdout, /\n {2}auth {20}oauth\n/);
  t.match(shown.stdout, /\n {2}agents {18}every agent of the workspace\n/);

  const fresh = await json(t, ['status', 'keyed', ...D, '--workspace', WS]);
  t.equal(fresh.status, null, 'no status before a server loads it');
  t.equal(fresh.auth, 'apikey');
  const freshText = await cli(['status', 'keyed', ...D, '--workspace', WS]);
  t.match(freshText.stdout, /state {19}not loaded by a server yet/);

  // what a server's connection actor writes
  const at = Date.UTC(2026, 5, 1, 12);
  await stored((s) =>
    s.connections.putStatus(WS, 'keyed', {
      state: 'backing-off',
      failures: 3,
      lastError: 'unreachable: connect ECONNREFUSED',
      nextRetryAt: at + 8_000,
      dialect: 'B',
      remoteName: 'Remote Echo',
      updatedAt: at,
    }),
  );
  const reported = await json(t, ['status', 'keyed', ...D, '--workspace', WS]);
  t.strictSame(reported.status, {
    state: 'backing-off',
    failures: 3,
    last_error: 'unreachable: connect ECONNREFUSED',
    next_retry_at: '2026-06-01T12:00:08.000Z',
    dialect: 'B',
    remote_name: 'Remote Echo',
    updated_at: '2026-06-01T12:00:00.000Z',
  });
  const reportedText = await cli(['status', 'keyed', ...D, '--workspace', WS]);
  t.match(reportedText.stdout, /state {19}backing-off\n/);
  t.match(reportedText.stdout, /last error {14}unreachable: connect ECONNREFUSED\n/);
  t.match(reportedText.stdout, /next retry {14}2026-06-01T12:00:08.000Z\n/);
  t.match(reportedText.stdout, /remote {18}Remote Echo \(dialect B\)\n/);
});

t.test('update changes what is given and keeps the rest; remove deletes', async (t) => {
  const before = await json(t, ['show', 'bearer-agent', ...D, '--workspace', WS]);
  const tokenFile = await file('new-token.txt', `${S.newToken}\n`);
  const updated = await json(t, ['update', 'bearer-agent', ...D, '--workspace', WS, '--token-file', tokenFile, '--trust', 'read_only']);
  t.equal(updated.trust, 'read_only');
  t.equal(updated.auth, 'bearer');
  t.strictSame(
    { ...updated, trust: before.trust, updated_at: before.updated_at },
    before,
    'nothing else changed: id, url, agents, data types, retention, created_at',
  );
  t.ok(Date.parse(updated.updated_at) > Date.parse(before.updated_at), 'updated_at moved');
  await stored(async (s, secret) => {
    t.strictSame(openCredentials({ secret }, (await s.connections.get(WS, 'bearer-agent'))!), { kind: 'bearer', token: S.newToken }, 'the new token');
  });

  const text = await cli(['update', 'keyed', ...D, '--workspace', WS, '--no-store-results', '--agents', '', '--allowed-data-types', 'text']);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^connection keyed of workspace acme updated\n/);
  t.match(text.stdout, /agents {18}every agent of the workspace/);
  t.match(text.stdout, /allowed data types {6}text\n/);
  await stored(async (s, secret) => {
    t.strictSame(
      openCredentials({ secret }, (await s.connections.get(WS, 'keyed'))!),
      { kind: 'apikey', header: 'X-Remote-Key', value: S.apiKey },
      'credentials untouched by a settings update',
    );
  });

  const partial = await json(t, ['update', 'oauth-agent', ...D, '--workspace', WS, '--oauth-scope', 'a2a.admin']);
  t.equal(partial.auth, 'oauth');
  await stored(async (s, secret) => {
    t.match(
      openCredentials({ secret }, (await s.connections.get(WS, 'oauth-agent'))!),
      { tokenUrl: 'https://login.example.com/oauth/token', clientId: 'gateway-client', clientSecret: S.clientSecret, scope: 'a2a.admin' },
      'one credential field replaced, the others kept',
    );
  });

  refused(
    t,
    await cli(['update', 'open-agent', ...D, '--workspace', WS, '--auth', 'bearer']),
    /credentials\.token: is required \(changing auth from none to bearer needs all of its credentials\) \(--token or --token-file\)/,
    'a new auth kind without its credentials',
  );
  const switched = await json(t, ['update', 'open-agent', ...D, '--workspace', WS, '--auth', 'bearer', '--token', S.switchedToken]);
  t.equal(switched.auth, 'bearer', 'the kind changed with its credentials');

  const removed = await json(t, ['remove', 'mtls-agent', ...D, '--workspace', WS]);
  t.equal(removed.name, 'mtls-agent');
  const removedText = await cli(['remove', 'open-agent', ...D, '--workspace', WS]);
  t.equal(removedText.stdout, 'connection open-agent removed from workspace acme\n');
  t.strictSame(
    (await json(t, ['list', ...D])).map((c: any) => c.name),
    ['bearer-agent', 'keyed', 'oauth-agent'],
  );
  refused(t, await cli(['show', 'mtls-agent', ...D, '--workspace', WS]), /no connection named mtls-agent in workspace acme/, 'show after remove');
  refused(t, await cli(['remove', 'mtls-agent', ...D, '--workspace', WS]), /no connection named mtls-agent/, 'remove twice');
});

t.test('bad input is refused, naming the field, and changes nothing', async (t) => {
  const before = await json(t, ['list', ...D]);
  const add = (name: string, ...rest: string[]) => ['add', ...D, '--workspace', WS, '--name', name, '--url', REMOTE, ...rest];
  const cases: Array<[string, string[], RegExp]> = [
    ['a bad URL', ['add', ...D, '--workspace', WS, '--name', 'n1', '--url', 'not a url'], /url: Invalid URL \(--url\)/],
    ['a URL with a password in it', ['add', ...D, '--workspace', WS, '--name', 'n1', '--url', 'https://u:p@agent.example.com/'], /url: must not carry/],
    ['an unknown auth kind', add('n1', '--auth', 'magic'), /auth: 'magic' is not one of none, apikey, bearer, oauth, mtls/],
    ['a missing credential flag', add('n1', '--auth', 'bearer'), /--token or --token-file is required with --auth bearer/],
    ['oauth without a client id', add('n1', '--auth', 'oauth', '--token-url', 'https://t.example.com/', '--client-secret', 'x'), /--client-id is required/],
    [
      'a flag of another auth kind',
      add('n1', '--auth', 'apikey', '--api-key', 'x', '--token', 'y'),
      /--token is a bearer credential flag, but --auth is apikey/,
    ],
    ['a credential flag without --auth', add('n1', '--cert', '/dev/null'), /--cert is an mtls credential flag, but --auth is none/],
    ['a secret given twice', add('n1', '--auth', 'apikey', '--api-key', 'x', '--api-key-file', '/dev/null'), /give --api-key or --api-key-file, not both/],
    ['an unreadable secret file', add('n1', '--auth', 'bearer', '--token-file', join(dir, 'nope.txt')), /--token-file: cannot read .*nope\.txt \(ENOENT\)/],
    [
      'a key file that is not PEM',
      add('n1', '--auth', 'mtls', '--cert', join(dir, 'api-key.txt'), '--key', join(dir, 'client.key')),
      /credentials\.cert: must be PEM/,
    ],
    ['a bad trust level', add('n1', '--trust', 'god'), /trust: Invalid option: expected one of .*read_only.* \(--trust\)/],
    ['a bad data type', add('n1', '--allowed-data-types', 'text,video'), /allowed_data_types\[1\]: .*"text"\|"data"\|"file".*\(--allowed-data-types\)/],
    ['no data type', add('n1', '--allowed-data-types', ''), /allowed_data_types: .*\(--allowed-data-types\)/],
    ['a bad retention', add('n1', '--retention-hours', 'soon'), /result_retention_hours: 'soon' is not a positive number/],
    ['a zero retention', add('n1', '--retention-hours=0'), /result_retention_hours: '0' is not a positive number/],
    ['a bad dialect', add('n1', '--dialect', 'C'), /dialect: .* \(--dialect\)/],
    [
      'a bad header name',
      add('n1', '--auth', 'apikey', '--api-key', 'x', '--api-key-header', 'X Key'),
      /credentials\.header: an HTTP header name \(--api-key-header\)/,
    ],
    ['a bad name', add('has space'), /name: letters, digits, dot, dash, underscore \(--name\)/],
    ['no workspace', ['add', ...D, '--name', 'n1', '--url', REMOTE], /workspace: is required \(--workspace\)/],
    ['a duplicate name', add('keyed'), /name: a connection named keyed already exists in workspace acme/],
    ['an unknown flag', add('n1', '--colour', 'red'), /colour/],
    ['an unknown subcommand', ['rename', ...D], /unknown subcommand 'rename' \(add, list, show, status, update, remove\)/],
    [
      'update: a flag of another kind than the stored one',
      ['update', 'oauth-agent', ...D, '--workspace', WS, '--api-key', 'x'],
      /credentials\.value: is not a field here \(the connection's auth is oauth; give the new kind to change it\) \(--api-key or --api-key-file\)/,
    ],
    [
      'update: flags of two kinds',
      ['update', 'oauth-agent', ...D, '--workspace', WS, '--client-id', 'x', '--token', 'y'],
      /--client-id is an oauth credential flag, but --token is a bearer flag/,
    ],
    [
      'update: a flag of another kind than --auth',
      ['update', 'keyed', ...D, '--workspace', WS, '--auth', 'bearer', '--api-key', 'y'],
      /--api-key is an apikey credential flag, but --auth is bearer/,
    ],
    ['update: a bad trust level', ['update', 'keyed', ...D, '--workspace', WS, '--trust', 'root'], /trust: .*\(--trust\)/],
    ['update: a bad URL', ['update', 'keyed', ...D, '--workspace', WS, '--url', 'ftp://agent.example.com/'], /url refused: scheme 'ftp' is not allowed/],
    ['update: nothing to change', ['update', 'keyed', ...D, '--workspace', WS], /nothing to change/],
    ['update: no such connection', ['update', 'ghost', ...D, '--workspace', WS, '--trust', 'admin'], /no connection named ghost in workspace acme/],
    ['show: no workspace', ['show', 'keyed', ...D], /workspace: --workspace is required/],
    ['show: a setting flag', ['show', 'keyed', ...D, '--workspace', WS, '--trust', 'admin'], /--trust is a flag of add and update only/],
  ];
  // a few at a time: each is a Node process
  const results: CliResult[] = [];
  for (let i = 0; i < cases.length; i += 4) results.push(...(await Promise.all(cases.slice(i, i + 4).map(([, args]) => cli(args)))));
  for (const [i, [what, , field]] of cases.entries()) refused(t, results[i]!, field, what);
  t.strictSame(await json(t, ['list', ...D]), before, 'every connection is as it was');
  t.strictSame((await json(t, ['list', ...D, '--workspace', WS])).length, 3);
});

t.test('a loopback or private URL is refused unless push.allowlist holds it', async (t) => {
  const local = ['add', ...D, '--workspace', WS, '--name', 'local-agent', '--url', 'http://127.0.0.1:9/a2a'];
  refused(t, await cli(local), /url refused: points to a loopback address 127\.0\.0\.1 .*push\.allowlist/, 'loopback without allowlist');
  refused(
    t,
    await cli([
      'add',
      ...D,
      '--workspace',
      WS,
      '--name',
      'n2',
      '--url',
      REMOTE,
      '--auth',
      'oauth',
      '--token-url',
      'http://10.1.2.3/token',
      '--client-id',
      'c',
      '--client-secret',
      'x',
    ]),
    /credentials\.token_url refused: points to a private address 10\.1\.2\.3/,
    'a private OAuth token URL',
  );
  t.strictSame(
    (await json(t, ['list', ...D])).map((c: any) => c.name),
    ['bearer-agent', 'keyed', 'oauth-agent'],
    'nothing was added',
  );

  const config = await file('allow.json', JSON.stringify({ push: { allowlist: ['127.0.0.1'] } }));
  const added = await json(t, [...local, '--config', config]);
  t.equal(added.url, 'http://127.0.0.1:9/a2a', 'admitted when allowlisted');
  refused(
    t,
    await cli(['update', 'local-agent', ...D, '--workspace', WS, '--url', 'http://127.0.0.2:9/a2a', '--config', config]),
    /url refused: points to a loopback address 127\.0\.0\.2/,
    'an update to an address the allowlist does not hold',
  );
});

t.test('on Redis: the same commands against a shared store', async (t) => {
  const prefix = testPrefix('conn-cli');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const redisDir = join(dir, 'redis-data');
  const env = { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix };
  const R = ['--data-dir', redisDir, '--workspace', 'shared'];

  const bearer = await json(t, ['add', ...R, '--name', 'r-bearer', '--url', REMOTE, '--auth', 'bearer', '--token', S.redisToken], env);
  t.equal(bearer.auth, 'bearer');
  const oauth = await json(
    t,
    [
      'add',
      ...R,
      '--name',
      'r-oauth',
      '--url',
      REMOTE,
      '--auth',
      'oauth',
      '--token-url',
      'https://login.example.com/t',
      '--client-id',
      'cid',
      '--client-secret',
      S.redisClientSecret,
    ],
    env,
  );
  t.equal(oauth.auth, 'oauth');
  t.strictSame(
    (await json(t, ['list', ...R], env)).map((c: any) => c.name),
    ['r-bearer', 'r-oauth'],
  );
  t.equal((await json(t, ['status', 'r-bearer', ...R], env)).status, null);
  t.match((await cli(['show', 'r-oauth', ...R], env)).stdout, /auth {20}oauth/);
  t.equal((await json(t, ['update', 'r-bearer', ...R, '--trust', 'autonomous'], env)).trust, 'autonomous');
  refused(t, await cli(['add', ...R, '--name', 'r-bearer', '--url', REMOTE], env), /already exists/, 'a duplicate on Redis');

  const store = await openRedisStore({ url: REDIS_URL, prefix });
  t.teardown(() => store.close());
  const rec = await store.connections.get('shared', 'r-bearer');
  t.equal(rec?.trust, 'autonomous', 'the records are in Redis under the prefix');
  t.strictSame(openCredentials({ secret: await loadSecret({ dataDir: redisDir }) }, rec!), { kind: 'bearer', token: S.redisToken });
  t.notOk(
    (await json(t, ['list', ...D])).some((c: any) => c.workspace === 'shared'),
    'nothing went to the LMDB store',
  );
  t.notOk(
    (await filesUnder(redisDir)).some((f) => f.path.includes('store')),
    'no LMDB store was made for a redis config',
  );

  // every value under the prefix, raw
  const c = createClient({ url: REDIS_URL });
  c.on('error', () => {});
  await c.connect();
  const b = c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const raw: Buffer[] = [];
  for await (const batch of c.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    for (const key of batch) {
      raw.push(Buffer.from(key));
      const type = await c.type(key);
      if (type === 'hash') for (const [f, v] of Object.entries(await b.hGetAll(key))) raw.push(Buffer.from(f), v as Buffer);
      else if (type === 'string') raw.push((await b.get(key)) as Buffer);
    }
  }
  await c.close();
  t.ok(
    raw.some((v) => v.includes(REMOTE)),
    'the scan sees the stored records (so it would see a secret)',
  );
  for (const secret of [S.redisToken, S.redisClientSecret])
    t.notOk(
      raw.some((v) => v.includes(secret)),
      `${secret.slice(0, 9)}… is not in Redis in clear`,
    );

  const removed = await json(t, ['remove', 'r-oauth', ...R], env);
  t.equal(removed.name, 'r-oauth');
  t.strictSame(
    (await json(t, ['list', ...R], env)).map((c: any) => c.name),
    ['r-bearer'],
  );
});

t.test('no secret appears in any output, nor in clear in the data dir', async (t) => {
  const files = await filesUnder(dataDir);
  t.ok(
    files.some((f) => f.bytes.includes(`${REMOTE}/keyed`)),
    'the data dir holds the records in a form the grep can read (so it would see a secret)',
  );
  t.ok(outputs.length > 40, `${outputs.length} CLI runs checked`);
  for (const [what, secret] of Object.entries(S)) {
    const leaks = outputs.filter((r) => r.stdout.includes(secret) || r.stderr.includes(secret));
    t.equal(leaks.length, 0, `${what}: in no CLI output (stdout or stderr, text or JSON)`);
    const inFiles = files.filter((f) => f.bytes.includes(secret)).map((f) => f.path);
    t.strictSame(inFiles, [], `${what}: in no file under the data dir`);
  }
});

t.test('the help names every subcommand and the credential flags', async (t) => {
  const top = await runCli(['--help']);
  t.match(top.stdout, /connections add\|list\|show\|status\|update\|remove/);
  const conn = await runCli(['connections', '--help']);
  t.equal(conn.code, 0);
  for (const sub of ['add', 'list', 'show', 'status', 'update', 'remove']) {
    const r = await runCli(['connections', sub, '--help']);
    t.equal(r.code, 0);
    t.match(r.stdout, new RegExp(`^usage: a2a-gateway connections ${sub}`), `${sub} has its own usage`);
  }
  const add = await runCli(['connections', 'add', '--help']);
  for (const flag of ['--api-key-file', '--token-file', '--client-secret-file', '--cert', '--key', '--ca', '--store-results', '--retention-hours'])
    t.match(add.stdout, flag);
  const none = await runCli(['connections', ...D]);
  t.equal(none.code, 2);
  t.match(none.stderr, /a subcommand is needed: add, list, show, status, update, remove/);
});
