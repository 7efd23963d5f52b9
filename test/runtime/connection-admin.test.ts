// Connection administration on a real store under a manual clock: timestamps, credential merging and kind changes,
// the URL guard with injected DNS, and credentials that open only with the secret and record they were sealed for.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import {
  type ConnectionAdminDeps,
  addConnection,
  connectionStatus,
  listConnections,
  openCredentials,
  removeConnection,
  showConnection,
  updateConnection,
} from '../../src/runtime/connection-admin.js';
import { parseAllowlist, type Resolve } from '../../src/runtime/net/guard.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';

/** DNS is outside the project: names resolve from this table, anything else is not found. */
const dns: Record<string, string> = { 'agent.example.com': '93.184.215.14', 'intranet.example.com': '10.0.0.7' };
const resolve: Resolve = async (host) => {
  const address = dns[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

async function setup(t: Test, o: { allowlist?: string[] } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-conn-admin-'));
  const store = await openLmdbStore({ path: dir });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const deps: ConnectionAdminDeps = {
    connections: store.connections,
    secret: randomBytes(32),
    clock,
    allowlist: parseAllowlist(o.allowlist ?? []),
    resolve,
  };
  return { store, clock, deps };
}

const base = { workspace: 'acme', name: 'remote', url: 'https://agent.example.com/a2a' };

t.test('add stamps the clock time, seals the credentials, and the runtime opens them', async (t) => {
  const { store, clock, deps } = await setup(t);
  const view = await addConnection(deps, { ...base, credentials: { kind: 'apikey', value: 'k-secret-1' } });
  t.equal(view.created_at, '2026-03-01T00:00:00.000Z');
  t.equal(view.updated_at, view.created_at);
  t.equal(view.auth, 'apikey');
  t.notOk(JSON.stringify(view).includes('k-secret-1'), 'the view has no secret');
  const rec = (await store.connections.get('acme', 'remote'))!;
  t.equal(rec.credentialKind, 'apikey', 'the kind is kept in clear');
  t.notOk(JSON.stringify(rec).includes('k-secret-1'), 'the record holds it sealed only');
  t.strictSame(openCredentials(deps, rec), { kind: 'apikey', header: 'X-API-Key', value: 'k-secret-1' }, 'with the default header');
  clock.advance(1);
  t.strictSame(await showConnection(deps, { workspace: 'acme', name: 'remote' }), view);
  t.strictSame(await listConnections(deps, { workspace: 'acme' }), [view]);
  t.strictSame(await listConnections(deps, { workspace: 'other' }), []);
});

t.test('update moves updatedAt by the clock, merges credentials of the same kind, needs all of a new kind', async (t) => {
  const { store, clock, deps } = await setup(t);
  const oauth = { kind: 'oauth', tokenUrl: 'https://agent.example.com/token', clientId: 'cid', clientSecret: 'cs-1', scope: 'a2a' };
  const made = await addConnection(deps, { ...base, credentials: oauth });
  const ref = { workspace: 'acme', name: 'remote' };

  clock.advance(90_000);
  const v1 = await updateConnection(deps, { ...ref, credentials: { clientSecret: 'cs-2' } });
  t.equal(v1.updated_at, '2026-03-01T00:01:30.000Z', 'updatedAt is the clock time');
  t.equal(v1.created_at, made.created_at, 'createdAt stays');
  t.equal(v1.id, made.id, 'the id stays');
  const rec1 = (await store.connections.get('acme', 'remote'))!;
  t.strictSame(openCredentials(deps, rec1), { ...oauth, clientSecret: 'cs-2' }, 'only the secret changed');

  clock.advance(1_000);
  await t.rejects(
    updateConnection(deps, { ...ref, credentials: { kind: 'bearer' } }),
    { code: 'ERR_CONNECTION_INPUT', field: 'credentials.token', message: /changing auth from oauth to bearer needs all of its credentials/ },
    'a new kind without its credentials',
  );
  await t.rejects(
    updateConnection(deps, { ...ref, credentials: { token: 't' } }),
    { code: 'ERR_CONNECTION_INPUT', field: 'credentials.token', message: /is not a field here \(the connection's auth is oauth/ },
    'a field of another kind, no kind given',
  );
  t.strictSame(await store.connections.get('acme', 'remote'), rec1, 'refused updates changed nothing');

  const v2 = await updateConnection(deps, { ...ref, settings: { trust: 'admin', agents: ['echo'] }, credentials: { kind: 'bearer', token: 'tok-2' } });
  t.match(v2, { auth: 'bearer', trust: 'admin', agents: ['echo'], updated_at: '2026-03-01T00:01:31.000Z', url: base.url });
  t.strictSame(openCredentials(deps, (await store.connections.get('acme', 'remote'))!), { kind: 'bearer', token: 'tok-2' });

  const v3 = await updateConnection(deps, { ...ref, settings: { storeResults: true } });
  t.equal(v3.store_results, true);
  t.equal(v3.trust, 'admin', 'a settings update keeps the other settings (no defaults come back)');
  t.strictSame(v3.agents, ['echo']);
  t.equal(v3.auth, 'bearer', 'and the credentials');

  await t.rejects(updateConnection(deps, ref), { code: 'ERR_CONNECTION_INPUT', message: /nothing to change/ });
  await t.rejects(updateConnection(deps, { ...ref, settings: { name: 'renamed' } }), { field: 'name', message: /name: is not a field here/ });
  await t.rejects(updateConnection(deps, { workspace: 'acme', name: 'ghost', settings: { trust: 'admin' } }), { code: 'ERR_CONNECTION_NOT_FOUND' });
});

t.test('the URL guard: resolved addresses, the allowlist, credentials in the URL, the OAuth token URL', async (t) => {
  const { deps } = await setup(t);
  await t.rejects(
    addConnection(deps, { ...base, url: 'https://intranet.example.com/a2a' }),
    { code: 'ERR_CONNECTION_URL_REFUSED', field: 'url', message: /url refused: resolves to a private address 10\.0\.0\.7/ },
    'a name that resolves to a private address',
  );
  await t.rejects(
    addConnection(deps, { ...base, credentials: { kind: 'oauth', tokenUrl: 'https://intranet.example.com/t', clientId: 'c', clientSecret: 's' } }),
    { code: 'ERR_CONNECTION_URL_REFUSED', field: 'credentials.token_url' },
  );
  await t.rejects(addConnection(deps, { ...base, url: 'https://user:pw@agent.example.com/' }), { code: 'ERR_CONNECTION_INPUT', field: 'url' });
  await t.rejects(addConnection(deps, { ...base, url: 'http://localhost:9/' }), { code: 'ERR_CONNECTION_URL_REFUSED', message: /names a loopback address/ });
  t.strictSame(await listConnections(deps), [], 'nothing was stored');

  const allowed = await setup(t, { allowlist: ['10.0.0.0/8'] });
  const v = await addConnection(allowed.deps, { ...base, url: 'https://intranet.example.com/a2a' });
  t.equal(v.url, 'https://intranet.example.com/a2a', 'admitted by the allowlist');
  await t.rejects(
    updateConnection(allowed.deps, { workspace: 'acme', name: 'remote', settings: { url: 'http://127.0.0.1/' } }),
    { code: 'ERR_CONNECTION_URL_REFUSED' },
    'an update is guarded too',
  );
});

t.test('input errors name the field as the views do', async (t) => {
  const { deps } = await setup(t);
  const cases: Array<[unknown, string]> = [
    [{ ...base, workspace: 'a/b' }, 'workspace'],
    [{ ...base, name: 'a b' }, 'name'],
    [{ ...base, allowedDataTypes: ['text', 'video'] }, 'allowed_data_types[1]'],
    [{ ...base, resultRetentionHours: 0 }, 'result_retention_hours'],
    [{ ...base, credentials: { kind: 'oauth', tokenUrl: 'https://agent.example.com/t', clientSecret: 's' } }, 'credentials.client_id'],
    [{ ...base, credentials: { kind: 'mtls', cert: 'not pem', key: 'x' } }, 'credentials.cert'],
    [{ ...base, credentials: { kind: 'none' }, extra: 1 }, 'extra'],
  ];
  for (const [input, field] of cases) {
    await t.rejects(
      addConnection(deps, input),
      { name: 'ConnectionAdminError', code: 'ERR_CONNECTION_INPUT', field, message: new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `) },
      field,
    );
  }
  await addConnection(deps, base);
  await t.rejects(addConnection(deps, { ...base, url: 'https://agent.example.com/other' }), { code: 'ERR_CONNECTION_EXISTS', field: 'name' });
  t.equal((await addConnection(deps, { ...base, workspace: 'other' })).workspace, 'other', 'the same name in another workspace is fine');
});

t.test('credentials open only with their server secret and in their own record', async (t) => {
  const { store, deps } = await setup(t);
  await addConnection(deps, { ...base, credentials: { kind: 'bearer', token: 'tok-a' } });
  await addConnection(deps, { ...base, name: 'other', credentials: { kind: 'bearer', token: 'tok-b' } });
  const a = (await store.connections.get('acme', 'remote'))!;
  const b = (await store.connections.get('acme', 'other'))!;
  t.throws(() => openCredentials({ secret: randomBytes(32) }, a), {
    name: 'ConnectionAdminError',
    code: 'ERR_CONNECTION_CREDENTIALS',
    message: /connection remote of workspace acme: its credentials do not open \(ERR_SEALED_UNOPENABLE: was the server secret changed\?\)/,
  });
  t.throws(() => openCredentials(deps, { ...a, sealed: b.sealed }), { code: 'ERR_CONNECTION_CREDENTIALS' }, "another record's sealed credentials");
  t.throws(() => openCredentials(deps, { ...a, credentialKind: 'apikey' }), { code: 'ERR_CONNECTION_CREDENTIALS', message: /are not apikey credentials/ });
});

t.test('status: null until reported, then the public view; remove takes both', async (t) => {
  const { store, clock, deps } = await setup(t);
  const ref = { workspace: 'acme', name: 'remote' };
  await addConnection(deps, base);
  t.equal((await connectionStatus(deps, ref)).status, null);
  await store.connections.putStatus('acme', 'remote', {
    state: 'circuit-open',
    failures: 5,
    lastError: 'timeout',
    nextRetryAt: clock.now() + 60_000,
    updatedAt: clock.now(),
  });
  t.strictSame((await connectionStatus(deps, ref)).status, {
    state: 'circuit-open',
    failures: 5,
    last_error: 'timeout',
    next_retry_at: '2026-03-01T00:01:00.000Z',
    dialect: null,
    remote_name: null,
    updated_at: '2026-03-01T00:00:00.000Z',
  });
  t.equal((await removeConnection(deps, ref)).name, 'remote');
  t.equal(await store.connections.getStatus('acme', 'remote'), undefined, 'the status went with it');
  await t.rejects(connectionStatus(deps, ref), { code: 'ERR_CONNECTION_NOT_FOUND', message: 'no connection named remote in workspace acme' });
  await t.rejects(removeConnection(deps, ref), { code: 'ERR_CONNECTION_NOT_FOUND' });
});
