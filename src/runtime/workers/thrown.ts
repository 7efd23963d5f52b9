// Words for whatever a module agent threw or rejected with: its own code chose the value, so reading it must not throw.
import { cutCodePoints } from '../../protocol/summary.js';

/**
 * The most of an agent's own words a failure keeps. They become the failed task's status message, stored, served to
 * every caller and logged whole: a thrown 20 MB message was all of that, past `tasks.maxTaskBytes`, which bounds only
 * what an agent yields. Enough for any real error message and the start of a stack.
 */
export const MAX_THROWN_CHARS = 4096;

/**
 * An Error's message (or name); a string as it is; anything else said plainly. Never throws: a thrown Proxy, an object
 * whose `message` getter or `toString` throws, or one without a prototype must still fail the turn as agent_error
 * with words, not escape the worker's handler (which the pool read as a dead worker).
 */
export function describeThrown(err: unknown): string {
  return cutCodePoints(wordsFor(err), MAX_THROWN_CHARS);
}

function wordsFor(err: unknown): string {
  try {
    if (typeof err === 'string') return err;
    if (err instanceof Error) {
      const { message, name } = err as { message: unknown; name: unknown };
      if (typeof message === 'string' && message !== '') return message;
      return typeof name === 'string' && name !== '' ? name : 'the agent threw an Error without a message';
    }
    if (typeof err === 'object' && err !== null) {
      const message: unknown = (err as { message?: unknown }).message;
      return typeof message === 'string' && message !== '' ? message : 'the agent threw an object that is not an Error';
    }
    return `the agent threw ${typeof err === 'function' ? 'a function' : String(err)}`;
  } catch {
    return 'the agent threw a value that cannot be read';
  }
}
