// Words for whatever a module agent threw or rejected with: its own code chose the value, so reading it must not throw.

/**
 * An Error's message (or name); a string as it is; anything else said plainly. Never throws: a thrown Proxy, an object
 * whose `message` getter or `toString` throws, or one without a prototype must still fail the turn as agent_error
 * with words, not escape the worker's handler (which the pool read as a dead worker).
 */
export function describeThrown(err: unknown): string {
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
