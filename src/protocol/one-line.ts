// Text from outside shown to an operator: on a line of its own (a remote's card name, an error quoting a remote, in a
// connection's status, a name in a CLI listing), or printed to their terminal (`a2a-gateway call`'s text output).
// Control and bidi characters (control-chars.ts) would forge, hide or reorder lines and drive the terminal, and a
// remote's text has no length of its own.
import { SHOWN_NEVER, SHOWN_NEVER_BUT_LINES } from './control-chars.js';
import { cutCodePoints } from './summary.js';

/** `s` as one printable line: each control or bidi character (a newline too) read as U+FFFD. */
export const asLine = (s: string): string => s.replace(SHOWN_NEVER, '\uFFFD');

/** `s` as one printable line of at most `limit` code points. */
export const oneLine = (s: string, limit: number): string => cutCodePoints(asLine(s), limit);

/** `s` for a terminal: its lines and tabs kept, every other control or bidi character (escape, carriage return, ...) as U+FFFD. */
export const forTerminal = (s: string): string => s.replace(SHOWN_NEVER_BUT_LINES, '\uFFFD');

/**
 * The most of a caller's own value an error repeats back (an A2A-Version, a Last-Event-ID, a method name): enough to
 * recognise it, while a long header or name cannot make every refusal (and every log line quoting it) that long.
 */
export const MAX_ECHOED = 100;

/** A caller's value as an error message or its data repeats it: one line, at most MAX_ECHOED code points, `…` when cut. */
export const echoed = (s: string): string => oneLine(s, MAX_ECHOED);

/**
 * The most of a path into a caller's JSON an error repeats (`params.message.parts.0.data.n`): its keys are the
 * caller's own, and one key may be most of a 1 MiB body. 64 levels of short keys still fit.
 */
export const MAX_SHOWN_PATH = 300;

/** A path into a caller's JSON as an error names it: one line, at most MAX_SHOWN_PATH code points, `…` when cut. */
export const shownPath = (path: string): string => oneLine(path, MAX_SHOWN_PATH);
