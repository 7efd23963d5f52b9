// Test support: an SSE reader in a child process (test/fixtures/sse-reader.js) that keeps up with its stream on its own
// core, and what it has seen so far; the test's process only hears small news until it asks for the whole text.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { until } from './a2a-client.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/sse-reader.js', import.meta.url));

export interface ReaderProcess {
  /** the status of the last response it got (undefined before the first) */
  readonly status: number | undefined;
  /** whether a frame with `id: 1` has arrived */
  readonly sawFirst: boolean;
  /** how many times the marker has arrived */
  readonly count: number;
  /** whether the stream has ended */
  readonly done: boolean;
  /** everything it read so far */
  text(): Promise<string>;
}

/**
 * Starts a reader of `url` counting `marker`; with `retry`, it opens the stream again while the gateway refuses it.
 * Resolves once it has a status (with `retry`, an open stream's). The process ends with the test.
 */
export async function readInChild(
  t: Test,
  o: { url: string; authorization: string; marker: string; retry?: boolean; timeoutMs?: number },
): Promise<ReaderProcess> {
  const child = fork(FIXTURE, [o.url, o.marker, o.retry ? 'retry' : ''], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SSE_READER_AUTHORIZATION: o.authorization },
  });
  t.teardown(() => void child.kill());
  let status: number | undefined;
  let sawFirst = false;
  let count = 0;
  let done = false;
  let exited = false;
  const texts: Array<(s: string) => void> = [];
  child.on('message', (m: { status?: number; first?: true; count?: number; done?: true; text?: string }) => {
    if (m.status !== undefined) status = m.status;
    if (m.first) sawFirst = true;
    if (m.count !== undefined) count = m.count;
    if (m.done) done = true;
    if (m.text !== undefined) texts.shift()?.(m.text);
  });
  child.on('exit', () => {
    exited = true;
  });
  await until(() => exited || (status !== undefined && (!o.retry || status === 200)), 'the reader process got a response', o.timeoutMs);
  if (exited) throw new Error('the reader process ended before it got a response');
  return {
    get status() {
      return status;
    },
    get sawFirst() {
      return sawFirst;
    },
    get count() {
      return count;
    },
    get done() {
      return done;
    },
    text: () =>
      new Promise<string>((resolve) => {
        texts.push(resolve);
        child.send('text');
      }),
  };
}
