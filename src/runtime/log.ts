// Structured logs as JSON lines on stderr. Callers pass fields, never secrets: keys and tokens are not logged anywhere.
export type Log = (msg: string, fields?: Record<string, unknown>) => void;

export function createLog(o: { level: 'debug' | 'info' | 'silent'; write?: (line: string) => void }): Log {
  const write = o.write ?? ((line: string) => process.stderr.write(line + '\n'));
  if (o.level === 'silent') return () => undefined;
  return (msg, fields) => write(JSON.stringify({ t: new Date().toISOString(), msg, ...fields }));
}

export const silentLog: Log = () => undefined;
