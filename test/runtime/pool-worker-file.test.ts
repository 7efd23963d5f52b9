// How the pool finds its worker and the flags a worker thread needs to load TypeScript.
import t from 'tap';
import { existsSync } from 'node:fs';
import { agentWorkerEntry, loadsTsx, workerExecArgv } from '../../src/runtime/pool/worker-file.js';

t.test('from source the worker is runtime/workers/agent-worker.ts, loaded through tsx', async (t) => {
  const { filename, execArgv } = agentWorkerEntry();
  t.match(filename, /src[\\/]runtime[\\/]workers[\\/]agent-worker\.ts$/);
  t.ok(existsSync(filename));
  t.ok(loadsTsx(execArgv));
});

t.test('tsx is detected in its usual spellings', async (t) => {
  t.ok(loadsTsx(['--import=tsx']));
  t.ok(loadsTsx(['--import', 'tsx']));
  t.ok(loadsTsx(['--import', 'file:///x/node_modules/tsx/dist/loader.mjs']));
  t.ok(loadsTsx(['--require', 'tsx/cjs']));
  t.ok(loadsTsx(['--loader=tsx/esm']));
  t.notOk(loadsTsx(['--import=file:///x/node_modules/@tapjs/mock/dist/esm/import.mjs']));
  t.notOk(loadsTsx(['--enable-source-maps', 'tsx']));
});

t.test('execArgv: tsx added once, and only for TypeScript; process-only flags dropped', async (t) => {
  t.same(workerExecArgv({ typescript: false, execArgv: ['--enable-source-maps'] }), ['--enable-source-maps']);
  const added = workerExecArgv({ typescript: true, execArgv: [] });
  t.equal(added[0], '--import');
  t.match(added[1], /tsx/);
  t.same(workerExecArgv({ typescript: true, execArgv: ['--import=tsx'] }), ['--import=tsx']);
  t.same(workerExecArgv({ typescript: false, execArgv: ['--inspect=9229', '--inspect-port', '9230', '--cpu-prof', '--no-warnings'] }), ['--no-warnings']);
  t.same(
    workerExecArgv({ typescript: false, execArgv: ['--max-semi-space-size=32', '--single-threaded-gc', '--max-old-space-size=512', '--enable-source-maps'] }),
    ['--enable-source-maps'],
    "V8's heap and GC flags are the process's: a server started with them still starts its workers",
  );
});
