// Lua scripts run by SHA with one fallback to EVAL when Redis does not know them (restart, SCRIPT FLUSH).
import { createHash } from 'node:crypto';

export interface LuaScript {
  /** `name-N`, N being the number of KEYS, so a call site shows what it touches */
  readonly name: string;
  readonly numberOfKeys: number;
  readonly source: string;
  readonly sha1: string;
}

/** The two commands a script needs; a node-redis client of any configuration fits. */
export interface LuaClient {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export function defineLua(opts: { name: string; numberOfKeys: number; source: string }): LuaScript {
  if (!opts.name.endsWith(`-${opts.numberOfKeys}`)) throw new Error(`script name ${opts.name} must end with -${opts.numberOfKeys}`);
  return { ...opts, sha1: createHash('sha1').update(opts.source).digest('hex') };
}

const isNoScript = (e: unknown): boolean => e instanceof Error && e.message.startsWith('NOSCRIPT');

export async function runLua(opts: { client: LuaClient; script: LuaScript; keys: string[]; args: string[] }): Promise<unknown> {
  const { client, script, keys, args } = opts;
  if (keys.length !== script.numberOfKeys) throw new RangeError(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  const call = { keys, arguments: args };
  try {
    return await client.evalSha(script.sha1, call);
  } catch (e) {
    if (!isNoScript(e)) throw e;
    // EVAL also caches the script, so the next call is back to one EVALSHA round trip
    return await client.eval(script.source, call);
  }
}
