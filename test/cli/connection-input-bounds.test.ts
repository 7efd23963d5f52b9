// `connections add` / `update` refuse a result retention past 10 years and a repeated entry in --agents or
// --allowed-data-types, naming the flag, and change nothing. A real data dir, the CLI as a user runs it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../support/child-server.js';

t.setTimeout(300_000);

t.test('connections: retention hours are bounded, list flags take each entry once', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-conn-bounds-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env: { A2A_FROM_SOURCE: '1' } });
  const add = (name: string, ...extra: string[]) =>
    cli(['connections', 'add', '--workspace', 'acme', '--name', name, '--url', 'https://agent.example.com/a2a', '--json', ...extra]);

  const huge = await add('huge', '--retention-hours', '1e15');
  t.equal(huge.code, 2, huge.stderr);
  t.match(huge.stderr, /result_retention_hours: at most 87600 hours \(10 years\) \(--retention-hours\)/);
  const twice = await add('twice', '--agents', 'echo,summarizer,echo');
  t.equal(twice.code, 2, twice.stderr);
  t.match(twice.stderr, /agents\[2\]: "echo" is listed twice; list it once \(--agents\)/);
  const types = await add('types', '--allowed-data-types', 'text,file,text');
  t.equal(types.code, 2, types.stderr);
  t.match(types.stderr, /allowed_data_types\[2\]: "text" is listed twice; list it once \(--allowed-data-types\)/);
  const listed = await cli(['connections', 'list', '--json']);
  t.same(JSON.parse(listed.stdout), [], 'none of them was added');

  const ok = await add('ok', '--retention-hours', '87600', '--agents', 'echo,summarizer');
  t.equal(ok.code, 0, ok.stderr);
  t.equal(JSON.parse(ok.stdout).result_retention_hours, 87600, '10 years is taken');
  const update = await cli(['connections', 'update', 'ok', '--workspace', 'acme', '--retention-hours', '87601']);
  t.equal(update.code, 2, update.stderr);
  t.match(update.stderr, /--retention-hours/);
  const updateAgents = await cli(['connections', 'update', 'ok', '--workspace', 'acme', '--agents', 'a,a']);
  t.equal(updateAgents.code, 2, updateAgents.stderr);
  t.match(updateAgents.stderr, /"a" is listed twice.*--agents/);
  const shown = await cli(['connections', 'show', 'ok', '--workspace', 'acme', '--json']);
  t.match(JSON.parse(shown.stdout), { result_retention_hours: 87600, agents: ['echo', 'summarizer'] }, 'unchanged');
});
