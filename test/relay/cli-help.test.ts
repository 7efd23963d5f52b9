// `a2a-relay --help` is output asked for: the usage goes to stdout with exit 0 (as `a2a-gateway --help` does), so a
// pipe (`a2a-relay --help | less`) reads it; a bad flag is still an error on stderr with exit 2.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const BIN = fileURLToPath(new URL('../../bin/a2a-relay.js', import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, A2A_FROM_SOURCE: '1' } }, (e, stdout, stderr) =>
      resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

t.test('--help prints the usage on stdout and exits 0', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await run([flag]);
    t.equal(r.code, 0, `${flag}: exit 0`);
    t.match(r.stdout, /^usage: a2a-relay \[--config FILE\] \[--insecure\]/, `${flag}: the usage on stdout`);
    t.equal(r.stderr, '', `${flag}: nothing on stderr`);
  }
});

t.test('an unknown flag is an error on stderr, exit 2', async (t) => {
  const r = await run(['--bogus']);
  t.equal(r.code, 2);
  t.equal(r.stdout, '');
  t.match(r.stderr, /^a2a-relay: Unknown option '--bogus'/);
});
