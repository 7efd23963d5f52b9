// Structured logs as JSON lines on stderr. Callers pass fields, never secrets: keys and tokens are not logged anywhere.
export type Log = (msg: string, fields?: Record<string, unknown>) => void;

export function createLog(o: { level: 'debug' | 'info' | 'silent'; write?: (line: string) => void }): Log {
  const write = o.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (o.level === 'silent') return () => undefined;
  return (msg, fields) => write(JSON.stringify({ t: new Date().toISOString(), msg, ...fields }));
}

export const silentLog: Log = () => undefined;

/**
 * An error in words for a log line. Some clients throw errors with an empty message (node-redis's socket errors):
 * the name, code and cause then say what happened.
 */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  const parts = [e.message || e.name, typeof code === 'string' && !e.message.includes(code) ? `(${code})` : ''];
  const cause = (e as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== e) parts.push(`caused by: ${errorText(cause)}`);
  return parts.filter(Boolean).join(' ');
}
