// Two more time settings bounded where they come in, named when refused: `redis.commandTimeoutMs` past the longest
// delay a timer honours (2^31-1 ms; past it Node fires the timer after 1 ms, so every Redis command would time out
// at once), and `dashboard.sessionTtlMs` past 10 years (the bound of the other retention settings; past the last
// date a Date holds, every sign-in failed writing the session's expires_at).
import t from 'tap';
import { parseConfig } from '../../src/config/parse.js';

t.test('redis.commandTimeoutMs and dashboard.sessionTtlMs are bounded, naming the field', async (t) => {
  t.throws(() => parseConfig({ redis: { commandTimeoutMs: 2 ** 31 } }), /redis\.commandTimeoutMs: at most 2147483647 ms/);
  t.equal(parseConfig({ redis: { commandTimeoutMs: 2 ** 31 - 1 } }).redis.commandTimeoutMs, 2 ** 31 - 1, 'the bound itself loads');
  t.throws(() => parseConfig({ dashboard: { sessionTtlMs: 9_000_000_000_000_000 } }), /dashboard\.sessionTtlMs: at most 315360000000 ms/);
  t.equal(parseConfig({ dashboard: { sessionTtlMs: 315_360_000_000 } }).dashboard.sessionTtlMs, 315_360_000_000, 'the bound itself loads');
});
