// Standard Webhooks signing against the published test vector, secrets in the store, and the backoff curve.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backoffDelay } from '../../src/runtime/push/backoff.js';
import { pushConfigSeal } from '../../src/runtime/push/config-secrets.js';
import { WebhookSecrets } from '../../src/runtime/push/secrets.js';
import { newSigningSecret, sign, signingKey, webhookHeaders } from '../../src/runtime/push/signing.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';

const SERVER = Buffer.from('a server secret of at least 32 bytes...');

t.test('the Standard Webhooks reference vector', async (t) => {
  // published with the Standard Webhooks reference libraries; a receiver's library must accept what we send
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const got = sign({ secret, id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' });
  t.equal(got, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  t.same(webhookHeaders({ secret, id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' }), {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': got,
  });
});

t.test('secrets: whsec_ + base64 of 32 random bytes', async (t) => {
  const s = newSigningSecret();
  t.match(s, /^whsec_[A-Za-z0-9+/]+=*$/);
  t.equal(signingKey(s).length, 32);
  t.not(newSigningSecret(), s);
  t.throws(() => signingKey('not-a-secret'), /whsec_/);
});

t.test('workspace secrets live in the store: made on first use, replaced by rotate, survive a reopen', async (t) => {
  const path = await mkdtemp(join(tmpdir(), 'a2a-secrets-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  const store = await openLmdbStore({ path });
  const secrets = new WebhookSecrets({ meta: store.meta, secret: SERVER });
  t.equal(await secrets.current('ws-a'), undefined);
  const made = await secrets.ensure('ws-a');
  t.equal(await secrets.ensure('ws-a'), made, 'ensure keeps an existing secret');
  const rotated = await secrets.rotate('ws-a');
  t.not(rotated, made);
  t.equal(await secrets.current('ws-a'), rotated);
  t.equal(await secrets.current('ws-b'), undefined, 'per workspace');
  await t.rejects(secrets.rotate(''), { code: 'ERR_WEBHOOK_SECRET', message: /workspace/ });
  await t.rejects(secrets.rotate('a/b'), { code: 'ERR_WEBHOOK_SECRET', message: /workspace/ });
  // the bounds of every workspace id a key or connection names (protocol/records.ts): no secret for a workspace no key can reach
  await t.rejects(secrets.rotate('w'.repeat(129)), { code: 'ERR_WEBHOOK_SECRET', message: /^workspace: at most 128 characters/ });
  await t.rejects(secrets.rotate('*'), { code: 'ERR_WEBHOOK_SECRET', message: /^workspace: a workspace id is not "\*"/ });
  t.equal(await secrets.current('*'), undefined, 'nothing stored for a refused id');
  await store.meta.put('webhook-secret:ws-c', 'garbage');
  await t.rejects(secrets.current('ws-c'), { code: 'ERR_WEBHOOK_SECRET' }, 'a damaged secret is refused, not used');
  await store.close();
  const again = await openLmdbStore({ path });
  t.equal(await new WebhookSecrets({ meta: again.meta, secret: SERVER }).current('ws-a'), rotated);
  await again.close();
});

t.test('workspace secrets are sealed at rest under the server secret; one stored in the clear before is sealed on use', async (t) => {
  const path = await mkdtemp(join(tmpdir(), 'a2a-secrets-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  const store = await openLmdbStore({ path });
  t.teardown(() => store.close());
  const secrets = new WebhookSecrets({ meta: store.meta, secret: SERVER });
  const rotated = await secrets.rotate('ws-a');
  const raw = await store.meta.get('webhook-secret:ws-a');
  t.type(raw, 'string');
  t.notOk(String(raw).includes(rotated.slice('whsec_'.length)), 'the stored value does not hold the secret');
  t.equal(await secrets.current('ws-a'), rotated, 'and opens to it');

  const other = new WebhookSecrets({ meta: store.meta, secret: Buffer.from('another server secret, 32 bytes!') });
  await t.rejects(
    other.current('ws-a'),
    { code: 'ERR_WEBHOOK_SECRET', message: /does not open with this server secret.*rotate/ },
    'another server secret cannot open it',
  );
  // a sealed value moved to another workspace's entry does not open there either
  await store.meta.put('webhook-secret:ws-b', raw);
  await t.rejects(secrets.current('ws-b'), { code: 'ERR_WEBHOOK_SECRET' }, 'a value copied from another workspace is refused');

  // a secret written in the clear by an earlier version
  const legacy = newSigningSecret();
  await store.meta.put('webhook-secret:ws-old', legacy);
  t.equal(await secrets.current('ws-old'), legacy, 'an earlier clear secret is still read');
  t.equal(await secrets.ensure('ws-old'), legacy, 'a delivery signs with the same secret');
  t.not(await store.meta.get('webhook-secret:ws-old'), legacy, 'and it is sealed in place');
  t.equal(await secrets.current('ws-old'), legacy, 'still the same secret');
});

t.test('backoff: exponential, capped, jittered within the upper half', async (t) => {
  const p = { baseMs: 1_000, maxMs: 30_000 };
  t.same(
    [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(p, n, () => 0.999999)),
    [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000],
  );
  t.same(
    [1, 2, 3].map((n) => backoffDelay(p, n, () => 0)),
    [500, 1_000, 2_000],
  );
  for (let n = 1; n < 80; n++) {
    const d = backoffDelay(p, n);
    t.ok(d >= Math.min(p.maxMs, p.baseMs * 2 ** (n - 1)) / 2 && d <= p.maxMs, `failure ${n}: ${d} ms`);
  }
});

t.test("a push config's token and credentials: sealed for the store, opened for delivery, bound to their config", async (t) => {
  const seal = pushConfigSeal({ secret: SERVER });
  const rec = {
    id: 'cfg-1',
    taskId: 'ws/t1',
    url: 'https://hooks.example/x',
    token: 'tok-1',
    authentication: { schemes: ['Bearer'], credentials: 'cred-1' },
    createdAt: 1,
    disabled: false,
  };
  const stored = seal.seal(rec);
  t.equal(stored.sealed, true);
  t.notMatch(JSON.stringify(stored), /tok-1|cred-1/, 'neither value is in the stored form');
  t.same(stored.authentication?.schemes, ['Bearer'], 'the schemes stay readable');
  t.strictSame(seal.open(stored), rec, 'opens to the config as given');
  t.equal(seal.seal(stored), stored, 'sealing twice changes nothing');
  t.throws(() => seal.open({ ...stored, id: 'cfg-2' }), { code: 'ERR_SEALED_UNOPENABLE' }, 'copied to another config, it does not open');
  t.throws(() => pushConfigSeal({ secret: Buffer.from('another server secret, 32 bytes!') }).open(stored), { code: 'ERR_SEALED_UNOPENABLE' });
  t.strictSame(seal.open(rec), rec, 'a config stored in the clear by an earlier version is used as it is');
  const bare = { id: 'c', taskId: 'ws/t', url: 'https://h.example', createdAt: 1, disabled: false };
  t.strictSame(seal.open(seal.seal(bare)), bare, 'a config without secrets round-trips');
});
