// The command line: `serve`, `keys ...`, `connections ...`, `relays ...` and `webhooks secret rotate`, working on the same store as a running server.
import { FlagError } from './common-flags.js';
import { reportFailure } from './failure.js';
import { TOP_USAGE, usageOf, version } from './help.js';

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
    throw new FlagError(`unknown command '${command}'`);
  } catch (e) {
    // every command's failure, whatever threw it, is said the one way (and as JSON with --json)
    return reportFailure(e, { json: argv.includes('--json'), words });
  }
}

const code = await main(process.argv.slice(2));
// serve keeps running; every other command is done (exit now rather than wait on idle store handles)
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
