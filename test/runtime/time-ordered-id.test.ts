// The ids the gateway picks for new tasks, contexts and outbound results: UUIDv7s whose order is their time's.
import t from 'tap';
import { timeOrderedId } from '../../src/runtime/time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

t.test('a UUIDv7 carrying the given millisecond', async (t) => {
  const at = Date.parse('2026-12-07T19:00:00.123Z');
  const id = timeOrderedId(at);
  t.match(id, V7, 'version 7, RFC 9562 variant');
  t.equal(msOf(id), at, 'its first 48 bits are the time');
});

t.test('ids sort by their time; ids of one millisecond differ', async (t) => {
  const base = Date.parse('2026-12-07T19:00:00Z');
  // more than one pool of random bytes (256 ids), so a refill is crossed
  const ids = Array.from({ length: 600 }, (_, i) => timeOrderedId(base + Math.floor(i / 3)));
  const sorted = [...ids].sort();
  t.same(sorted.map(msOf), ids.map(msOf), 'sorting the ids as strings keeps them in time order');
  t.equal(new Set(ids).size, ids.length, 'no id repeats, even three to a millisecond');
  t.ok(
    ids.every((id) => V7.test(id)),
    'every one is a UUIDv7',
  );
});

t.test('a clock outside 48 bits is clamped, never wrapped', async (t) => {
  t.equal(msOf(timeOrderedId(-5)), 0, 'before 1970: the first millisecond');
  t.equal(msOf(timeOrderedId(2 ** 50)), 2 ** 48 - 1, 'past 48 bits: the last one');
  t.equal(msOf(timeOrderedId(1.7)), 1, 'a fraction is dropped');
});
