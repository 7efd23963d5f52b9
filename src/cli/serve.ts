// `a2a-gateway serve`: starts the gateway and drains it on SIGINT/SIGTERM.
import { startGateway } from '../main.js';
import { logLevelFrom } from '../config/env.js';
import { createLog } from '../runtime/log.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';

export async function serve(args: string[]): Promise<number> {
  const { values } = parseFlags({
    args,
    options: { ...COMMON_OPTIONS, port: { type: 'string' }, host: { type: 'string' } },
    strict: true,
  });
  const config = await configFrom(values);
  // configFrom checked LOG_LEVEL with the rest of the environment: this reads the level it names
  const log = createLog({ level: logLevelFrom(process.env) });
  const gw = await startGateway({ config, log });
  process.stdout.write(`a2a-gateway listening on ${gw.url} (store: ${config.store}${config.store === 'lmdb' ? ` ${config.dataDir}` : ''})\n`);
  const stop = () => {
    void gw.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}
