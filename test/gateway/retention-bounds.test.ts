// `retention.taskTtlMs` is bounded as the other retention settings are (a connection's results: at most 87,600 hours,
// 10 years): a value past it, from the config file or the schema, is refused naming the field, never accepted and
// left to overflow the sweep's date arithmetic. 0 (keep forever) and the bound itself still load.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { parseConfig } from '../../src/config/parse.js';

const TEN_YEARS_MS = 87_600 * 3_600_000;

t.test('retention.taskTtlMs past 10 years is refused naming the field', async (t) => {
  for (const taskTtlMs of [TEN_YEARS_MS + 1, Number.MAX_SAFE_INTEGER]) {
    t.throws(() => parseConfig({ retention: { taskTtlMs } }), /retention\.taskTtlMs: .*87600 hours/, `${taskTtlMs} refused`);
  }
  t.equal(parseConfig({ retention: { taskTtlMs: TEN_YEARS_MS } }).retention.taskTtlMs, TEN_YEARS_MS, 'the bound itself loads');
  t.equal(parseConfig({ retention: { taskTtlMs: 0 } }).retention.taskTtlMs, 0, '0 still keeps tasks forever');

  const dir = await mkdtemp(join(tmpdir(), 'a2a-retention-bounds-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify({ retention: { taskTtlMs: 9_007_199_254_740_991 } }));
  await t.rejects(loadConfig({ file, env: {}, flags: {} }), { name: 'ConfigError', message: /config file .*retention\.taskTtlMs: at most/s });
});
