// Whole numbers from the environment, through the real commands: plain decimal digits only. Number() would take
// '0x10', '1e3', ' 12 ', '0b1' and '12.0', so a typo or a paste bound another port or set another limit than meant.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RELAY_BIN, runCli, startChildServer } from '../support/child-server.js';

t.setTimeout(600_000);

const NOT_DECIMAL = ['0x10', '1e3', ' 12 ', '12abc', 'Infinity', '0b1', '12.0', '-1', '+5'];

t.test('gateway: an env integer that is not plain decimal stops serve, naming the variable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-env-int-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cases: Array<[string, string]> = [
    ...NOT_DECIMAL.map((v) => ['A2A_PORT', v] as [string, string]),
    ['A2A_MAX_BODY_BYTES', '1e6'],
    ['A2A_MAX_BATCH_SIZE', '0x10'],
  ];
  // no --port where A2A_PORT is under test (the flag would win); a value wrongly taken binds and never exits
  const results = await Promise.all(
    // a data dir each: one taken wrongly would hold its dir's lock and turn the others' refusals into another error
    cases.map(([name, v], i) =>
      runCli(['serve', '--data-dir', join(dir, `data-${i}`), ...(name === 'A2A_PORT' ? [] : ['--port', '0'])], {
        env: { [name]: v, ...(name !== 'A2A_PORT' && { A2A_PORT: '0' }) },
        timeoutMs: 45_000,
      }),
    ),
  );
  for (const [i, [name, v]] of cases.entries()) {
    const r = results[i]!;
    const what = `${name}=${JSON.stringify(v)}`;
    t.not(r.code, 0, `${what}: exits non-zero`);
    t.equal(r.signal, null, `${what}: exits by itself`);
    t.notMatch(r.stdout, /listening/, `${what}: never listens`);
    t.match(r.stderr, new RegExp(`${name} \\(setting \\w+\\): .*plain decimal`), `${what}: the message names the variable and the rule: ${r.stderr.trim()}`);
  }
});

t.test('gateway: the --port flag takes plain decimal digits only too; plain decimals are taken', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-env-int-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const flag = await runCli(['serve', '--data-dir', join(dir, 'data'), '--port', '0x10'], { timeoutMs: 45_000 });
  t.not(flag.code, 0, '--port 0x10 exits non-zero');
  t.equal(flag.signal, null, '--port 0x10 exits by itself');
  t.match(flag.stderr, /port \(--port, A2A_PORT\)/, 'naming the setting');

  // leading zeros are still plain decimal; the batch limit read from env applies
  const s = await startChildServer({ dataDir: join(dir, 'data2'), port: null, env: { A2A_PORT: '0', A2A_MAX_BATCH_SIZE: '002' } });
  t.teardown(() => s.kill('SIGKILL'));
  const body = JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'tasks/get', params: { id: 'x' } })));
  const batch = await (await fetch(`${s.url}/api/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).json();
  t.equal(batch?.error?.code, -32600, `a batch of 3 passes A2A_MAX_BATCH_SIZE=002: ${JSON.stringify(batch)}`);
});

t.test('relay: SVC_ADMIN_PORT that is not plain decimal stops a2a-relay (exit 2), naming the variable', async (t) => {
  const base = { SVC_API_KEY: 'k', SVC_WORKSPACE_ID: 'w', SVC_GATEWAY_URL: 'ws://127.0.0.1:1', LOCAL_AGENT_URL: 'http://127.0.0.1:1' };
  const results = await Promise.all(NOT_DECIMAL.map((v) => runCli([], { bin: RELAY_BIN, env: { ...base, SVC_ADMIN_PORT: v }, timeoutMs: 45_000 })));
  for (const [i, v] of NOT_DECIMAL.entries()) {
    const r = results[i]!;
    const what = `SVC_ADMIN_PORT=${JSON.stringify(v)}`;
    t.equal(r.code, 2, `${what}: exit 2 (bad config)`);
    t.match(r.stderr, /admin_port \(from SVC_ADMIN_PORT\): .*plain decimal/, `${what}: names the variable and the rule: ${r.stderr.trim()}`);
  }
});
