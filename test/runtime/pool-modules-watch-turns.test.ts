// fs.promises.watch across a module agent's turns: a promise watcher counts against the turn whose first step starts
// it (not the one that made it), and a recycle names it once; a recursive one's handles (Node opens one per file and
// folder of its tree, as they appear) are its own. Real pool, module files in the test's temp dir.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { runInput } from './pool-helpers.js';

t.setTimeout(120_000);

/**
 * Keeps one promise watcher in its module across turns: made in one turn (`make`), iterated in another (`iterate`).
 * An fs.watch opened as it loads is standing state, as a timer set there is.
 */
const TURNS = (dir: string): string => `
import { watch } from 'node:fs';
import { watch as watchAsync } from 'node:fs/promises';
const dir = ${JSON.stringify(dir)};
const standing = watch(dir, () => {});
let made = null;
export default async function* (ctx) {
  const { act, persistent = true } = ctx.options;
  if (act === 'make' || act === 'both' || act === 'beside' || act === 'return') made = watchAsync(dir, { persistent });
  // closes the standing watcher as it starts the promise one: as many watchers are open at its end as at its start
  if (act === 'swap') standing.close();
  // the for await takes its first step at once and is left waiting when the turn ends
  if (['iterate', 'swap', 'both', 'beside', 'return'].includes(act)) (async () => { for await (const _ of made); })();
  // an fs.watch of the turn's own beside it
  if (act === 'beside') watch(dir, () => {});
  // asked to end while its step waits: the watcher ends only once that step has its event, a turn later or more
  if (act === 'return') made.return();
  yield { type: 'status', state: 'completed' };
}
`;

/**
 * Starts a watcher as it loads (`recursive` or not), iterated from there: each turn adds a file (and, recursive, a
 * folder with a file in it) to its folder and waits to see them.
 */
const STANDING = (dir: string, recursive = false): string => `
import { mkdirSync, writeFileSync } from 'node:fs';
import { watch } from 'node:fs/promises';
const dir = ${JSON.stringify(dir)};
const seen = new Set();
let wake = () => {};
(async () => {
  for await (const e of watch(dir, { recursive: ${recursive} })) { seen.add(e.filename); wake(); }
})();
const see = async (name) => { while (!seen.has(name)) await new Promise((r) => { wake = r; }); };
let n = 0;
export default async function* () {
  const name = 'touched-' + ++n + '-' + Math.random().toString(36).slice(2); // a recycled worker counts again
  writeFileSync(dir + '/' + name, 'x');
  await see(name);
  if (${recursive}) {
    mkdirSync(dir + '/' + name + '-folder');
    await see(name + '-folder');
    writeFileSync(dir + '/' + name + '-folder/inside', 'x');
    await see(name + '-folder/inside');
  }
  yield { type: 'status', state: 'completed' };
}
`;

/** A one-thread pool (each turn on the worker of the one before, unless that one was recycled) and the turns module. */
function setUp(t: Test) {
  const root = t.testdir({ watched: {} });
  const dir = join(root, 'watched');
  writeFileSync(join(root, 'turns.js'), TURNS(dir));
  const lefts: string[][] = [];
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1, onRecycle: (r) => lefts.push([...r.left]) });
  t.teardown(() => pool.destroy());
  const turn = (act: string, extra: Record<string, unknown> = {}) =>
    pool.run(runInput({ agent: { id: `turns-${act}`, kind: 'module', entry: join(root, 'turns.js'), options: { act, ...extra } } }));
  return { pool, lefts, turn };
}

t.test('a promise watcher made in one turn and first iterated in a later one counts against the later one, named once', async (t) => {
  const { pool, lefts, turn } = setUp(t);
  for (const persistent of [true, false]) {
    const had = pool.stats().workers.recycled;
    t.same(await turn('make', { persistent }), { ok: true, events: 1 });
    t.equal(pool.stats().workers.recycled, had, `persistent ${persistent}: made, never iterated: nothing runs, its worker is kept`);
    t.same(await turn('iterate'), { ok: true, events: 1 }, 'the iterating turn itself succeeds');
    t.equal(pool.stats().workers.recycled, had + 1, `persistent ${persistent}: the turn that started it is the one recycled`);
    t.same(lefts.at(-1), ['fs.promises.watch'], `persistent ${persistent}: named once, as what it is`);
  }
});

t.test('made in one turn, started in a later one that closes a watcher: not netted out by the live-handle count', async (t) => {
  const { pool, lefts, turn } = setUp(t);
  t.same(await turn('make'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 0, 'made, never iterated: its worker is kept');
  t.same(await turn('swap'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 1, 'the turn that started the promise watcher is recycled');
  t.same(lefts.at(-1), ['fs.promises.watch']);
});

t.test('made and started in the same turn: named once, not also as its FSEventWrap', async (t) => {
  const { pool, lefts, turn } = setUp(t);
  t.same(await turn('both'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 1);
  t.same(lefts.at(-1), ['fs.promises.watch']);
  // only the promise watcher's own handle is taken off the count: an fs.watch the turn left beside it is still named
  t.same(await turn('beside'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 2);
  t.same(lefts.at(-1), ['fs.promises.watch', 'FSEventWrap']);
});

t.test('return() called while its step waits does not end the watcher: that step runs on its next event', async (t) => {
  const { pool, lefts, turn } = setUp(t);
  t.same(await turn('return'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 1);
  t.same(lefts.at(-1), ['fs.promises.watch']);
});

t.test('a watcher started as the module loads and iterated across turns is standing state: its worker is kept', async (t) => {
  const root = t.testdir({ watched: {} });
  const dir = join(root, 'watched');
  const entry = join(root, 'standing.js');
  writeFileSync(entry, STANDING(dir));
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.destroy());
  for (let n = 1; n <= 3; n++) {
    t.same(await pool.run(runInput({ agent: { id: 'standing', kind: 'module', entry } })), { ok: true, events: 1 }, `turn ${n}`);
  }
  t.equal(pool.stats().workers.recycled, 0, 'each turn stepped it (its for await ran in the turn); none started it');
});

t.test('a recursive watcher started as the module loads: the watchers Node adds for new files and folders are its own, the worker is kept', async (t) => {
  const root = t.testdir({ watched: { sub: { file: 'x' } } });
  const dir = join(root, 'watched');
  const entry = join(root, 'standing-recursive.js');
  writeFileSync(entry, STANDING(dir, true));
  const lefts: string[][] = [];
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1, onRecycle: (r) => lefts.push([...r.left]) });
  t.teardown(() => pool.destroy());
  for (let n = 1; n <= 3; n++) {
    t.same(await pool.run(runInput({ agent: { id: 'standing-recursive', kind: 'module', entry } })), { ok: true, events: 1 }, `turn ${n}`);
  }
  t.equal(pool.stats().workers.recycled, 0, `no turn recycled its worker (${JSON.stringify(lefts)})`);
});

/**
 * Each turn starts a recursive watcher (`act`: a promise one, or a callback one left open or closed) and adds a folder
 * with a file in it to its tree.
 */
const RECURSIVE_TURN = (dir: string): string => `
import { mkdirSync, watch, writeFileSync } from 'node:fs';
import { watch as watchAsync } from 'node:fs/promises';
const dir = ${JSON.stringify(dir)};
let n = 0;
export default async function* (ctx) {
  const { act } = ctx.options;
  const name = act + '-' + ++n; // unique across workers: a recycled one starts counting again
  const seen = new Promise((resolve) => {
    // the first event of the new folder: the watchers Node opens for its entries are open by then (its walk is synchronous)
    if (act === 'promise') (async () => { for await (const e of watchAsync(dir, { recursive: true })) if (e.filename.startsWith(name)) resolve(); })();
    else {
      const w = watch(dir, { recursive: true }, (_type, file) => {
        if (!file.startsWith(name)) return;
        if (act === 'callback-closed') w.close();
        resolve();
      });
    }
  });
  mkdirSync(dir + '/' + name);
  writeFileSync(dir + '/' + name + '/inside', 'x');
  await seen;
  yield { type: 'status', state: 'completed' };
}
`;

t.test('a recursive watcher a turn starts and leaves open: named once, as what it is; one it closes leaves nothing', async (t) => {
  const root = t.testdir({ watched: { sub: { file: 'x' } } });
  const dir = join(root, 'watched');
  const entry = join(root, 'recursive-turn.js');
  writeFileSync(entry, RECURSIVE_TURN(dir));
  const lefts: string[][] = [];
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1, onRecycle: (r) => lefts.push([...r.left]) });
  t.teardown(() => pool.destroy());
  const turn = (act: string) => pool.run(runInput({ agent: { id: `recursive-${act}`, kind: 'module', entry, options: { act } } }));
  t.same(await turn('promise'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 1);
  t.same(lefts.at(-1), ['fs.promises.watch'], 'the promise watcher, not also the handles Node opened for its tree');
  t.same(await turn('callback'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 2, 'a callback one left open still recycles the worker');
  t.same(lefts.at(-1), ['FSEventWrap']);
  t.same(await turn('callback-closed'), { ok: true, events: 1 });
  t.equal(pool.stats().workers.recycled, 2, 'closed in its turn: nothing left, the worker is kept');
});
