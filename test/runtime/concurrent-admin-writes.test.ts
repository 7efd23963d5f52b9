// Admin writes racing each other on one record, on both engines (real LMDB in a temp dir, real Redis): a relay's
// announcement and an operator's agent setting, a key's rotation and an operator's setting, two `relays add` of one
// key, two rotations of one key (and a rotation beside a revoke), two connection updates, a webhook secret's rotation
// beside a delivery making or sealing one; and the stores' version-checked writes themselves. Each race is made exact
// with test/support/interleave.ts: the second operation runs whole between the first one's read and its write. Neither
// write may be lost, and of two that exclude each other exactly one succeeds.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { addConnection, updateConnection, type ConnectionAdminDeps } from '../../src/runtime/connection-admin.js';
import { createKey, revokeKey, rotateKey, type KeyLifeDeps } from '../../src/runtime/key-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { WebhookSecrets } from '../../src/runtime/push/secrets.js';
import { newSigningSecret } from '../../src/runtime/push/signing.js';
import { addRelay, recordAnnouncement, setRelayAgent, type RelayAdminDeps } from '../../src/runtime/relay-admin.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import type { Store } from '../../src/runtime/store/types.js';
import type { RelayAgentCard } from '../../src/protocol/tunnel.js';
import { afterFirstRead } from '../support/interleave.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

/** The versioned read where a store has one, else the plain read the code before it made. */
const READS = ['getVersioned', 'get'];

const card = (name: string, description: string): RelayAgentCard => ({ name, description, skills: [], streaming: false });

let worlds = 0;

/** A workspace of its own per check (the store is shared by the checks of one engine), with relay edge and agent bot. */
async function world(t: Test, store: Store) {
  const ws = `ws-${++worlds}`;
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const keyDeps: KeyLifeDeps = { keys: store.keys, relays: store.relays, secret: randomBytes(32), clock };
  const relayDeps: RelayAdminDeps = { relays: store.relays, keys: store.keys, clock };
  const key = async () => (await createKey(keyDeps, { workspace: ws, trust: 'execute' })).record;
  const relayKey = await key();
  const view = await addRelay(relayDeps, { workspace: ws, name: 'edge', key: relayKey.id });
  const rec = (await store.relays.get(ws, 'edge'))!;
  t.equal(rec.id, view.id);
  // the relay's first connection: agent bot announced, with the defaults (every key, execute)
  await recordAnnouncement({ relays: store.relays, clock }, rec, [card('bot', 'v1')]);
  return { ws, clock, keyDeps, relayDeps, key, rec };
}

async function checks(t: Test, store: Store): Promise<void> {
  t.test('store: a version-checked write at a version no longer stored writes nothing', async (t) => {
    const { ws, key } = await world(t, store);
    const relay = (await store.relays.getVersioned(ws, 'edge'))!;
    const other = { ...relay.rec, updatedAt: relay.rec.updatedAt + 1 };
    t.equal(await store.relays.putIfVersion(other, relay.version), true, 'at the version read: written');
    t.equal(await store.relays.putIfVersion({ ...relay.rec, agents: {} }, relay.version), false, 'at the old one: refused');
    t.strictSame(await store.relays.get(ws, 'edge'), other, 'nothing written by the refused one');
    const now = (await store.relays.getVersioned(ws, 'edge'))!;
    t.not(now.version, relay.version);
    t.ok(await store.relays.delete(ws, 'edge'));
    t.equal(await store.relays.putIfVersion(now.rec, now.version), false, 'a removed record is not brought back');
    t.equal(await store.relays.get(ws, 'edge'), undefined);

    const k = await key();
    const kv = (await store.keys.getVersioned(k.id))!;
    await store.keys.put({ ...k, name: 'renamed' });
    const successor = { ...k, id: `${k.id}-next`, hash: `${k.hash}-next`, rotatedFrom: k.id };
    t.equal(await store.keys.putIfVersion({ rec: { ...k, rotatedTo: successor.id }, version: kv.version, successor }), false);
    t.equal(await store.keys.get(successor.id), undefined, 'the successor of a refused write is not stored');
    t.equal(await store.keys.getByHash(successor.hash), undefined, 'nor indexed');

    const meta = `conc-meta-${ws}`;
    t.equal(await store.meta.putIfVersion(meta, 'first', null), true, 'version null: stored while there is none');
    t.equal(await store.meta.putIfVersion(meta, 'second', null), false, 'and refused once there is one');
    t.equal(await store.meta.get(meta), 'first');
  });

  t.test('an announcement at the moment of an operator setting keeps the setting', async (t) => {
    const { ws, clock, relayDeps, key, rec } = await world(t, store);
    const allowed = await key();
    const race = afterFirstRead(store.relays, {
      reads: READS,
      meanwhile: () => setRelayAgent(relayDeps, { workspace: ws, name: 'edge', agent: 'bot', keys: [allowed.id], trust: 'admin' }),
    });
    const written = await recordAnnouncement({ relays: race.store, clock }, rec, [card('bot', 'v2'), card('helper', 'h')]);
    t.ok(race.ran(), 'the operator wrote between the announcement read and its write');
    const bot = (await store.relays.get(ws, 'edge'))!.agents.bot;
    t.strictSame(bot?.keys, [allowed.id], 'the agent stays closed to every key but the one the operator named');
    t.equal(bot?.trust, 'admin', 'and keeps the trust the operator set');
    t.equal(bot?.card?.description, 'v2', 'the announcement is kept too');
    t.strictSame(written?.agents.bot?.keys, [allowed.id], 'the record the announcement returns is the merged one');
  });

  t.test('an operator setting at the moment of an announcement keeps the announcement', async (t) => {
    const { ws, clock, relayDeps, key, rec } = await world(t, store);
    const allowed = await key();
    const race = afterFirstRead(store.relays, {
      reads: READS,
      meanwhile: () => recordAnnouncement({ relays: store.relays, clock }, rec, [card('bot', 'v2'), card('helper', 'h')]),
    });
    await setRelayAgent({ ...relayDeps, relays: race.store }, { workspace: ws, name: 'edge', agent: 'bot', keys: [allowed.id] });
    t.ok(race.ran(), 'the announcement landed between the setting read and its write');
    const agents = (await store.relays.get(ws, 'edge'))!.agents;
    t.strictSame(agents.bot?.keys, [allowed.id], 'the setting is stored');
    t.equal(agents.bot?.card?.description, 'v2', 'the card announced meanwhile is kept');
    t.ok(agents.helper?.card, 'and so is the agent announced meanwhile');
  });

  t.test("a key's rotation at the moment of an operator setting keeps both", async (t) => {
    const { ws, keyDeps, relayDeps, key } = await world(t, store);
    const allowed = await key();
    await setRelayAgent(relayDeps, { workspace: ws, name: 'edge', agent: 'bot', keys: [allowed.id] });
    // the rotation's edit of the relay agents' lists reads the relay (after listing it), then the operator raises the trust
    const race = afterFirstRead(store.relays, {
      reads: ['getVersioned', 'list'],
      meanwhile: () => setRelayAgent(relayDeps, { workspace: ws, name: 'edge', agent: 'bot', trust: 'admin' }),
    });
    const made = await rotateKey({ ...keyDeps, relays: race.store }, allowed.id);
    t.ok(race.ran());
    const bot = (await store.relays.get(ws, 'edge'))!.agents.bot;
    t.strictSame(bot?.keys, [allowed.id, made.record.id], 'the new key joined the list');
    t.equal(bot?.trust, 'admin', 'the trust set meanwhile is kept');
  });

  t.test('of two relays added with one key at once, one is added; the other is told the key opens a relay', async (t) => {
    const { ws, relayDeps, key } = await world(t, store);
    const shared = await key();
    // the second add runs whole after the first one checked which relays the key opens
    const race = afterFirstRead(store.relays, {
      // the key's lookup: through the key index, or (before it) the listing
      reads: ['byKey', 'list'],
      meanwhile: () => addRelay(relayDeps, { workspace: ws, name: 'north', key: shared.id }),
    });
    await t.rejects(addRelay({ ...relayDeps, relays: race.store }, { workspace: ws, name: 'south', key: shared.id }), {
      code: 'ERR_RELAY_KEY',
      field: 'key',
      message: `key: ${shared.id} already opens relay north; give each relay its own key`,
    });
    t.ok(race.ran());
    const opened = (await store.relays.list()).filter((r) => r.keyId === shared.id).map((r) => r.name);
    t.strictSame(opened, ['north'], 'one relay is opened by the key');
  });

  t.test('of two rotations of one key at once, one mints a key; the other mints nothing and says why', async (t) => {
    const { keyDeps, key } = await world(t, store);
    const old = await key();
    let winner: string | undefined;
    const race = afterFirstRead(store.keys, {
      reads: READS,
      meanwhile: async () => {
        winner = (await rotateKey(keyDeps, old.id)).record.id;
      },
    });
    const refused: unknown = await rotateKey({ ...keyDeps, keys: race.store }, old.id).then(
      (made) => made.record.id,
      (e: unknown) => e,
    );
    t.ok(race.ran());
    t.match(refused, {
      name: 'KeyAdminError',
      code: 'ERR_KEY_CONFLICT',
      message: `key ${old.id} was rotated by another command at the same time (its new key is ${winner}); this rotation made no key`,
    });
    const successors = (await store.keys.list()).filter((k) => k.rotatedFrom === old.id).map((k) => k.id);
    t.strictSame(successors, [winner], 'one successor');
    // one at a time, a key may be rotated again (as before)
    const again = await rotateKey(keyDeps, old.id);
    t.equal(again.record.rotatedFrom, old.id);
  });

  t.test('a rotation at the moment of a revoke mints nothing; a revoke at the moment of a rotation revokes', async (t) => {
    const { keyDeps, key } = await world(t, store);
    const first = await key();
    const revoking = afterFirstRead(store.keys, { reads: READS, meanwhile: () => revokeKey(keyDeps, first.id) });
    await t.rejects(rotateKey({ ...keyDeps, keys: revoking.store }, first.id), {
      code: 'ERR_KEY_CONFLICT',
      message: `key ${first.id} was revoked while being rotated; this rotation made no key: create a new one instead`,
    });
    t.ok(revoking.ran());
    t.strictSame(
      (await store.keys.list()).filter((k) => k.rotatedFrom === first.id),
      [],
      'no successor of a revoked key',
    );

    const second = await key();
    let successor: string | undefined;
    const rotating = afterFirstRead(store.keys, {
      reads: READS,
      meanwhile: async () => {
        successor = (await rotateKey(keyDeps, second.id)).record.id;
      },
    });
    const view = await revokeKey({ ...keyDeps, keys: rotating.store }, second.id);
    t.ok(rotating.ran());
    t.equal(view.revoked, true);
    const stored = (await store.keys.get(second.id))!;
    t.not(stored.revokedAt, null, 'revoked');
    t.equal(stored.rotatedTo, successor, 'and the rotation that landed meanwhile is kept on the record');
  });

  t.test("a webhook secret made (or sealed) for a delivery at the moment of an operator's rotation keeps the rotation", async (t) => {
    const secret = randomBytes(32);
    const secrets = new WebhookSecrets({ meta: store.meta, secret });
    for (const [what, before] of [
      ['none yet', undefined],
      ['one stored in the clear by an earlier version', newSigningSecret()],
    ] as const) {
      const ws = `hooks-${++worlds}`;
      if (before !== undefined) await store.meta.put(`webhook-secret:${ws}`, before);
      let rotated: string | undefined;
      const race = afterFirstRead(store.meta, {
        reads: READS,
        meanwhile: async () => {
          rotated = await secrets.rotate(ws);
        },
      });
      const signing = await new WebhookSecrets({ meta: race.store, secret }).ensure(ws);
      t.ok(race.ran(), what);
      t.equal(await secrets.current(ws), rotated, `${what}: the secret the operator was shown is the one stored`);
      t.equal(signing, rotated, `${what}: and the delivery signs with it`);
    }
  });

  t.test('two connection updates at once each keep their change', async (t) => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const deps: ConnectionAdminDeps = {
      connections: store.connections,
      secret: randomBytes(32),
      clock,
      allowlist: parseAllowlist(['127.0.0.1']),
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    };
    const name = `c-${randomBytes(3).toString('hex')}`;
    await addConnection(deps, { workspace: 'acme', name, url: 'http://127.0.0.1:9/a' });
    const race = afterFirstRead(store.connections, {
      reads: READS,
      meanwhile: () => updateConnection(deps, { workspace: 'acme', name, settings: { trust: 'admin' } }),
    });
    // updateConnection first checks the connection exists (a plain read), then reads it for its write: held after the latter
    const view = await updateConnection({ ...deps, connections: race.store }, { workspace: 'acme', name, settings: { url: 'http://127.0.0.1:9/b' } });
    t.ok(race.ran());
    const stored = (await store.connections.get('acme', name))!;
    t.equal(stored.url, 'http://127.0.0.1:9/b', 'this update is stored');
    t.equal(stored.trust, 'admin', 'the one that landed meanwhile is kept');
    t.equal(view.trust, 'admin', 'the view returned is the record stored');
  });
}

t.test('lmdb', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-conc-'));
  const store = await openLmdbStore({ path: dir });
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  await checks(t, store);
});

t.test('redis', async (t) => {
  const prefix = testPrefix('concurrent-admin');
  const store = await openRedisStore({ url: REDIS_URL, prefix });
  t.teardown(async () => {
    await store.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  await checks(t, store);
});
