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
