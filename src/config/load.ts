// Where the settings come from: the JSON config file, env and flags, merged in that order of precedence (flags > env
// > file > defaults), each source's bad value reported naming it.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { jsonDuplicateKey, jsonSyntaxText } from '../protocol/config-text.js';
import { logLevelFrom, MIN_SECRET_CHARS, readEnv } from './env.js';
import { ConfigError } from './error.js';
import { parseConfig, settingName } from './parse.js';
import type { Config, ConfigInput } from './schema.js';

/** Reads the config file (JSON) and env, then applies flag overrides. */
export async function loadConfig(o: { file?: string; env: NodeJS.ProcessEnv; flags: Partial<Record<keyof ConfigInput, unknown>> }): Promise<Config> {
  let fromFile: Record<string, unknown> = {};
  const file = o.file ?? o.env.A2A_CONFIG;
  if (file) {
    let text: string;
    try {
      // a byte order mark (some editors write one) is no part of the JSON
      text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${jsonSyntaxText(e, text)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`config file ${file} must hold one JSON object of settings, e.g. {"port": 8080}`);
    }
    // JSON.parse keeps a repeated key's last value: the file would mean what its reader, who saw the first, did not
    const twice = jsonDuplicateKey(text);
    if (twice !== undefined) throw new ConfigError(`invalid config file ${file}:\n  ${settingName(twice)}: given twice; give it once`);
    fromFile = parsed as Record<string, unknown>;
    // the file is checked on its own too: a bad value there is reported even where a flag or env overrides it
    parseConfig(fromFile, `config file ${file}`);
  }
  const flags = Object.fromEntries(Object.entries(o.flags).filter(([, v]) => v !== undefined));
  const fromEnv = readEnv(o.env, flags);
  logLevelFrom(o.env);
  const secret = o.env.A2A_SECRET;
  if (secret && secret.length < MIN_SECRET_CHARS) {
    throw new ConfigError(
      `invalid environment:\n  A2A_SECRET: at least ${MIN_SECRET_CHARS} characters (it keys every API key's hash and seals stored credentials); unset it to use <dataDir>/secret`,
    );
  }
  const config = parseConfig({ ...fromFile, ...fromEnv, ...flags });
  // a module agent's relative entry is the config file's business: resolved against its directory, not the cwd
  if (file && config.agents) {
    config.agents = config.agents.map((a) =>
      a.kind === 'module' && a.entry && !isAbsolute(a.entry) ? { ...a, entry: resolve(dirname(resolve(file)), a.entry) } : a,
    );
  }
  return config;
}
