// The repeated-key check agrees with the object its reader builds, for keys that differ only in lone surrogates. A
// request body is read by JSON.parse, which keeps a lone surrogate (`\ud800`) as one UTF-16 code unit: "\ud800" and
// "\udc00" are two keys there, and not a repeat. A remote's JSON is read with each lone surrogate made U+FFFD (keys
// too, remote-json.ts): there those two keys are one, the later kept, so the check must count them as a key named
// twice (it did not: the remote's object silently lost a key). Each case is checked against the reader's own object:
// a repeat is found exactly when that object holds fewer keys than the text names.
import t from 'tap';
import { findingsOf, remoteFindings, textFindings, type JsonPath } from '../../src/protocol/json-text.js';
import { readRemoteJson } from '../../src/protocol/remote-json.js';

/** How many keys the text names: each string followed by a colon (outside strings). */
function keysInText(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    let k = j + 1;
    while (/\s/.test(text[k] ?? '')) k++;
    if (text[k] === ':') n++;
    i = j;
  }
  return n;
}

/** How many keys the objects of `v` hold. */
function keysIn(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  if (Array.isArray(v)) return v.reduce((a: number, x) => a + keysIn(x), 0);
  return Object.keys(v).reduce((a, k) => a + 1 + keysIn((v as Record<string, unknown>)[k]), 0);
}

/** The request body's check (the first repeat, any call) and the remote reader's. */
const serverRepeat = (text: string): JsonPath | undefined => [...findingsOf(text, JSON.parse(text)).values()].find((f) => f.duplicateKey)?.duplicateKey;
const remoteRepeat = (text: string): JsonPath | undefined => remoteFindings(text, readRemoteJson(text).value).duplicateKey;

// name, JSON text (`\\u` is an escape in the text; `\u` a raw code unit in it), the repeat JSON.parse's object shows,
// the repeat the remote reader's object shows (undefined: none)
const CASES: Array<[string, string, JsonPath | undefined, JsonPath | undefined]> = [
  ['a lone high and a lone low surrogate, escaped', '{"\\ud800":1,"\\udc00":2}', undefined, ['\uFFFD']],
  ['the same lone surrogate twice', '{"\\ud800":1,"\\ud800":2}', ['\uD800'], ['\uFFFD']],
  ['one lone surrogate in two cases of hex', '{"\\uD800":1,"\\ud800":2}', ['\uD800'], ['\uFFFD']],
  ['a lone surrogate and a raw U+FFFD', '{"\\ud800":1,"\uFFFD":2}', undefined, ['\uFFFD']],
  ['a lone surrogate and an escaped U+FFFD', '{"\\udfff":1,"\\ufffd":2}', undefined, ['\uFFFD']],
  ['a raw and an escaped U+FFFD', '{"\uFFFD":1,"\\ufffd":2}', ['\uFFFD'], ['\uFFFD']],
  ['an escaped pair and the raw character', '{"\\ud83d\\ude00":1,"\u{1F600}":2}', ['\u{1F600}'], ['\u{1F600}']],
  ['a pair half escaped, half raw, and the character', '{"\\ud83d\uDE00":1,"\u{1F600}":2}', ['\u{1F600}'], ['\u{1F600}']],
  ['a pair and its halves reversed', '{"\\ud83d\\ude00":1,"\\ude00\\ud83d":2}', undefined, undefined],
  ['a high surrogate alone and in its pair', '{"\\ud83d":1,"\\ud83d\\ude00":2}', undefined, undefined],
  ['lone surrogates inside otherwise equal keys', '{"a\\ud800b":1,"a\\udc00b":2}', undefined, ['a\uFFFDb']],
  ['lone surrogates in keys that differ elsewhere', '{"a\\ud800":1,"b\\ud800":2}', undefined, undefined],
  // what a raw CESU-8 surrogate (bytes ED A0 80) decodes to: three U+FFFD, not the one a lone surrogate is read as
  ['three U+FFFD and a lone surrogate', '{"\uFFFD\uFFFD\uFFFD":1,"\\ud800":2}', undefined, undefined],
  ['raw lone surrogates (text from a JS string)', '{"\uD800":1,"\uDC00":2}', undefined, ['\uFFFD']],
  ['a raw and an escaped lone surrogate', '{"\uD800":1,"\\ud800":2}', ['\uD800'], ['\uFFFD']],
  ['nested in a result', '{"result":{"metadata":{"k":0,"\\ud800":1,"\\udfff":2}}}', undefined, ['result', 'metadata', '\uFFFD']],
  ['a colon in a string beside them', '{"u":"a:b","m":{"\\ud800":"x:y","\\udc00":2}}', undefined, ['m', '\uFFFD']],
];

for (const [name, text, server, remote] of CASES) {
  t.test(name, async (t) => {
    t.same(serverRepeat(text), server, 'a request body: the repeat JSON.parse shows, or none');
    t.same(remoteRepeat(text), remote, "a remote's JSON: the repeat its reader shows, or none");
    const named = keysInText(text);
    t.equal(server !== undefined, keysIn(JSON.parse(text)) < named, "a request body: found exactly when JSON.parse's object lost a key");
    t.equal(remote !== undefined, keysIn(readRemoteJson(text).value) < named, "a remote's JSON: found exactly when the reader's object lost a key");
    t.same(Object.fromEntries(findingsOf(text, JSON.parse(text))), Object.fromEntries(textFindings(text)), 'the shortcut finds what the full pass finds');
  });
}

t.test('random objects with keys of surrogates, escaped and raw: found exactly when the reader lost a key', async (t) => {
  const parts = ['a', '\\ud800', '\\udc00', '\\uD83D', '\\ude00', '\uD800', '\uDC00', '\u{1F600}', '\\ud83d\\ude00', '\uFFFD', '\\ufffd', '\\u0061'];
  let seed = 11;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const key = () => Array.from({ length: 1 + rnd(2) }, () => parts[rnd(parts.length)]).join('');
  const value = (depth: number): string => {
    if (depth > 2 || rnd(3) === 0) return String(rnd(10));
    return `{${Array.from({ length: 1 + rnd(3) }, () => `"${key()}":${value(depth + 1)}`).join(',')}}`;
  };
  let server = 0;
  let remote = 0;
  for (let i = 0; i < 3_000; i++) {
    const text = value(0);
    const named = keysInText(text);
    const s = serverRepeat(text) !== undefined;
    const r = remoteRepeat(text) !== undefined;
    if (s !== keysIn(JSON.parse(text)) < named) t.fail(`request body ${JSON.stringify(text)}: found ${s}`);
    if (r !== keysIn(readRemoteJson(text).value) < named) t.fail(`remote JSON ${JSON.stringify(text)}: found ${r}`);
    if (s) server++;
    if (r) remote++;
  }
  t.ok(server > 100 && remote > server, `repeats of both kinds were made (${server} for JSON.parse, ${remote} for the remote reader)`);
});
