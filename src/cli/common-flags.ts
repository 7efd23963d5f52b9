// Flags every command shares, and turning them into a Config.
import { loadConfig, type Config } from '../config.js';

export const COMMON_OPTIONS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

export function configFrom(values: { config?: string; 'data-dir'?: string; port?: string; host?: string }): Promise<Config> {
  return loadConfig({
    file: values.config,
    env: process.env,
    flags: { dataDir: values['data-dir'], port: values.port, host: values.host },
  });
}
