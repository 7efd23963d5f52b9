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

/**
 * The most of a caller's own value an error repeats back (an A2A-Version, a Last-Event-ID, a method name): enough to
 * recognise it, while a long header or name cannot make every refusal (and every log line quoting it) that long.
 */
export const MAX_ECHOED = 100;

/** A caller's value as an error message or its data repeats it: one line, at most MAX_ECHOED code points, `…` when cut. */
export const echoed = (s: string): string => oneLine(s, MAX_ECHOED);
