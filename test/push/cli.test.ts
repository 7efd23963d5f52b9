// `a2a-gateway webhooks secret rotate` through the real CLI: usage errors name the field; the store keeps the last secret.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSecret } from '../../src/runtime/keys.js';
import { WebhookSecrets } from '../../src/runtime/push/secrets.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { jsonOut, runCli } from '../support/cli.js';

t.test('webhooks secret rotate', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-webhooks-cli-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const [noWorkspace, badWorkspace, unknown, text, json] = await Promise.all([
    runCli(['webhooks', 'secret', 'rotate', '--data-dir', dataDir]),
    runCli(['webhooks', 'secret', 'rotate', '--workspace', 'a/b', '--data-dir', dataDir]),
    runCli(['webhooks', 'secret', 'show', '--workspace', 'w', '--data-dir', dataDir]),
    runCli(['webhooks', 'secret', 'rotate', '--workspace', 'ws-text', '--data-dir', dataDir]),
    runCli(['webhooks', 'secret', 'rotate', '--workspace', 'ws-json', '--data-dir', dataDir, '--json']),
  ]);
  t.equal(noWorkspace.code, 2);
  t.match(noWorkspace.stderr, /workspace: --workspace is required/);
  t.equal(badWorkspace.code, 2);
  t.match(badWorkspace.stderr, /workspace: a workspace id has no "\/"/);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown subcommand 'secret show'/);

  t.equal(text.code, 0, text.stderr);
  const shown = /^\s+(whsec_\S+)$/m.exec(text.stdout)?.[1];
  t.ok(shown, 'the text form shows the secret on its own line');
  t.match(text.stdout, /shown once/);
  t.equal(json.code, 0, json.stderr);
  const out = jsonOut(json) as { workspace: string; secret: string };
  t.same(Object.keys(out).sort(), ['secret', 'workspace']);
  t.equal(out.workspace, 'ws-json');

  const store = await openLmdbStore({ path: join(dataDir, 'store') });
  t.teardown(() => store.close());
  const secrets = new WebhookSecrets({ meta: store.meta, secret: await loadSecret({ dataDir }) });
  t.equal(await secrets.current('ws-text'), shown, 'the store holds what was shown');
  t.notMatch(String(await store.meta.get('webhook-secret:ws-text')), shown!, 'sealed at rest: the stored value is not the secret');
  t.equal(await secrets.current('ws-json'), out.secret);
});
