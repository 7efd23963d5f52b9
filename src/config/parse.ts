// Settings checked against the schema, and a failing one named as a user sets it: the field, its flag and its env
// variable.
import { ENV_VARS } from './env.js';
import { ConfigError } from './error.js';
import { Config } from './schema.js';

const FLAGS: Partial<Record<string, string>> = { port: '--port', host: '--host', dataDir: '--data-dir' };

/** A setting's name as a user can set it: the field, and its flag and env variable where it has them. */
export function settingName(key: string): string {
  const env = ENV_VARS.find((v) => v.key === key)?.name;
  const alt = [FLAGS[key], env].filter(Boolean).join(', ');
  return alt ? `${key} (${alt})` : key;
}

/** Parses merged settings; the error names the failing field (`from` says where the values came from). */
export function parseConfig(input: unknown, from = 'config'): Config {
  const r = Config.safeParse(input);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.length ? settingName(i.path.map(String).join('.')) : '(root)'}: ${i.message}`);
  throw new ConfigError(`invalid ${from}:\n${lines.join('\n')}`);
}
