// How the Redis store defines and runs its Lua scripts (steps that must read before they write, in one atomic round trip).
import { createHash } from 'node:crypto';

export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
  readonly numberOfKeys: number;
}

export function script(opts: { numberOfKeys: number; lua: string }): LuaScript {
  return { ...opts, sha: createHash('sha1').update(opts.lua).digest('hex') };
}

/** Runs a script by its sha, loading it (EVAL) when the server does not have it yet. */
export type RunScript = (s: { script: LuaScript; keys: string[]; args: Array<string | Buffer> }) => Promise<unknown>;

/** The runner over one client; the client's replies (Buffers, for a binary client) come back as they are. */
export function scriptRunner(client: {
  evalSha(sha: string, o: { keys: string[]; arguments: Array<string | Buffer> }): Promise<unknown>;
  eval(lua: string, o: { keys: string[]; arguments: Array<string | Buffer> }): Promise<unknown>;
}): RunScript {
  return async (s) => {
    const o = { keys: s.keys, arguments: s.args };
    try {
      return await client.evalSha(s.script.sha, o);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return client.eval(s.script.lua, o);
    }
  };
}

/**
 * KEYS: a hash of msgpack records. ARGV: field, version, packed record. Sets the field only while the value stored
 * there is at that version (the SHA-1 hex of its bytes, store/versioned.ts): a version-checked write.
 */
export const putIfVersion1 = script({
  numberOfKeys: 1,
  lua: `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or redis.sha1hex(v) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`,
});
