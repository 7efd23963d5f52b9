// `connections add|update` as a user runs it (child processes, a real data dir): an API key or bearer token goes out
// as an HTTP header on every call, so one holding a line break or a character outside printable ASCII is refused,
// naming the field and its flags, and nothing is stored. Before, it was sealed and stored, and every call then failed
// as if the remote could not be reached (Node refuses such a header).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli } from '../support/child-server.js';

t.setTimeout(300_000);

const dir = await mkdtemp(join(tmpdir(), 'a2a-conn-headers-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const D = ['--data-dir', join(dir, 'data'), '--workspace', 'acme'];
const cli = (args: string[]) => runCli(['connections', ...args]);
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

function refused(t: Test, r: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  t.equal(r.code, 2, r.stderr.trim());
  t.equal(r.stdout, '');
  t.match(r.stderr, message);
}

t.test('a token or API key that cannot be an HTTP header is refused; nothing is stored', async (t) => {
  const base = (name: string) => ['add', ...D, '--name', name, '--url', 'https://agent.example.com/a2a'];
  refused(
    t,
    await cli([...base('b'), '--auth', 'bearer', '--token', 'tok\u00e9n']),
    /credentials\.token: must be printable ASCII: it is sent as an HTTP header \(--token or --token-file\)/,
  );
  const twoLines = await file('key.txt', 'first-line\nsecond-line\n');
  refused(
    t,
    await cli([...base('k'), '--auth', 'apikey', '--api-key-file', twoLines]),
    /credentials\.value: must be printable ASCII: it is sent as an HTTP header \(--api-key or --api-key-file\)/,
  );
  t.equal((await cli(['list', ...D])).stdout, 'no connections in workspace acme\n', 'nothing stored');

  // one line (its trailing newline dropped) is taken; an update to an unsendable token is refused and changes nothing
  const oneLine = await file('token.txt', 'tok-fine\n');
  const added = await cli([...base('b'), '--auth', 'bearer', '--token-file', oneLine, '--json']);
  t.equal(added.code, 0, added.stderr);
  const before = (await cli(['show', 'b', ...D, '--json'])).stdout;
  refused(t, await cli(['update', 'b', ...D, '--token', 'tok\r\nX-Injected: 1']), /credentials\.token: must be printable ASCII/);
  t.equal((await cli(['show', 'b', ...D, '--json'])).stdout, before, 'unchanged');
});
