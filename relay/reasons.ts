// Every reason the relay gives for a tunnel that ended (the admin UI's last error, the retry log line, the exit
// message): one builder each, so that the admin UI's plain words (admin/plain-words.ts) can be checked against all of
// them (test/relay/plain-words.test.ts enumerates this catalogue). A reason made anywhere else is one the operator may
// be shown raw.
export const tunnelReasons = {
  /** the socket closed and nothing said why (close 1006 with no error before it) */
  closed: () => 'the tunnel closed',
  /** the socket failed (connection refused, a name that does not resolve, a TLS failure...): its own text */
  socketError: (error: string) => error,
  noPong: (seconds: number) => `no pong from the gateway within ${seconds} s`,
  noWelcome: (seconds: number) => `no welcome from the gateway within ${seconds} s of the hello`,
  /** an error frame of the gateway before it closed the tunnel */
  gatewaySaid: (message: string) => `the gateway said: ${message}`,
  keyRefused: (status: number) => `the gateway refused the relay's key (HTTP ${status}): is the relay registered for this key and workspace?`,
  upgradeAnswered: (status: number, statusMessage?: string) =>
    `the gateway answered the upgrade with HTTP ${status}${statusMessage ? ` ${statusMessage}` : ''}`,
  /** what was known before the close, with the gateway's close code and reason */
  closedWith: (before: string, code: number, why: string) =>
    why.length > 0 ? `${before} (close ${code}: ${why})` : code === 1006 ? before : `${before} (close ${code})`,
  keyLapsed: (reason: string) => `the gateway closed the tunnel: the relay's key lapsed; ${reason}`,
  stopping: () => 'the relay is stopping',
  crashed: (error: string) => `the tunnel crashed: ${error}`,
} as const;
