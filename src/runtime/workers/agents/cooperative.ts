// Names of builtin agents that never block their thread: the pool may run many of them side by side on one worker.
// Kept apart from the registry so the main thread can read it without loading agent code.

/** These answer in microseconds and only await promptly settling work; a cancel need not end their worker. */
export const COOPERATIVE_BUILTINS: ReadonlySet<string> = new Set(['echo', 'converse']);
