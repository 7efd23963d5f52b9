// The command line: `serve`, `keys create|list|revoke|rotate` and `webhooks secret rotate`, working on the same store as a running server.
import { WebhookSecretError } from '../runtime/push/secrets.js';
import { ConfigError } from './config.js';
import { KeyAdminError } from '../runtime/key-admin.js';

const USAGE = `usage: a2a-gateway <command>

  serve [--config file] [--port N] [--host H] [--data-dir DIR]
  keys create --workspace W --trust read_only|execute|autonomous|admin [--scopes a,b] [--agents x,y]
              [--expires-in 30d | --expires-at ISO] [--per-minute N --per-hour N] [--name NAME] [--json]
  keys list [--workspace W] [--json]
  keys revoke ID
  keys rotate ID [--json]
  webhooks secret rotate --workspace W [--json]

Every command takes --config, --data-dir and the env A2A_CONFIG, A2A_DATA_DIR, A2A_STORE, REDIS_URL, A2A_SECRET.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    // each command loads only its own modules: `keys` must not pay for uWS, Piscina and the rest
    if (command === 'serve') return await (await import('./serve.js')).serve(rest);
    if (command === 'keys') return await (await import('./keys.js')).keysCommand(rest);
    if (command === 'webhooks') return await (await import('./webhooks.js')).webhooksCommand(rest);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    }
    process.stderr.write(`a2a-gateway: unknown command '${command}'\n${USAGE}\n`);
    return 2;
  } catch (e) {
    if (e instanceof ConfigError || e instanceof KeyAdminError || e instanceof WebhookSecretError) {
      process.stderr.write(`a2a-gateway: ${e.message}\n`);
      return 2;
    }
    if (e instanceof TypeError && (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`a2a-gateway: ${e.message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`a2a-gateway: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// serve keeps running; every other command is done (exit now rather than wait on idle store handles)
if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
