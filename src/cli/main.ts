// The command line: `serve`, `keys ...`, `connections ...`, `relays ...` and `webhooks secret rotate`, working on the same store as a running server.
import { WebhookSecretError } from '../runtime/push/secrets.js';
import { ConfigError } from '../config.js';
import { ConnectionAdminError } from '../runtime/connection-admin.js';
import { KeyAdminError } from '../runtime/key-admin.js';
import { RelayAdminError } from '../runtime/relay-admin.js';
import { FlagError } from './common-flags.js';
import { TOP_USAGE, usageOf, version } from './help.js';
import { err } from './output.js';

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const words = argv.filter((a) => !a.startsWith('-'));
  if (argv.includes('--help') || argv.includes('-h') || command === 'help') {
    process.stdout.write(`${usageOf(command === 'help' ? words.slice(1) : words)}\n`);
    return 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`a2a-gateway ${version()}\n`);
    return 0;
  }
  try {
    // each command loads only its own modules: `keys` must not pay for uWS, Piscina and the rest
    if (command === 'serve') return await (await import('./serve.js')).serve(rest);
    if (command === 'keys') return await (await import('./keys.js')).keysCommand(rest);
    if (command === 'connections') return await (await import('./connections.js')).connectionsCommand(rest);
    if (command === 'relays') return await (await import('./relays.js')).relaysCommand(rest);
    if (command === 'call') return await (await import('./call.js')).callCommand(rest);
    if (command === 'webhooks') return await (await import('./webhooks.js')).webhooksCommand(rest);
    if (command === undefined) {
      process.stdout.write(`${TOP_USAGE}\n`);
      return 2;
    }
    err(`a2a-gateway: unknown command '${command}'\n${TOP_USAGE}`);
    return 2;
  } catch (e) {
    if (
      e instanceof ConfigError ||
      e instanceof KeyAdminError ||
      e instanceof ConnectionAdminError ||
      e instanceof RelayAdminError ||
      e instanceof WebhookSecretError
    ) {
      err(`a2a-gateway: ${e.message}`);
      return 2;
    }
    if (e instanceof FlagError || (e instanceof TypeError && (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS'))) {
      err(`a2a-gateway: ${e.message}\n${usageOf(words)}`);
      return 2;
    }
    err(`a2a-gateway: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// serve keeps running; every other command is done (exit now rather than wait on idle store handles)
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
