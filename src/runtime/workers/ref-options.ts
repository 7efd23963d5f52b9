// Options that make a handle unref'd with no unref call to see (timers/promises' `ref: false`, fs watchers' `persistent: false`) are made ref'd.
import { createRequire, syncBuiltinESMExports } from 'node:module';

type Options = Record<string, unknown>;

/** `options` with `key: false` made `key: true`; anything else (a string, a function, no options) as it was. */
const forced =
  (key: string) =>
  (options: unknown): unknown =>
    typeof options === 'object' && options !== null && (options as Options)[key] === false ? { ...options, [key]: true } : options;

/** Replaces `owner[name]` with a function that passes its argument at `optionsAt` through `rewrite` first. */
function rewriteArg(owner: Options, name: string, optionsAt: number, rewrite: (options: unknown) => unknown): void {
  const original = owner[name];
  if (typeof original !== 'function') return;
  owner[name] = function (this: unknown, ...args: unknown[]) {
    if (args.length > optionsAt) args[optionsAt] = rewrite(args[optionsAt]);
    return original.apply(this, args);
  };
}

let installed = false;

/**
 * Node makes these unref'd itself, out of sight of the wrapped `unref`s (unrefs.ts), and leaves them out of
 * `process.getActiveResourcesInfo()`: a timer of `node:timers/promises` with `{ ref: false }`, and a watcher of
 * `fs.watch`, `fs.watchFile` or `fs.promises.watch` with `{ persistent: false }` (its events still run the agent's
 * listener or resume its `for await`). Made ref'd, each is a live handle the turn's end counts. In a worker, ref'd or
 * not changes nothing else: Piscina keeps the thread, and ends it whatever it holds.
 */
export function refOnlyOptions(): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  const timers = require('node:timers/promises') as Options & { scheduler?: Options };
  const ref = forced('ref');
  rewriteArg(timers, 'setTimeout', 2, ref);
  rewriteArg(timers, 'setImmediate', 1, ref);
  rewriteArg(timers, 'setInterval', 2, ref);
  if (timers.scheduler) rewriteArg(timers.scheduler, 'wait', 1, ref);
  const fs = require('node:fs') as Options & { promises: Options };
  const persistent = forced('persistent');
  rewriteArg(fs, 'watch', 1, persistent);
  rewriteArg(fs, 'watchFile', 1, persistent);
  // the same object as `node:fs/promises`
  rewriteArg(fs.promises, 'watch', 1, persistent);
  // an agent's later `import { watch } from 'node:fs'` (or `setTimeout` from 'node:timers/promises') sees the wrapped functions
  syncBuiltinESMExports();
}
