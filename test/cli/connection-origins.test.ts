// `connections add|update|show --allow-origins` as a user runs it (child processes, a real data dir): the other origins
// a connection's card may send its calls to are set, shown and cleared; a value that is not an origin alone, one
// listed twice, or an internal address the allowlist does not hold is refused naming the field and the flag, and
// changes nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli } from '../support/child-server.js';

t.setTimeout(300_000);

const dir = await mkdtemp(join(tmpdir(), 'a2a-conn-origins-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const D = ['--data-dir', join(dir, 'data'), '--workspace', 'acme'];
const API = 'https://api.agent.example.com';
const cli = (args: string[]) => runCli(['connections', ...args]);

async function json(t: Test, args: string[]): Promise<any> {
  const r = await cli([...args, '--json']);
  t.equal(r.code, 0, `${args[0]}: exit 0 ${r.stderr}`);
  return JSON.parse(r.stdout);
}

t.test('add, show and update the allowed origins', async (t) => {
  const added = await json(t, [
    'add',
    ...D,
    '--name',
    'w',
    '--url',
    'https://agent.example.com/a2a',
    '--auth',
    'bearer',
    '--token',
    'tok-x',
    '--allow-origins',
    `${API}, http://api2.example.com:8080`,
  ]);
  t.strictSame(added.allowed_origins, [API, 'http://api2.example.com:8080']);
  t.strictSame((await json(t, ['show', 'w', ...D])).allowed_origins, added.allowed_origins, 'show gives them');
  const text = await cli(['show', 'w', ...D]);
  t.match(text.stdout, `\n  allowed origins         ${API}, http://api2.example.com:8080\n`);

  t.strictSame((await json(t, ['update', 'w', ...D, '--allow-origins', ''])).allowed_origins, [], "'' clears them");
  t.match((await cli(['show', 'w', ...D])).stdout, "\n  allowed origins         the url's own only\n");
  t.strictSame((await json(t, ['update', 'w', ...D, '--allow-origins', API])).allowed_origins, [API]);
  t.strictSame((await json(t, ['add', ...D, '--name', 'plain', '--url', 'https://agent.example.com/b'])).allowed_origins, [], 'none by default');
});

t.test('bad origins are refused naming the field and the flag; nothing changes', async (t) => {
  const before = await json(t, ['show', 'w', ...D]);
  const cases: Array<[string, RegExp]> = [
    [`${API}/path`, /allowed_origins\[0\]: must be an origin alone \(scheme:\/\/host\[:port\]\): https:\/\/api\.agent\.example\.com \(--allow-origins\)/],
    ['HTTPS://API.agent.example.com', /allowed_origins\[0\]: must be an origin alone .*: https:\/\/api\.agent\.example\.com/],
    ['ftp://files.example.com', /allowed_origins\[0\]: must be an http\(s\) origin such as https:\/\/api\.example\.com \(--allow-origins\)/],
    [`${API},${API}`, /allowed_origins\[1\]: "https:\/\/api\.agent\.example\.com" is listed twice; list it once \(--allow-origins\)/],
    ['http://127.0.0.1:9', /allowed_origins\[0\].*(internal|loopback)/],
  ];
  for (const [value, message] of cases) {
    const r = await cli(['update', 'w', ...D, '--allow-origins', value]);
    t.equal(r.code, 2, `${value}: exit 2 (${r.stderr.trim()})`);
    t.equal(r.stdout, '');
    t.match(r.stderr, message, value);
  }
  t.strictSame(await json(t, ['show', 'w', ...D]), before, 'unchanged');
  const r = await cli(['show', 'w', ...D, '--allow-origins', API]);
  t.equal(r.code, 2);
  t.match(r.stderr, 'connections show: --allow-origins is a flag of add and update only');
});
