// The `a2a-relay` process: runs the command, stops it on SIGINT/SIGTERM, exits with its code.
import { runRelayCli } from './cli.js';

const stopWhen = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});
// the relay's own timers do not hold the process (they are unref'd): while it waits to reconnect, this does
const keepAlive = setInterval(() => {}, 1 << 30);
process.exitCode = await runRelayCli(process.argv.slice(2), { env: process.env, stopWhen });
clearInterval(keepAlive);
