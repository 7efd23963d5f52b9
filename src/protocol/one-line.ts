// Text from outside shown to an operator: on a line of its own (a remote's card name, an error quoting a remote, in a
// connection's status), or printed to their terminal (`a2a-gateway call`'s text output). Control characters (newline,
// tab, escape, ...) would forge or hide lines of a listing and drive the terminal, and a remote's text has no length of
// its own.
import { cutCodePoints } from './summary.js';

const CONTROLS = /\p{Cc}/gu;

/** `s` as one printable line of at most `limit` code points: each control character read as U+FFFD. */
export const oneLine = (s: string, limit: number): string => cutCodePoints(s.replace(CONTROLS, '\uFFFD'), limit);

const TERMINAL_CONTROLS = /[^\P{Cc}\n\t]/gu;

/** `s` for a terminal: its lines and tabs kept, every other control character (escape, carriage return, ...) as U+FFFD. */
export const forTerminal = (s: string): string => s.replace(TERMINAL_CONTROLS, '\uFFFD');
