// What every agent on a worker shares and one agent's turn can leave changed: built-in prototypes, globals, process listeners.
import { MessagePort, parentPort } from 'node:worker_threads';

const iteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object;
const asyncGeneratorProto = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})())) as object;

/**
 * The built-ins every agent (and the worker's own code: zod, structured clone, the event checks) reads. Their
 * enumerable own keys are none to begin with: a key added by assignment (prototype pollution, `merge({}, JSON.parse(
 * '{"__proto__": ...}'))`) is enumerable, and then shows in every `for...in` of every later turn on the worker (the
 * sweep found it broke the worker's own checks: every later turn failed "Cannot read properties of undefined").
 */
const BUILTINS: readonly object[] = [
  Object.prototype,
  Array.prototype,
  Function.prototype,
  String.prototype,
  Number.prototype,
  Boolean.prototype,
  Symbol.prototype,
  BigInt.prototype,
  Promise.prototype,
  Error.prototype,
  RegExp.prototype,
  Date.prototype,
  Map.prototype,
  Set.prototype,
  iteratorProto,
  asyncGeneratorProto,
  Object,
  Array,
  Promise,
  JSON,
  Math,
  Reflect,
];

/**
 * Methods replaced by assignment keep their key (and stay non-enumerable): these are compared by identity (an own
 * data property's value; none when absent, so one added on an instance shows). The ones nearly every agent and the
 * worker itself call; a full walk of every built-in's descriptors cost 200-700 µs a turn.
 */
const METHODS: ReadonlyArray<readonly [object, string]> = [
  [Promise.prototype, 'then'],
  [Promise, 'resolve'],
  [Promise, 'all'],
  [Function.prototype, 'call'],
  [Function.prototype, 'apply'],
  [Function.prototype, 'bind'],
  [JSON, 'parse'],
  [JSON, 'stringify'],
  [Object, 'keys'],
  [Object, 'assign'],
  [Object, 'defineProperty'],
  [Object, 'getPrototypeOf'],
  [Object.prototype, 'toString'],
  [Object.prototype, 'hasOwnProperty'],
  [Array, 'isArray'],
  [Array.prototype, 'push'],
  [Array.prototype, 'map'],
  [Array.prototype, 'includes'],
  [Array.prototype, 'join'],
  [String.prototype, 'slice'],
  [String.prototype, 'split'],
  [Reflect, 'apply'],
  [globalThis, 'setTimeout'],
  [globalThis, 'setImmediate'],
  [globalThis, 'queueMicrotask'],
  [globalThis, 'structuredClone'],
  [globalThis, 'fetch'],
  [Error, 'prepareStackTrace'],
  [Error, 'stackTraceLimit'],
  // how every run's events and replies leave the worker: an agent that wraps them (dropping or repeating another
  // agent's events) at the instance or the prototype
  [MessagePort.prototype, 'postMessage'],
  ...(parentPort ? [[parentPort, 'postMessage'] as const] : []),
];

const enumerableKeys = (): number => {
  let n = 0;
  for (const o of BUILTINS) n += Object.keys(o).length;
  return n;
};

const methodOf = (owner: object, name: string): unknown => Object.getOwnPropertyDescriptor(owner, name)?.value;

/** Taken when the worker starts, before any agent module loads: a module that changes these at import is not excused. */
const PRISTINE = { keys: enumerableKeys(), methods: METHODS.map(([owner, name]) => methodOf(owner, name)) };

/** What is compared with the turn before: a module may set a global or a listener up at its import (standing state). */
export interface SharedMark {
  globals: number;
  listeners: number;
}

const listenerCount = (): number => {
  let n = 0;
  for (const name of process.eventNames()) n += process.listenerCount(name);
  return n;
};

/**
 * An agent that closes the worker's parentPort (on which every run's events, calls and recycle replies go) silences
 * every later run there: a post on a closed port is dropped without a word.
 */
let portClosed = false;
if (parentPort) {
  const port = parentPort;
  // its 'close' event comes a loop turn or more later, after a turn's leftover check: the call itself is marked too
  const close = port.close;
  port.close = function (this: MessagePort) {
    portClosed = true;
    return close.call(this);
  };
  port.on('close', () => {
    portClosed = true;
  });
}
export const parentPortClosed = (): boolean => portClosed;

export function sharedMark(): SharedMark {
  return { globals: Object.keys(globalThis).length, listeners: listenerCount() };
}

/**
 * What the agent changed of the worker's shared state, in words (none: an empty list). A worker serves other agents'
 * turns next, even other workspaces': a global, a listener on `process` (an `uncaughtException` handler changes how
 * the worker dies) or a polluted prototype left by one agent would be read or run in theirs.
 */
export function sharedChanges(before: SharedMark): string[] {
  const out: string[] = [];
  try {
    if (enumerableKeys() !== PRISTINE.keys) out.push('a key added to a built-in prototype');
    for (let i = 0; i < METHODS.length; i++) {
      const [owner, name] = METHODS[i]!;
      if (methodOf(owner, name) !== PRISTINE.methods[i]) out.push(`a built-in replaced (${name})`);
    }
    if (Object.keys(globalThis).length !== before.globals) out.push('a global added or removed');
    if (listenerCount() !== before.listeners) out.push('a listener on process added or removed');
    if (portClosed) out.push("the worker's parentPort closed");
  } catch {
    // a getter the agent put in place threw: whatever it did, the worker is not to be trusted with another turn
    out.push('a built-in made unreadable');
  }
  return out;
}
