// Structured logs as JSON lines on stderr, written by pino. Callers pass fields, never secrets or bodies: keys, tokens
// and message contents are not logged anywhere (the fields below are also redacted by name, as a second guard).
import pino from 'pino';
import { oneLine } from '../protocol/one-line.js';

export const LOG_LEVELS = ['info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log line at info; `debug` lines are written only at level debug (callers skip building them otherwise). */
export interface Log {
  (msg: string, fields?: Record<string, unknown>): void;
  debug?: (msg: string, fields?: Record<string, unknown>) => void;
}

/** Field names that must never reach a log line, at the top level or one object down (`key` is a key's id where we log it). */
const REDACT = ['authorization', 'apiKey', 'api_key', 'token', 'secret', 'password', 'credentials', 'body'];

export function createLog(o: { level: LogLevel; write?: (line: string) => void }): Log {
  if (o.level === 'silent') return silentLog;
  const write = o.write;
  // sync to stderr: a line is out before the process can exit after it (pino's async buffer could lose the last ones)
  const dest = write ? { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) } : pino.destination({ fd: 2, sync: true });
  const logger = pino(
    {
      level: o.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACT, ...REDACT.map((f) => `*.${f}`)], censor: '[redacted]' },
    },
    dest,
  );
  const log: Log = (msg, fields) => logger.info(fields ?? {}, msg);
  if (o.level === 'debug') log.debug = (msg, fields) => logger.debug(fields ?? {}, msg);
  return log;
}

export const silentLog: Log = () => undefined;

/**
 * LOG_LEVEL as the server reads it: one of LOG_LEVELS in any case, info when unset or empty; undefined for any other
 * value (the config loader refuses it: taken as info, a typo of `debug` would silently log less than was asked).
 */
export function logLevelOf(value: string | undefined): LogLevel | undefined {
  if (value === undefined || value === '') return 'info';
  const v = value.toLowerCase();
  return LOG_LEVELS.find((l) => l === v);
}

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

/** What looks like one of our API keys (`svc_a2a_` and its body), wherever it turns up in a text from outside. */
export const KEY_LIKE = /svc_a2a_[A-Za-z0-9_-]+/g;

/**
 * A text from outside (a relay's error, a remote's message) fit for one log line: anything that looks like a key
 * masked, on one line, and at most `max` characters, so that a peer can neither leak a key into our logs nor fill them.
 */
export function loggedText(text: string, max = 200): string {
  return oneLine(text.replace(KEY_LIKE, '[redacted key]'), max);
}
