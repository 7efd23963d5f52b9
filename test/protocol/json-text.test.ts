// The request body's text pass (duplicate keys, integers past 2^53 − 1) and its shortcut: findingsOf skips the pass
// only when the parsed value proves there is nothing to find, so it must find exactly what the full pass finds, on
// bodies made to tempt the shortcut (colons inside strings, escaped spellings, deep nesting, batches) and on random ones.
import t from 'tap';
import { findingsOf, textFindings } from '../../src/protocol/json-text.js';

const same = (text: string) => {
  const full = Object.fromEntries(textFindings(text));
  const quick = Object.fromEntries(findingsOf(text, JSON.parse(text)));
  return { full, quick };
};

const deep = (n: number, inner: string) => '{"a":'.repeat(n) + inner + '}'.repeat(n);

const cases: Array<[string, string, boolean]> = [
  ['a plain tasks/get', '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"}}', false],
  ['a key named twice', '{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"tasks/cancel","params":{"id":"t"}}', true],
  ['a key named twice in a body with a colon in a string', '{"id":1,"params":{"u":"http://x:1","u":"y"}}', true],
  ['a colon in a string, no duplicate', '{"id":1,"params":{"url":"http://x:1/a:b"}}', false],
  ['an escaped spelling of the same key', '{"id":1,"params":{"a":1,"\\u0061":2}}', true],
  ['__proto__ twice', '{"id":1,"params":{"__proto__":1,"__proto__":2}}', true],
  ['a big integer', '{"id":1,"params":{"n":12345678901234567890}}', true],
  ['a negative big integer', '{"id":1,"params":{"n":-9007199254740993}}', true],
  ['2^53 − 1 exactly', '{"id":1,"params":{"n":9007199254740991}}', false],
  ['a float past 2^53', '{"id":1,"params":{"n":1e20}}', false],
  ['sixteen digits in a string', '{"id":1,"params":{"s":"12345678901234567890"}}', false],
  ['a duplicate 100 levels down', `{"id":1,"params":${deep(100, '{"b":1,"b":2}')}}`, true],
  ['100 levels, no duplicate', `{"id":1,"params":${deep(100, '{"b":1}')}}`, false],
  ['a batch with a duplicate in its second call', '[{"id":1,"method":"a"},{"id":2,"id":3,"method":"b"}]', true],
  ['a batch with a big integer in its first call', '[{"id":1,"params":{"n":99999999999999999}},{"id":2}]', true],
];

for (const [name, text, finds] of cases) {
  t.test(name, async (t) => {
    const { full, quick } = same(text);
    t.same(quick, full, 'the shortcut finds what the full pass finds');
    t.equal(Object.keys(full).length > 0, finds, finds ? 'something is found' : 'nothing is found');
  });
}

t.test('random bodies, some with a key repeated or a big integer: the shortcut never misses', async (t) => {
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const value = (depth: number): string => {
    const r = rnd(depth > 3 ? 4 : 7);
    if (r === 0) return String(rnd(1000));
    if (r === 1) return rnd(5) === 0 ? '123456789012345678901' : '"a:b"';
    if (r === 2) return '"plain"';
    if (r === 3) return 'null';
    if (r === 4) return `[${Array.from({ length: rnd(3) }, () => value(depth + 1)).join(',')}]`;
    const keys = Array.from({ length: 1 + rnd(4) }, () => `k${rnd(4)}`);
    return `{${keys.map((k) => `"${k}":${value(depth + 1)}`).join(',')}}`;
  };
  let found = 0;
  for (let i = 0; i < 2_000; i++) {
    const text = `{"id":${i},"params":${value(0)}}`;
    const { full, quick } = same(text);
    if (JSON.stringify(quick) !== JSON.stringify(full)) {
      t.fail(`the shortcut differs on ${text}`);
      return;
    }
    if (Object.keys(full).length > 0) found++;
  }
  t.ok(found > 50, `the random bodies did hold things to find (${found} of 2,000)`);
  t.pass('the shortcut matched the full pass on 2,000 random bodies');
});
