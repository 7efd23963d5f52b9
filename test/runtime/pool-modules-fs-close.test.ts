// A file handle's close still in flight at a turn's end is a request that ends by itself, as a read or a write is: the
// turn waits for it and its worker is kept (it was judged left running, `CloseReq`, and the worker replaced; seen in
// CI on a clean agent's turn). Real pool, a module file in the test's temp dir.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { runInput } from './pool-helpers.js';

t.setTimeout(120_000);

/**
 * Opens many handles on one file, starts reads of it, and closes the handles without waiting: the closes queue in
 * libuv's thread pool behind the reads, so they are still in flight when the reads (which the turn waits for) are done.
 */
const CLOSER = (file: string): string => `
import { open, readFile } from 'node:fs/promises';
let turns = 0;
export default async function* () {
  turns++;
  const handles = await Promise.all(Array.from({ length: 200 }, () => open(${JSON.stringify(file)}, 'r')));
  for (let i = 0; i < 32; i++) void readFile(${JSON.stringify(file)});
  for (const h of handles) void h.close();
  yield { type: 'status', state: 'completed', message: { role: 'agent', parts: [{ kind: 'data', data: { turns } }] } };
}
`;

t.test("a turn that leaves its file handles' closes in flight keeps its worker", async (t) => {
  const root = t.testdir({ 'data.txt': 'x'.repeat(4 << 20) });
  writeFileSync(join(root, 'closer.js'), CLOSER(join(root, 'data.txt')));
  const lefts: string[][] = [];
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1, onRecycle: (r) => lefts.push([...r.left]) });
  t.teardown(() => pool.destroy());
  const agent = { id: 'closer', kind: 'module' as const, entry: join(root, 'closer.js') };
  for (let i = 0; i < 5; i++) await pool.run(runInput({ agent }));
  t.strictSame(lefts, [], 'no turn was judged to leave something running');
});
