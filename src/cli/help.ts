// The command line's help: one usage text per command and subcommand, and the environment it reads.
import { readFileSync } from 'node:fs';
import { ENV_VARS } from '../config/env.js';

const COMMON =
  '  --config FILE     the JSON config file (env A2A_CONFIG)\n  --data-dir DIR    the embedded store and the secret file (env A2A_DATA_DIR; default ./data)';

const CONNECTION_FLAGS = `auth (secrets may come from files, which keeps them out of shell history):
  --auth none                  no credentials (the default for add)
  --auth apikey                --api-key V | --api-key-file F  [--api-key-header H (default X-API-Key)]
  --auth bearer                --token V | --token-file F
  --auth oauth                 --token-url U --client-id I --client-secret S | --client-secret-file F [--oauth-scope S]
  --auth mtls                  --cert FILE --key FILE [--ca FILE]   (PEM files, stored encrypted)
settings:
  --trust LEVEL                read_only (get), execute (and send; default), autonomous (and cancel), admin (and stream)
  --agents a,b                 the service's agents that may use it (default: every agent of the workspace)
  --allowed-data-types t,d,f   the part kinds a message may carry out: text, data, file (default: all three)
  --allow-origins o1,o2        other origins (https://host[:port]) the remote's card may send calls to with the
                               credentials (default: none, calls go to the --url's origin only)
  --store-results              keep each result whole (default: a summary of at most 500 characters)
  --retention-hours H          stored results are deleted after H hours (default 168)
  --dialect auto|A|B|V1        the A2A dialect to speak (V1: A2A 1.0; default auto: read from the remote's card)
  --json                       the connection as JSON`;

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
  keys revoke ID [--workspace W] [--json]  refused on the server's very next request
  keys rotate ID [--workspace W] [--json]  a new key with the same scopes, agents and limits
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
  'keys revoke': `usage: a2a-gateway keys revoke ID [--workspace W] [--json]

Revokes a key: the server refuses it on its very next request and ends its open streams.
  --workspace W     refuse, changing nothing, unless the key belongs to workspace W
${COMMON}`,
  'keys rotate': `usage: a2a-gateway keys rotate ID [--workspace W] [--json]

Creates a new key with the same workspace, trust, scopes, agents, limits and expiry; revoke the old one once
your clients use the new one.
  --workspace W     refuse, changing nothing, unless the key belongs to workspace W
${COMMON}`,
  call: `usage: a2a-gateway call CONNECTION "text" --workspace W [--agent ID] [--stream] [--json]

Sends one task over an outbound connection and prints its result as it arrives (the result is kept as the
connection says: a summary, or the raw task with store_results). The connection's checks apply: its trust level
(--stream needs admin), its allowed data types, and with --agent, whether it names that agent.
  --workspace W     the connection's workspace (required)
  --agent ID        call as this agent of ours (default: the operator, whom no agent list restricts)
  --stream          stream the remote's events (SSE) and print each as it comes
  --json            one JSON line per event ({"event": ...}), then {"task": ...} (or {"error": {code, message}})
Exit status: 0 when the task is completed, waits for input or still runs; 1 when it failed or was canceled, or the call was refused.
${COMMON}`,
  connections: `usage: a2a-gateway connections <add|list|show|status|update|remove> ...

Outbound connections: external A2A agents the service's own agents may call. Secrets are stored encrypted
(AES-256-GCM, key derived from the server secret) and never shown: every output names the auth kind only.
  connections add --workspace W --name N --url URL --auth none|apikey|bearer|oauth|mtls [credential flags] [settings]
  connections list [--workspace W] [--json]
  connections show N --workspace W [--json]
  connections status N --workspace W [--json]     the state its server last reported (or: not loaded yet)
  connections update N --workspace W [settings] [--auth KIND] [credential flags] [--json]
  connections remove N --workspace W [--json]
Run 'a2a-gateway connections <subcommand> --help' for one of them.`,
  'connections add': `usage: a2a-gateway connections add --workspace W --name N --url URL --auth KIND [credential flags] [settings] [--json]

Saves a connection to the remote A2A agent at URL (its card is read from URL/.well-known/). The URL passes the
same SSRF guard as webhook URLs: loopback and private hosts are refused unless push.allowlist in the config holds them.
${CONNECTION_FLAGS}
${COMMON}`,
  'connections list': `usage: a2a-gateway connections list [--workspace W] [--json]

Lists connections (workspace, name, URL, auth kind, trust, dialect); never a secret.
${COMMON}`,
  'connections show': `usage: a2a-gateway connections show N --workspace W [--json]

Shows one connection's settings and its auth kind; never a secret. (The name may also be given as --name N.)
${COMMON}`,
  'connections status': `usage: a2a-gateway connections status N --workspace W [--json]

Shows one connection and the state its running server last reported: discovering, ready, backing-off,
circuit-open, half-open or stopped, with failures, the last error and the next retry; "not loaded by a server
yet" (JSON: "status": null) until a server has loaded it.
${COMMON}`,
  'connections update': `usage: a2a-gateway connections update N --workspace W [settings] [--auth KIND] [credential flags] [--json]

Changes the settings and credentials given; the others stay. Credential flags of the current auth kind replace
those fields only (e.g. just --client-secret-file); a new --auth needs all of that kind's credentials.
--agents '' lets every agent of the workspace use it again; --allow-origins '' clears the other origins;
--no-store-results turns result storage off.
${CONNECTION_FLAGS}
${COMMON}`,
  'connections remove': `usage: a2a-gateway connections remove N --workspace W [--json]

Deletes the connection, its credentials and its reported status.
${COMMON}`,
  relays: `usage: a2a-gateway relays <add|list|show|remove|agents|agent-trust|agent-keys> ...

Relay connections: a relay (a2a-relay) on a private network opens a tunnel to /api/relay with its key and
serves its local agents as agents of kind relay in its workspace.
  relays add --workspace W --name NAME --key KEY_ID [--json]   the key (of W) that alone may open the tunnel
  relays list [--workspace W] [--json]
  relays show NAME --workspace W [--json]
  relays remove NAME --workspace W [--json]
  relays agents NAME --workspace W [--json]          the agents it announced, their trust and keys
  relays agent-trust NAME AGENT LEVEL --workspace W [--json]
      LEVEL: read_only (get), execute (and send; the default for a new agent), autonomous (and cancel), admin (and stream)
  relays agent-keys NAME AGENT KEY_IDS --workspace W [--json]
      KEY_IDS: the key ids (a,b) that may reach it; 'all' for every key
  (an agent not announced yet may be set: the setting applies once the relay announces it, and a warning says so)
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
  connections add|list|show|status|update|remove
  relays add|list|show|remove|agents|agent-trust|agent-keys
  call CONNECTION "text"     send one task over an outbound connection
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
