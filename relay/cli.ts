// The `a2a-relay` command: parses its arguments and config, runs the relay until a signal or until its retries run out.
// Exit codes: 0 stopped, 1 gave up reconnecting, 2 bad arguments or config.
import { parseArgs } from 'node:util';
import { createLog } from '../src/runtime/log.js';
import { loadRelayConfig, RelayConfigError } from './config.js';
import { type RelayOptions, startRelay } from './relay.js';

const USAGE = `usage: a2a-relay [--config FILE] [--insecure]
  --config, -c FILE   YAML or JSON config (workspace_id, api_key, gateway_url, agents, ...)
  --insecure          allow ws:// to a gateway that is not on loopback
env (overrides the file): SVC_API_KEY, SVC_WORKSPACE_ID, SVC_GATEWAY_URL, LOCAL_AGENT_URL, LOG_LEVEL`;

export interface CliOptions extends Partial<Omit<RelayOptions, 'config' | 'log'>> {
  env: Record<string, string | undefined>;
  /** a line of output (errors and the final message) */
  err?: (line: string) => void;
  /** stops the relay when it resolves (the process's signals by default) */
  stopWhen?: Promise<void>;
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
    err(USAGE);
    return 0;
  }
  const { env, err: _e, stopWhen, ...rest } = o;
  try {
    const config = await loadRelayConfig({ file: args.values.config, env });
    const log = createLog({ level: 'info' });
    // a stop during start-up (LOCAL_AGENT_URL's card not readable yet) ends the command at once
    const starting = startRelay({ ...rest, config, log, insecure: args.values.insecure ?? false });
    const first = await Promise.race([starting, ...(stopWhen ? [stopWhen.then(() => 'stopped' as const)] : [])]);
    if (first === 'stopped') {
      void starting.then((r) => r.stop()).catch(() => {});
      return 0;
    }
    const relay = first;
    void stopWhen?.then(() => relay.stop());
    const end = await relay.done;
    if (end.code !== 0) err(end.message);
    return end.code;
  } catch (e) {
    if (e instanceof RelayConfigError) {
      err(`a2a-relay: bad config: ${e.message}`);
      return 2;
    }
    err(`a2a-relay: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, insecure: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
}
