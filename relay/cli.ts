// The `a2a-relay` command: parses its arguments and config, runs the relay until a signal or until its retries run out.
// Exit codes: 0 stopped, 1 gave up reconnecting, 2 bad arguments or config.
import { parseArgs } from 'node:util';
import { createLog, type Log } from '../src/runtime/log.js';
import { debugTurnLog } from './admin/log-observer.js';
import { type Admin, startAdmin } from './admin/server.js';
import { loadRelayConfig, RelayConfigError } from './config.js';
import { combineObservers } from './observer.js';
import { checkRelayStart } from './preflight.js';
import { type RelayOptions, startRelay } from './relay.js';

const USAGE = `usage: a2a-relay [--config FILE] [--insecure]
  --config, -c FILE   YAML or JSON config (workspace_id, api_key, gateway_url, agents, ...)
  --insecure          allow ws:// to a gateway that is not on loopback
env (overrides the file): SVC_API_KEY, SVC_WORKSPACE_ID, SVC_GATEWAY_URL, LOCAL_AGENT_URL, LOG_LEVEL,
  SVC_ADMIN_BIND, SVC_ADMIN_PORT, SVC_ADMIN_PASSWORD (the admin UI: 127.0.0.1:9090 by default),
  SVC_ADMIN_TRUSTED_PROXIES (TLS proxies in front of the admin UI, comma-separated)`;

export interface CliOptions extends Partial<Omit<RelayOptions, 'config' | 'log'>> {
  env: Record<string, string | undefined>;
  /** a line of output (errors and the final message) */
  err?: (line: string) => void;
  /** what was asked for (--help), on stdout by default so that `a2a-relay --help | less` reads it */
  out?: (line: string) => void;
  /** stops the relay when it resolves (the process's signals by default) */
  stopWhen?: Promise<void>;
  /** the log (JSON lines on stderr by default) */
  log?: Log;
  /** told the admin server once it listens (tests read its URL when the port is 0) */
  onAdmin?: (admin: Admin) => void;
}

export async function runRelayCli(argv: string[], o: CliOptions): Promise<number> {
  const err = o.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (e) {
    err(`a2a-relay: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    (o.out ?? ((l: string) => process.stdout.write(`${l}\n`)))(USAGE);
    return 0;
  }
  const { env, err: _e, out: _o, stopWhen, onAdmin, log: givenLog, ...rest } = o;
  try {
    const config = await loadRelayConfig({ file: args.values.config, env });
    const insecure = args.values.insecure ?? false;
    // every check before anything listens or connects: a refused config exits 2 having bound no port, opened no tunnel
    const checked = checkRelayStart({ config, insecure });
    const log = givenLog ?? createLog({ level: 'info' });
    // then the admin UI: /healthz answers while LOCAL_AGENT_URL's card is still being read
    let admin: Admin;
    try {
      admin = await startAdmin({ config, log, ...(rest.clock && { clock: rest.clock }) });
    } catch (e) {
      err(`a2a-relay: the admin UI cannot start on ${config.admin_bind}:${config.admin_port}: ${e instanceof Error ? e.message : String(e)}`);
      return 2;
    }
    onAdmin?.(admin);
    const observer = combineObservers(log, admin.observer, config.log_level === 'debug' ? debugTurnLog(log) : undefined, rest.observer);
    try {
      return await runWithAdmin({ ...rest, config, log, observer, insecure, checked }, admin, stopWhen, err);
    } finally {
      await admin.close();
    }
  } catch (e) {
    if (e instanceof RelayConfigError) {
      err(`a2a-relay: bad config: ${e.message}`);
      return 2;
    }
    err(`a2a-relay: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
}

/** Runs the relay with its admin UI attached until it stops or gives up. */
async function runWithAdmin(options: RelayOptions, admin: Admin, stopWhen: Promise<void> | undefined, err: (line: string) => void): Promise<number> {
  // a stop during start-up (LOCAL_AGENT_URL's card not readable yet) ends the command at once
  const starting = startRelay(options);
  const first = await Promise.race([starting, ...(stopWhen ? [stopWhen.then(() => 'stopped' as const)] : [])]);
  if (first === 'stopped') {
    void starting.then((r) => r.stop()).catch(() => {});
    return 0;
  }
  const relay = first;
  admin.attach(relay);
  void stopWhen?.then(() => relay.stop());
  const end = await relay.done;
  if (end.code !== 0) err(end.message);
  return end.code;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, insecure: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
}
