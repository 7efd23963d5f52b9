// A relay whose configured cards make a hello over the tunnel's frame bound (100 agents of 100 skills of 2,000
// characters: about 20 MB in one frame) could never announce them: it waited for a welcome that could not come and
// reconnected for ever, saying only "no welcome". It now stops at start with exit 2 naming the field. The relay runs
// as its command runs it, against a real gateway on port 0 with the relay registered.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runRelayCli } from '../../relay/cli.js';
import { MAX_FRAME_BYTES } from '../../src/protocol/tunnel.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { until } from '../support/a2a-client.js';
import { startTestGateway } from '../support/gateway.js';

t.test('cards over the frame bound: exit 2 at start, naming agents; within it, the relay announces them', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const relayKey = await gw.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(
    { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } },
    { workspace: 'ws1', name: 'home', key: relayKey.id },
  );
  const dir = await mkdtemp(join(tmpdir(), 'relay-hello-bound-'));
  const run = async (description: string) => {
    const skills = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description }));
    const agents = Array.from({ length: 100 }, (_, i) => ({ name: `agent-${i}`, local_url: 'http://127.0.0.1:9', skills }));
    const file = join(dir, `relay-${description.length}.json`);
    await writeFile(file, JSON.stringify({ workspace_id: 'ws1', api_key: relayKey.key, gateway_url: gw.url.replace(/^http/, 'ws'), agents, admin_port: 0 }));
    const lines: string[] = [];
    let stop!: () => void;
    const stopWhen = new Promise<void>((r) => (stop = r));
    let code: number | undefined;
    const exit = runRelayCli(['--config', file], {
      env: {},
      stopWhen,
      log: (m, f) => lines.push(`${m} ${JSON.stringify(f ?? {})}`),
      err: (l) => lines.push(l),
    }).then((c) => (code = c));
    return { lines, stop, exit, code: () => code };
  };

  const big = await run('d'.repeat(2_000));
  t.teardown(async () => {
    big.stop();
    await big.exit;
  });
  await until(() => big.code() !== undefined || big.lines.some((l) => l.startsWith('relay frame too large')), 'the relay to end, or to try the hello');
  t.equal(big.code(), 2, 'the relay ends with code 2');
  const said = big.lines.find((l) => l.startsWith('a2a-relay: bad config'));
  t.match(
    said,
    new RegExp(`bad config: agents: the agents' cards make a hello of \\d+ bytes, over the tunnel's frame bound of ${MAX_FRAME_BYTES}`),
    'naming the field and the bound',
  );

  // 300 characters a skill: about 3.5 MB, within the bound
  const fits = await run('d'.repeat(300));
  t.teardown(async () => {
    fits.stop();
    await fits.exit;
  });
  await until(() => fits.lines.some((l) => l.startsWith('relay tunnel up')) || fits.code() !== undefined, 'the tunnel up', 30_000);
  t.ok(
    fits.lines.some((l) => l.startsWith('relay tunnel up')),
    'cards within the bound are announced',
  );
});
