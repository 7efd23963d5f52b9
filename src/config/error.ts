// The error every refused setting raises (config file, env, flags, start-up checks): the CLI reports it as `config`.
export class ConfigError extends Error {
  /** what the CLI's --json error says (`config`); the exit status is 2 */
  readonly code = 'ERR_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
