// What JSON.parse does not say about a JSON text (a request body, a config file, a remote's answer or card), read from it: a key an object names twice (JSON.parse keeps
// the last) and an integer written past ±(2^53 − 1) (JSON.parse rounds it to a double, so its digits change). One
// pass over text JSON.parse already accepted, so the grammar is not checked again; strings are skipped by indexOf.

import { wellFormed } from './json-depth.js';

/** A value's place: keys and list indexes from the body's top (a batch's first segment is the call's index). */
export type JsonPath = ReadonlyArray<string | number>;

/** The first of each kind per call: `key` of a body that is one object; a batch's by its index. */
export interface TextFindings {
  /** the path of a key's second appearance in its object */
  duplicateKey?: JsonPath;
  /** the path of an integer literal past ±(2^53 − 1) */
  unsafeInteger?: JsonPath;
}

/** The largest integer a double holds with every integer below it, as digits (2^53 − 1). */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

interface Frame {
  /** an object (else a list) */
  object: boolean;
  /** an object's first key: most objects of a hostile body have one, and need no list for it */
  first: string | undefined;
  /** an object's keys from its second on, the first included (a list while short: cheaper than a Set) */
  keys: string[] | Set<string> | undefined;
  /** the current key (object) or index (list) */
  at: string | number;
  /** an object between `{` or `,` and its next key */
  wantKey: boolean;
}

/** keys an object's list holds before they move to a Set */
const SHORT_KEYS = 16;

/** Adds `key` to the object's keys; false when it was there already. */
function addKey(f: Frame, key: string): boolean {
  if (f.first === undefined) {
    f.first = key;
    return true;
  }
  const keys = f.keys;
  if (keys === undefined) {
    if (key === f.first) return false;
    f.keys = [f.first, key];
    return true;
  }
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false;
    keys.push(key);
    if (keys.length > SHORT_KEYS) f.keys = new Set(keys);
    return true;
  }
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    j = text.indexOf('"', j);
    let slashes = 0;
    while (text.charCodeAt(j - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return j;
    j++;
  }
}

/** An integer literal (no point, no exponent) past ±(2^53 − 1): `token` is a number as JSON writes it. */
function unsafeInteger(token: string): boolean {
  const digits = token.charCodeAt(0) === 45 ? token.slice(1) : token;
  if (digits.length < MAX_SAFE_DIGITS.length) return false;
  if (/[.eE]/.test(digits)) return false;
  return digits.length > MAX_SAFE_DIGITS.length || digits > MAX_SAFE_DIGITS;
}

const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/** A subtree of a value the pass leaves alone (one never read): true for a path in it (the call's own, in a batch). */
export type SkipPath = (path: JsonPath) => boolean;

/** How the reader of the text keeps a key: a repeat is two keys the reader keeps as one. */
export type KeyAs = (key: string) => string;

/**
 * The findings of `text` (which JSON.parse accepted), by call: key `-1` when the body is one value, else the index of
 * the call in the batch. Calls with nothing to report are absent; nothing at a path `skip` names is reported. Keys
 * are compared as JSON.parse keeps them (each `\u` escape decoded, a lone surrogate kept as one), or as `keyAs` makes
 * them for a reader that changes them further (the remote reader's U+FFFD for a lone surrogate): two keys are a
 * repeat exactly when the reader's object holds one key for both.
 */
export function textFindings(text: string, o: { skip?: SkipPath; keyAs?: KeyAs } = {}): Map<number, TextFindings> {
  const { skip, keyAs } = o;
  const out = new Map<number, TextFindings>();
  // frames are kept and reused by depth (a body of 400,000 small objects allocates a handful, not 400,000)
  const frames: Frame[] = [];
  let depth = 0;
  let batch = false;
  const note = (kind: keyof TextFindings, last?: string) => {
    const path = frames.slice(0, depth).map((f) => f.at);
    if (last !== undefined) path[path.length - 1] = last;
    // a batch's path starts at the call's index; a single call's at its own keys
    const call = batch ? (path.shift() as number) : -1;
    if (skip?.(path)) return;
    const found = out.get(call) ?? {};
    if (found[kind] === undefined) found[kind] = path;
    out.set(call, found);
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = depth > 0 ? frames[depth - 1]! : undefined;
      if (top?.object === true && top.wantKey) {
        const raw = text.slice(i + 1, end);
        const parsedKey = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const key = keyAs === undefined ? parsedKey : keyAs(parsedKey);
        if (!addKey(top, key)) note('duplicateKey', key);
        top.at = key;
        top.wantKey = false;
      }
      i = end + 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0 && c === 91) batch = true;
      const f = frames[depth] ?? (frames[depth] = { object: false, first: undefined, keys: undefined, at: 0, wantKey: false });
      f.object = c === 123;
      f.first = undefined;
      f.keys = undefined;
      f.at = f.object ? '' : 0;
      f.wantKey = f.object;
      depth++;
      i++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      i++;
    } else if (c === 44 /* , */) {
      const top = frames[depth - 1]!;
      if (!top.object) (top.at as number)++;
      else top.wantKey = true;
      i++;
    } else if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      if (j - i > MAX_SAFE_DIGITS.length - 1 && unsafeInteger(text.slice(i, j))) note('unsafeInteger');
      i = j;
    } else i++;
  }
  return out;
}

/** What a value holds that decides whether the text pass can find anything. */
interface Shape {
  /** keys of every object in it */
  keys: number;
  /** a number past ±(2^53 − 1) is in it: the only way an integer literal written past that range parses */
  big: boolean;
}

/** deeper than this, the walk gives up and the text pass decides (it has no stack to overflow) */
const SHAPE_DEPTH = 64;

/** Adds `v`'s keys and big numbers to `s`; false when it is nested past SHAPE_DEPTH. */
function addShape(v: unknown, depth: number, s: Shape): boolean {
  if (typeof v === 'number') {
    if (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) s.big = true;
    return true;
  }
  if (v === null || typeof v !== 'object') return true;
  if (depth > SHAPE_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!addShape(v[i], depth + 1, s)) return false;
    return true;
  }
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    s.keys++;
    if (!addShape((v as Record<string, unknown>)[k], depth + 1, s)) return false;
  }
  return true;
}

function colonCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) n++;
  return n;
}

/**
 * Whether `text` (which JSON.parse made `parsed` of) surely has nothing for textFindings: no number past ±(2^53 − 1)
 * in `parsed`, and no more colons in `text` than keys in `parsed`. Sound because each key in the text stands before
 * exactly one colon outside strings: a key named twice leaves the text more keys, so more colons, than `parsed` has.
 * A colon inside a string only sends the body to the text pass. About a tenth of that pass's cost on a small call.
 */
function surelyPlain(text: string, parsed: unknown): boolean {
  const s: Shape = { keys: 0, big: false };
  return addShape(parsed, 0, s) && !s.big && colonCount(text) === s.keys;
}

const NOTHING: ReadonlyMap<number, TextFindings> = new Map();

/** textFindings of a body, skipping the text pass when `parsed` shows there is nothing to find (the common call). */
export function findingsOf(text: string, parsed: unknown): ReadonlyMap<number, TextFindings> {
  return surelyPlain(text, parsed) ? NOTHING : textFindings(text);
}

/**
 * What a remote's JSON (an answer, a stream event, a card: one object, which the remote reader made `parsed` of) holds
 * that the client does not take: its first key named twice in one object and its first integer literal past
 * ±(2^53 − 1), each outside what `skip` names. The reader makes each lone surrogate U+FFFD (remote-json.ts), keys
 * too, so two keys that differ only there are one key to it: they are compared the same way here, and count as a key
 * named twice. The walk of `parsed` rules out the text pass for most (findingsOf): such a merge leaves `parsed` fewer
 * keys than the text has colons, so it never does for one.
 */
export function remoteFindings(text: string, parsed: unknown, skip?: SkipPath): TextFindings {
  if (surelyPlain(text, parsed)) return {};
  return textFindings(text, { skip, keyAs: wellFormed }).get(-1) ?? {};
}

/** A path as the gateway's errors name one: `params.message.parts.0.data.n`. */
export const pathText = (path: JsonPath): string => path.join('.');
