// Flags every command shares, reading a command's flags, and turning them into a Config.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';

export const COMMON_OPTIONS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

/** A command line that cannot be read: a flag named twice, an unknown command (`usage` in --json; exit 2, with the usage). */
export class FlagError extends Error {
  readonly code = 'ERR_USAGE';
}

/**
 * parseArgs, but a flag with a value may be given once: parseArgs keeps the last, so `--workspace a --workspace b`
 * would act on b without a word (a pasted line, a script that appends its own). The message names the flag, never
 * its values (they may be secrets: --token, --api-key).
 */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const parsed = parseArgs({ ...config, tokens: true });
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    if (seen.has(token.name)) throw new FlagError(`--${token.name} is given more than once; give it once`);
    seen.add(token.name);
  }
  return parsed as ReturnType<typeof parseArgs<T>>;
}

export function configFrom(values: { config?: string; 'data-dir'?: string; port?: string; host?: string }): Promise<Config> {
  return loadConfig({
    file: values.config,
    env: process.env,
    flags: { dataDir: values['data-dir'], port: values.port, host: values.host },
  });
}
