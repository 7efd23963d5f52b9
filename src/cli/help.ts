// The command line's help: one usage text per command and subcommand, and the environment it reads.
import { readFileSync } from 'node:fs';
import { ENV_VARS } from '../config.js';

const COMMON =
  '  --config FILE     the JSON config file (env A2A_CONFIG)\n  --data-dir DIR    the embedded store and the secret file (env A2A_DATA_DIR; default ./data)';

const USAGES: Record<string, string> = {
  serve: `usage: a2a-gateway serve [--config FILE] [--port N] [--host H] [--data-dir DIR]

Runs the gateway (JSON-RPC at /api/a2a, Agent Cards, /healthz, /readyz) until SIGINT or SIGTERM.
  --port N          the port (env A2A_PORT; default 8080; 0 picks a free one)
  --host H          the address (env A2A_HOST; default 127.0.0.1)
${COMMON}`,
  keys: `usage: a2a-gateway keys <create|list|revoke|rotate> ...

  keys create --workspace W --trust read_only|execute|autonomous|admin [--scopes a,b] [--agents x,y]
              [--expires-in 30d | --expires-at ISO] [--per-minute N --per-hour N] [--name NAME] [--json]
  keys list [--workspace W] [--json]      never shows a key or its hash
  keys revoke ID                           refused on the server's very next request
  keys rotate ID [--json]                  a new key with the same scopes, agents and limits
Run 'a2a-gateway keys <subcommand> --help' for one of them.`,
  'keys create': `usage: a2a-gateway keys create --workspace W --trust LEVEL [options]

Creates an API key and shows it once (the store keeps only its HMAC).
  --workspace W            the workspace the key acts in (required)
  --trust LEVEL            read_only, execute, autonomous or admin (required)
  --scopes a,b             narrow the level's scopes (never widen them)
  --agents x,y             the agents the key may reach (default: every agent of its workspace)
  --expires-in 30d         or --expires-at 2027-01-01T00:00:00Z (default: never)
  --per-minute N           rate limits of this key (defaults: 60 and 1000)
  --per-hour N
  --name NAME              a label shown by keys list
  --json                   {"id","key","workspace","trust","scopes","expires_at"}
${COMMON}`,
  'keys list': `usage: a2a-gateway keys list [--workspace W] [--json]

Lists keys (id, workspace, trust, state, expiry, name); never a key or its hash.
${COMMON}`,
  'keys revoke': `usage: a2a-gateway keys revoke ID [--json]

Revokes a key: the server refuses it on its very next request and ends its open streams.
${COMMON}`,
  'keys rotate': `usage: a2a-gateway keys rotate ID [--json]

Creates a new key with the same workspace, trust, scopes, agents, limits and expiry; revoke the old one once
your clients use the new one.
${COMMON}`,
  webhooks: `usage: a2a-gateway webhooks secret rotate --workspace W [--json]

The only webhooks subcommand is 'secret rotate'. Run 'a2a-gateway webhooks secret rotate --help'.`,
  'webhooks secret': `usage: a2a-gateway webhooks secret rotate --workspace W [--json]`,
  'webhooks secret rotate': `usage: a2a-gateway webhooks secret rotate --workspace W [--json]

Makes a new webhook signing secret for the workspace and shows it once (whsec_...); deliveries are signed with it
from their next attempt on.
${COMMON}`,
};

export const TOP_USAGE = `usage: a2a-gateway <command> [options]

commands:
  serve                      run the gateway
  keys create|list|revoke|rotate
  webhooks secret rotate
  --version                  print the version
  --help                     this text; '<command> --help' for one command

environment:
${ENV_VARS.map((v) => `  ${v.name.padEnd(20)} ${v.what}`).join('\n')}
Settings come from flags, then the environment, then the config file, then defaults.`;

/** The usage of the deepest command path named in `words` (e.g. ['keys', 'create']), else the top usage. */
export function usageOf(words: readonly string[]): string {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const u = USAGES[words.slice(0, n).join(' ')];
    if (u) return u;
  }
  return TOP_USAGE;
}

/** Our package.json: two folders up from src/cli, three from the build's dist/src/cli. */
export function version(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    let pkg: unknown;
    try {
      pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
    } catch {
      continue;
    }
    if (typeof pkg === 'object' && pkg !== null && 'name' in pkg && pkg.name === 'a2a-gateway' && 'version' in pkg) return String(pkg.version);
  }
  return 'unknown';
}
